"""The PDF report, read back with poppler's tools: its text, fonts, pictures and pixels;
non-Latin captions; no video; bad destinations; characters no font covers."""

import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from fake_engines import ENGINES
from videoreview.pipeline import StageCache, analyze
from videoreview.records import (
    Analysis,
    Appearance,
    Boundary,
    BoundaryCaption,
    FaceDetection,
    FrameCaption,
    Identity,
    Keyframe,
    VideoInfo,
)
from videoreview.summary import builder
from videoreview.summary.compare import Comparison, Reference, Row
from videoreview.summary.export import fonts, write_pdf
from videoreview.timecode import format_time

POPPLER = ("pdftotext", "pdfinfo", "pdffonts", "pdfimages", "pdftoppm")
pytestmark = pytest.mark.skipif(not all(map(shutil.which, POPPLER)), reason="poppler-utils reads the PDF back")

SCORER = "tiny-scorer"
NAME = "Grace Hopper"
NON_LATIN = {"chinese": "一个人走进房间", "russian": "Человек", "greek": "Ελληνικά", "accented": "Øresund-café"}


def poppler(tool: str, *args) -> str:
    return subprocess.run([tool, *map(str, args)], capture_output=True, text=True, check=True).stdout


def text_of(path: Path) -> str:
    """The PDF's text with runs of white space as one space (lines wrap anywhere)."""
    return " ".join(poppler("pdftotext", path, "-").split())


def page_count(path: Path) -> int:
    return int(re.search(r"^Pages:\s+(\d+)", poppler("pdfinfo", path), re.M).group(1))


@pytest.fixture(scope="module")
def analysed(cuts_video, tmp_path_factory):
    """An Analysis of the cuts video by the fake engines (fake_engines.py), with two
    identities (one named by a reviewer) and a keyframes+text summary added."""
    analysis = analyze(cuts_video.path, ENGINES, cache=StageCache(tmp_path_factory.mktemp("cache")))
    people = (Identity("P1", NAME, (Appearance(0.5, 3.0),), (1,), FaceDetection(1.0, 25, (120, 50, 60, 70), 0.9, 1),
                       edited=True),
              Identity("P2", None, (Appearance(5.0, 6.0), Appearance(8.0, 9.0)), (2,),
                       FaceDetection(5.0, 125, (20, 20, 30, 30), 0.8, 2)))
    analysis = replace(analysis, identities=people)
    return replace(analysis, summaries=(builder.build(analysis, "keyframes+text", 3),))


@pytest.fixture(scope="module")
def comparison(analysed):
    summary = analysed.summaries[0]
    rows = (Row("text", 12.5, 80, SCORER, True, (), "words"),
            Row("3", 8.25, 900, SCORER, True, summary.keyframe_frames, summary.text))
    return Comparison(Reference("A test card.", "typed"), ("test", "card"), -50.0, rows, (0, 1),
                      ((0.0, 1), (0.1, 0)))


def test_report_reads_back_with_every_section(analysed, comparison, cuts_video, tmp_path, monkeypatch):
    from videoreview.media.source import FrameSource

    calls = []
    decode = FrameSource.frames_at_indices

    def counted(self, *args, **kwargs):
        calls.append(args)
        return decode(self, *args, **kwargs)

    monkeypatch.setattr(FrameSource, "frames_at_indices", counted)
    out = tmp_path / "report.pdf"
    assert write_pdf(analysed, out, video_path=cuts_video.path, comparison=comparison) == []
    assert len(calls) == 1  # every picture from one decoding pass
    assert 1 <= page_count(out) <= 6
    text = text_of(out)
    summary = analysed.summaries[0]
    subject = next(b.caption.subject for b in analysed.boundaries if b.caption)
    opening = " ".join(summary.text.split("[KEYFRAME1]")[0].split())
    first = next(k for k in analysed.keyframes if k.frame == summary.keyframe_frames[0])
    reference = f"[Keyframe 1, {format_time(first.time, analysed.video.fps)}]"
    captioner = analysed.engines["captions"]  # the engine that wrote the captions, named in the report
    for expected in ("Video review: cuts.mp4", subject, f"{NAME} (P1)", opening, reference,
                     f"ViSIL under {SCORER} (approximate)", "Reference description: typed", captioner):
        assert expected in text
    # Keyframes (the summary's are among them) and two faces, embedded as the JPEG they were encoded as.
    images = [line.split() for line in poppler("pdfimages", "-list", out).splitlines()[2:]]
    assert len({row[10] for row in images}) == len(analysed.keyframes) + 2  # distinct objects
    assert {row[8] for row in images} == {"jpeg"}


