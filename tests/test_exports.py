"""Exports read back by the libraries other tools use: pysubs2 for subtitles, the csv
module, and opentimelineio for editor markers."""

import csv

import opentimelineio as otio
import pysubs2
import pytest

from fake_engines import ENGINES
from videoreview.pipeline import StageCache, analyze
from videoreview.records import Analysis, Boundary, BoundaryCaption, FrameCaption, Keyframe, VideoInfo
from videoreview.summary import export
from videos import make_cuts_video


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    cuts = make_cuts_video(tmp_path_factory.mktemp("export"))
    cache = StageCache(tmp_path_factory.mktemp("cache"))
    return analyze(cuts.path, ENGINES, cache=cache)  # the fake engines: the exports are what is checked


def hand_made() -> Analysis:
    video = VideoInfo("/videos/clip.mp4", duration=10.0, fps=25.0, frame_count=250, width=640, height=360)
    return Analysis(
        video=video,
        boundaries=(Boundary(4.0, 100, "cut", 0.95),
                    Boundary(7.0, 175, "event", 0.6, BoundaryCaption("男の人", "歩いている", "座っている"),
                             edited=True)),
        captions=(FrameCaption(0.0, 0, "A kitchen & a fridge <empty>"), FrameCaption(3.0, 75, "Ein Mann öffnet -->"),
                  FrameCaption(5.0, 125, "男の人が歩いている\n\nslowly")),
        keyframes=(Keyframe(0.0, 0, reason="first frame"), Keyframe(5.0, 125, reason="new shot")),
    )


def test_caption_cues_stop_at_cuts_and_the_end():
    cues = export.caption_cues(hand_made())
    assert [(c.start, c.end) for c in cues] == [(0.0, 3.0), (3.0, 4.0), (5.0, 10.0)]  # the cut at 4 s ends cue 2
    boundary = export.boundary_cues(hand_made())
    assert [(c.start, c.end, c.text) for c in boundary] == [(7.0, 10.0, "男の人: 歩いている → 座っている")]


@pytest.mark.parametrize("suffix, write", [(".srt", export.write_srt), (".vtt", export.write_vtt)])
def test_subtitles_parse_with_a_subtitle_library(tmp_path, suffix, write):
    analysis = hand_made()
    path = tmp_path / f"clip{suffix}"
    write(export.caption_cues(analysis), path)
    subs = pysubs2.load(str(path), encoding="utf-8")
    assert [(e.start, e.end) for e in subs] == [(0, 3000), (3000, 4000), (5000, 10000)]
    texts = [e.plaintext for e in subs]
    assert texts[1] == "Ein Mann öffnet →"  # "-->" would have broken the cue
    assert texts[2] == "男の人が歩いている slowly"  # a blank line would have ended the cue early
    raw = path.read_text(encoding="utf-8")
    if suffix == ".vtt":
        assert raw.startswith("WEBVTT") and "A kitchen &amp; a fridge &lt;empty>" in raw
    else:
        assert texts[0] == "A kitchen & a fridge ‹empty›"  # players would hide "<empty>" as markup


def test_real_analysis_subtitles(analysed, tmp_path):
    export.write_srt(export.caption_cues(analysed), tmp_path / "captions.srt")
    export.write_vtt(export.boundary_cues(analysed), tmp_path / "boundaries.vtt")
    captions = pysubs2.load(str(tmp_path / "captions.srt"), encoding="utf-8")
    assert len(captions) == len(analysed.captions) and captions[0].plaintext == analysed.captions[0].text
    boundaries = pysubs2.load(str(tmp_path / "boundaries.vtt"), encoding="utf-8")
    assert [e.start for e in boundaries] == [round(b.time * 1000) for b in analysed.boundaries if b.caption]


def test_boundaries_csv(tmp_path):
    path = tmp_path / "boundaries.csv"
    export.write_boundaries_csv(hand_made(), path)
    with open(path, encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["time"], r["frame"], r["kind"], r["subject"], r["edited"]) for r in rows] == \
        [("4.000", "100", "cut", "", "0"), ("7.000", "175", "event", "男の人", "1")]
    assert rows[1]["before"] == "歩いている" and rows[1]["after"] == "座っている"


def test_otio_markers_load_back(tmp_path):
    path = tmp_path / "clip.otio"
    export.write_otio(hand_made(), path)
    timeline = otio.adapters.read_from_file(str(path))
    (clip,) = timeline.tracks[0]
    assert clip.media_reference.target_url == "file:///videos/clip.mp4"
    assert clip.source_range.duration.to_frames() == 250
    markers = [(m.name, m.marked_range.start_time.to_frames(), m.color) for m in clip.markers]
    assert markers == [("cut", 100, "RED"), ("event", 175, "BLUE"), ("keyframe", 0, "GREEN"),
                       ("keyframe", 125, "GREEN")]
    assert clip.markers[1].comment == "男の人: 歩いている → 座っている"
    assert clip.markers[1].metadata["videoreview"]["edited"] is True


def test_json_round_trip(analysed, tmp_path):
    export.write_json(analysed, tmp_path / "a.json")
    assert Analysis.load(tmp_path / "a.json") == analysed


def test_the_suffix_chooses_the_format(tmp_path):
    from videoreview.errors import RecordError
    from videoreview.summary.export.files import EXPORTS, Options, export_analysis

    analysis = hand_made()
    assert list(EXPORTS) == [".json", ".srt", ".vtt", ".csv", ".otio", ".pdf"]
    export.write_srt(export.boundary_cues(analysis), tmp_path / "direct.srt")
    export_analysis(analysis, tmp_path / "boundaries.SRT", Options(subtitles="boundaries"))
    assert (tmp_path / "boundaries.SRT").read_text() == (tmp_path / "direct.srt").read_text()
    export_analysis(analysis, tmp_path / "clip.vtt")  # frame captions unless told otherwise
    assert (tmp_path / "clip.vtt").read_text() == export.vtt_text(export.caption_cues(analysis))
    export_analysis(analysis, tmp_path / "clip.json")
    assert Analysis.load(tmp_path / "clip.json") == analysis
    with pytest.raises(RecordError, match=r"clip\.docx: cannot export as \.docx \(one of \.json, \.srt"):
        export_analysis(analysis, tmp_path / "clip.docx")
    assert not (tmp_path / "clip.docx").exists()