def test_non_latin_text_prints(cuts_video, tmp_path):
    if fonts.fallbacks_for(NON_LATIN["chinese"])[1]:
        pytest.skip("no installed font covers Chinese")
    video = VideoInfo(str(cuts_video.path), duration=9.6, fps=25.0, frame_count=240, width=320, height=180)
    analysis = Analysis(
        video=video,
        captions=tuple(FrameCaption(float(t), t * 25, text) for t, text in enumerate(NON_LATIN.values())),
        keyframes=tuple(Keyframe(float(t), t * 25) for t in range(len(NON_LATIN))),
        boundaries=(Boundary(2.0, 50, "event", 0.7, BoundaryCaption("一个人", "站着", "坐下")),),
        identities=(Identity("P1", "Ана Мария", (Appearance(0.0, 2.0),)),),
    )
    out = tmp_path / "scripts.pdf"
    assert write_pdf(analysis, out) == []
    text = text_of(out)
    for words in [*NON_LATIN.values(), "Ана Мария (P1)", "站着"]:
        assert words in text
    # Text after a line that starts in a fallback font keeps its own font (py-pdf/fpdf2#1772).
    assert text.count("no picture") == len(NON_LATIN) + 1
    # The installed font chosen for the Chinese is embedded (fpdf2 names it by its full name, without spaces).
    from fontTools.ttLib import TTFont

    cjk = fonts.fallbacks_for(NON_LATIN["chinese"])[0][0]
    name = re.sub("[ ()]", "", TTFont(cjk.path, fontNumber=cjk.index, lazy=True)["name"].getBestFullName())
    embedded = [line.split()[0] for line in poppler("pdffonts", out).splitlines()[2:] if line.split()[-5] == "yes"]
    assert any(font.endswith("+" + name) for font in embedded), (name, embedded)

    # Every non-Latin word draws ink on the page (not empty glyphs).
    import cv2

    poppler("pdftoppm", "-r", "60", "-png", "-f", "1", "-l", "1", out, tmp_path / "page")
    page = cv2.imread(str(next(tmp_path.glob("page*.png"))), cv2.IMREAD_GRAYSCALE)
    boxes = poppler("pdftotext", "-bbox", "-f", "1", "-l", "1", out, "-")
    for words in NON_LATIN.values():
        found = re.search(r'xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">' + re.escape(words), boxes)
        assert found, words
        x0, y0, x1, y1 = (round(float(v) * 60 / 72) for v in found.groups())
        assert page[y0:y1 + 1, x0:x1 + 1].min() < 100, f"{words} drew nothing"


def test_without_a_video_pictures_are_placeholders(analysed, tmp_path):
    out = tmp_path / "no-video.pdf"
    assert write_pdf(analysed, out) == []
    assert page_count(out) >= 1
    assert "no picture" in text_of(out)
    assert len(poppler("pdfimages", "-list", out).splitlines()) == 2  # the header only


def test_an_unreadable_video_is_a_warning_not_an_error(analysed, tmp_path):
    fake = tmp_path / "fake.mp4"
    fake.write_bytes(b"not a video")
    out = tmp_path / "report.pdf"
    warnings = write_pdf(analysed, out, video_path=fake)
    assert len(warnings) == 1 and warnings[0].startswith("no pictures") and "fake.mp4" in warnings[0]
    assert page_count(out) >= 1


def test_a_missing_folder_is_a_clear_error(analysed, tmp_path):
    out = tmp_path / "no such folder" / "report.pdf"
    with pytest.raises(FileNotFoundError, match="does not exist") as error:
        write_pdf(analysed, out)
    assert str(out) in str(error.value)
    assert not out.parent.exists()


def test_a_failed_write_leaves_the_earlier_file(analysed, tmp_path, monkeypatch):
    out = tmp_path / "report.pdf"
    out.write_bytes(b"the earlier report")

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("videoreview.records.os.fsync", disk_full)
    with pytest.raises(OSError, match="cannot write the PDF report") as error:
        write_pdf(analysed, out)
    assert str(out) in str(error.value)
    assert out.read_bytes() == b"the earlier report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.pdf"]  # no temporary file left


def test_characters_no_font_covers_are_reported(tmp_path):
    video = VideoInfo("/videos/clip.mp4", duration=4.0, fps=25.0, frame_count=100, width=640, height=360)
    hieroglyph, private = "\U00013000", "\ue000"
    analysis = Analysis(video=video, captions=(FrameCaption(0.0, 0, f"A sign {hieroglyph} and {private}."),),
                        keyframes=(Keyframe(0.0, 0),))
    out = tmp_path / "missing.pdf"
    warnings = write_pdf(analysis, out)
    assert len(warnings) == 1
    assert "U+13000" in warnings[0] and "U+E000" in warnings[0] and "install a font" in warnings[0].lower()
    assert "A sign \ufffd and \ufffd." in text_of(out)  # drawn visibly as replacement characters


def test_dejavu_sans_stands_in_without_noto_sans(monkeypatch, tmp_path):
    if fonts._dejavu() is None:
        pytest.skip("DejaVu Sans is not installed")
    monkeypatch.setattr(fonts, "NOTO_PACKAGE", "no_such_font_package")
    fonts._base_fonts.cache_clear()
    try:
        assert {f.path.name for f in fonts.base_fonts().values()} == {"DejaVuSans.ttf", "DejaVuSans-Bold.ttf"}
        video = VideoInfo("/videos/clip.mp4", duration=4.0, fps=25.0, frame_count=100, width=640, height=360)
        write_pdf(Analysis(video=video), tmp_path / "dejavu.pdf")
        assert "DejaVuSans" in poppler("pdffonts", tmp_path / "dejavu.pdf")
    finally:
        monkeypatch.undo()
        fonts._base_fonts.cache_clear()


def test_the_report_has_what_is_said_and_written(analysed, tmp_path):
    from dataclasses import replace

    from videoreview.records import ScreenText, SpeechInfo, TranscriptSegment

    said = replace(analysed, speech=SpeechInfo("speech", "en", 0.93, 9.6, "the sound ends at 8.0 s", "whisper-base@1"),
                   transcript=(TranscriptSegment(1.0, 3.0, "Meet me at the station.", speaker="P1"),
                               TranscriptSegment(5.0, 6.0, "Who is there?", edited=True)),
                   screen_text=(ScreenText(0.0, 2.5, "Chapter 3: The Station", (10, 10, 200, 30), 0.99),))
    out = tmp_path / "speech.pdf"
    assert write_pdf(said, out) == []
    text = text_of(out)
    for expected in ("What is said", "Language: en (93% sure), by whisper-base@1", "Note: the sound ends at 8.0 s",
                     f"{NAME} Meet me at the station.", "Who is there?", "On-screen text",
                     "Chapter 3: The Station", "Speech segments 2"):
        assert expected in text, expected
    silent = replace(analysed, speech=SpeechInfo("none"))
    write_pdf(silent, out)
    assert "The video has no audio stream." in text_of(out)
