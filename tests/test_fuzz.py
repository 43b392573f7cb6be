"""Damaged files where the app reads files.

The media: damaged copies of three real clips (tests/fuzz.py) through the whole analysis:
each analyses or is refused with one line naming the file; never a traceback, a crash or a
hang. The decoding is what is tried, so the fake engines (fake_engines.py) analyse: they
read the frames and the sound through the same readers as the real ones.
benchmarks/fuzz_media.py runs the same with a few hundred variants and the default engines.

The importers: damaged and random annotation files through every reader in the
annotations table (below)."""

import copy
import json
import re
import shutil
import traceback
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import fuzz
from fake_engines import ENGINES
from videoreview.annotations import FORMATS, AnnotationError, Edit, export_annotations, read_annotations
from videoreview.errors import VideoReviewError
from videoreview.records import (
    Analysis,
    Appearance,
    Boundary,
    BoundaryCaption,
    FaceDetection,
    FaceTrack,
    FrameCaption,
    Identity,
    ObjectDetection,
    ObjectTrack,
    PoseSample,
    PoseTrack,
    TranscriptSegment,
    VideoInfo,
)

VARIANTS = 24  # about 40 ms each with the fake engines; the benchmark runs 300
TIMEOUT_S = 60


def test_damaged_files_analyse_or_are_refused_in_one_line(tmp_path):
    variants = fuzz.make_variants(fuzz.make_bases(tmp_path / "bases"), tmp_path / "variants", VARIANTS, seed=19)
    outcomes, problems = fuzz.run(variants, tmp_path / "home", TIMEOUT_S, ENGINES)
    assert not problems, "\n".join(problems)
    counts = fuzz.tally(outcomes)
    assert counts["ok"] + counts["refused"] == VARIANTS
    assert counts["ok"] and counts["refused"]  # the variants reach both ends


# -- the importers --------------------------------------------------------------------------
# Every reader in the annotations table (those with ``read``, taken from the table when the
# tests run) is fed damaged and random files: each cut short at random places, bits
# flipped, random bytes, valid JSON or XML of the wrong shape (a value of the wrong type,
# a key or an element gone), numbers made huge, negative or not numbers, and the files of
# the other formats. Each must raise AnnotationError in one line naming the file, or give
# reviewer edits that apply; never another exception, and the analysis given is never
# changed (the edits' changes are pure).

READERS = [f.name for f in FORMATS.values() if f.read]
# The file each reader reads, in the folder its writer fills (issue 56's layouts).
READ_FROM = {f.name: f.file for f in FORMATS.values() if f.read}  # the file each reader reads back
ODD_NUMBERS = ["-1", "-99999", "0", "1e308", "-1e308", "123456789012345678901234567890", "NaN", "inf", "2.5",
               "1e-320", "x", ""]
ODD_VALUES = [None, -1, 0, 1e308, -1e308, 10**30, "", "x" * 1000, [], {}, [None], {"": None}, True, 2.5]
WRONG_SHAPES = ["", " ", "null", "0", "-1", '"text"', "[]", "{}", "[[]]", "[null]", "[{}]", "[0]", '{"": {}}',
                '[{"id": -1, "data": null, "annotations": "x"}]', '{"annotations": 5, "tasks": [null]}',
                "[" * 100_000 + "]" * 100_000, "<annotations/>", "<annotations><track/></annotations>",
                "<x/>", "<?xml version='1.0'?>", "<annotations><meta><task><size>-5</size></task></meta></annotations>",
                "<annotations><track id='-1' label=''><box frame='-3' xtl='1e308' ytl='NaN' xbr='x' ybr=''/></track>"
                "</annotations>", "1,1,0,0,10,10,1,1,1", "-1,-1,-1,-1,-1,-1,-1,-1,-1", "1e308," * 9, "a,b,c"]
VARIANTS_EACH = 32  # of each kind of damage, per reader


def reviewed_analysis() -> Analysis:
    """A 4 s 320x240 analysis with something of everything the formats carry."""
    video = VideoInfo(path="/videos/fuzz.mp4", duration=4.0, fps=25.0, frame_count=100, width=320, height=240)
    objects = [ObjectDetection(f / 25, f, "person", (10.0 + f, 20.0, 60.0, 150.0), 0.9, 0) for f in (0, 25, 50, 75)]
    objects += [ObjectDetection(f / 25, f, "car", (200.0, 150.0, 80.0, 40.0), 0.7, 1) for f in (25, 50)]
    faces = [FaceDetection(f / 25, f, (30.0, 25.0, 20.0, 24.0), 0.95, 0, "P1") for f in (0, 12, 25)]
    keypoints = tuple(v for k in range(17) for v in (20.0 + k, 30.0 + 5 * k, 0.9))
    samples = [PoseSample(f / 25, f, 0, (10.0, 20.0, 60.0, 150.0), 0.9, keypoints) for f in (0, 5, 10)]
    return Analysis(
        video=video, content_hash="fuzz",
        boundaries=(Boundary(1.0, 25, "cut", 0.9, BoundaryCaption("a person", "standing", "walking", "builtin")),
                    Boundary(3.0, 75, "cut", 0.8)),
        captions=(FrameCaption(0.0, 0, "a person walks"), FrameCaption(2.0, 50, "a car passes")),
        faces=tuple(faces), face_tracks=(FaceTrack(0, 0.0, 1.0, 0, 3, 24.0, 0.95, 100.0, 0.8, (), "P1"),),
        identities=(Identity("P1", "Ada", (Appearance(0.0, 1.0),), (0,)),),
        transcript=(TranscriptSegment(0.5, 1.5, "hello there"),),
        objects=tuple(objects),
        object_tracks=(ObjectTrack(0, "person", 0.0, 4.0, 0.9, 4), ObjectTrack(1, "car", 1.0, 3.0, 0.7, 2)),
        poses=(PoseTrack(0, 0.0, 0.6, 0.9, 3, (10.0, 20.0, 60.0, 150.0), "P1"),), pose_samples=tuple(samples))


def _cut(data: bytes, rng) -> bytes:
    return data[: int(rng.integers(0, max(1, len(data))))]


def _flipped(data: bytes, rng) -> bytes:
    out = bytearray(data)
    for i in rng.integers(0, max(1, len(out)), int(rng.integers(1, 33))) if out else ():
        out[i] ^= 1 << int(rng.integers(8))
    return bytes(out)


def _odd_numbers(data: bytes, rng) -> bytes:
    """Some of the numbers in the file made negative, huge, not numbers or empty."""
    text = data.decode("utf-8", "replace")
    spots = [m.span() for m in re.finditer(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)]
    if not spots:
        return data
    for start, end in sorted((spots[i] for i in set(rng.integers(0, len(spots), int(rng.integers(1, 6))))),
                             reverse=True):
        text = text[:start] + ODD_NUMBERS[int(rng.integers(len(ODD_NUMBERS)))] + text[end:]
    return text.encode()


def _json_reshaped(value, rng):
    """The JSON document with one node replaced by a value of another shape, or a key dropped."""
    value = copy.deepcopy(value)
    parent, key, node = None, None, value
    for _ in range(int(rng.integers(0, 12))):
        keys = list(node) if isinstance(node, dict) else list(range(len(node))) if isinstance(node, list) else []
        if not keys:
            break
        parent, key = node, keys[int(rng.integers(len(keys)))]
        node = node[key]
    if parent is None:
        return ODD_VALUES[int(rng.integers(len(ODD_VALUES)))]
    if isinstance(parent, dict) and rng.integers(3) == 0:
        del parent[key]
    else:
        parent[key] = ODD_VALUES[int(rng.integers(len(ODD_VALUES)))]
    return value


def _xml_reshaped(root: ET.Element, rng) -> bytes:
    """The XML with one element gone, renamed or emptied, or one attribute odd or gone."""
    root = copy.deepcopy(root)
    elements = [(parent, child) for parent in root.iter() for child in parent]
    if not elements:
        return ET.tostring(root)
    parent, child = elements[int(rng.integers(len(elements)))]
    how = int(rng.integers(4))
    if how == 0:
        parent.remove(child)
    elif how == 1:
        child.tag = "odd"
    elif how == 2 and child.attrib:
        name = list(child.attrib)[int(rng.integers(len(child.attrib)))]
        if rng.integers(2):
            del child.attrib[name]
        else:
            child.attrib[name] = ODD_NUMBERS[int(rng.integers(len(ODD_NUMBERS)))]
    else:
        child.text = ODD_NUMBERS[int(rng.integers(len(ODD_NUMBERS)))]
    return ET.tostring(root)


def _reshaped(data: bytes, rng) -> bytes:
    """Valid JSON or XML of the wrong shape; a text file's lines with fields gone or added."""
    try:
        return json.dumps(_json_reshaped(json.loads(data), rng)).encode()
    except ValueError:
        pass
    try:
        return _xml_reshaped(ET.fromstring(data), rng)
    except ET.ParseError:
        pass
    lines = data.decode("utf-8", "replace").splitlines()
    if lines:
        k = int(rng.integers(len(lines)))
        fields = lines[k].split(",")
        lines[k] = ",".join(fields[: int(rng.integers(0, len(fields) + 1))] + ["x"] * int(rng.integers(0, 3)))
    return "\n".join(lines).encode()


DAMAGE = {"cut": _cut, "flipped": _flipped, "odd numbers": _odd_numbers, "reshaped": _reshaped,
          "random bytes": lambda data, rng: rng.integers(0, 256, int(rng.integers(0, 4096))).astype(np.uint8).tobytes()}


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, Path]:
    """Every format's export of the reviewed analysis: format -> folder."""
    root = tmp_path_factory.mktemp("annotations")
    analysis = reviewed_analysis()
    for name in FORMATS:
        export_annotations(analysis, name, root / name)
    return {name: root / name for name in FORMATS}


def _problem(analysis: Analysis, kept: Analysis, path: Path, name: str | None, recipe: str) -> str | None:
    """What is wrong with reading ``path``: None when it raised one line naming the file, or
    gave edits that apply; the analysis must equal ``kept`` (its copy) afterwards."""
    try:
        found = read_annotations(analysis, path, name)
    except AnnotationError as exc:
        message = str(exc)
        if "\n" in message or not message.startswith(f"{path}: "):
            return f"{recipe}: not one line naming the file: {message!r}"
        found = []
    except Exception as exc:  # noqa: BLE001 (any other is what is looked for)
        return f"{recipe}: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=-3)}"
    if not isinstance(found, list) or not all(isinstance(e, Edit) for e in found):
        return f"{recipe}: gave {type(found).__name__}, not a list of edits"
    after = analysis
    for edit in found:
        try:
            after = edit.change(after)
        except VideoReviewError as exc:
            if "\n" in str(exc):
                return f"{recipe}: the edit {edit.text!r} failed in more than one line: {exc}"
            break
        except Exception as exc:  # noqa: BLE001
            return f"{recipe}: the edit {edit.text!r}: {type(exc).__name__}: {exc}"
    if analysis != kept:
        return f"{recipe}: the analysis given was changed"
    return None


def test_every_format_has_its_file():
    assert READERS, f"no format in FORMATS is read back: {list(FORMATS)}"
    unnamed = [name for name, file in READ_FROM.items() if not file]
    assert not unnamed, f"{unnamed} read files back but FORMATS names no file they read"


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", READERS)
def test_importers_refuse_damaged_files_in_one_line(name, written, tmp_path):
    analysis = reviewed_analysis()
    kept = copy.deepcopy(analysis)
    original = written[name] / READ_FROM[name]
    seed = original.read_bytes()
    assert read_annotations(analysis, original, name) == [], "its own export must read back as no change"
    rng = np.random.default_rng(56)
    cases: list[tuple[str, bytes]] = [(f"wrong shape {k}: {text[:60]!r}", text.encode())
                                      for k, text in enumerate(WRONG_SHAPES)]
    cases += [(f"{how} {k}", damage(seed, rng)) for how, damage in DAMAGE.items() for k in range(VARIANTS_EACH)]
    for other, folder in written.items():  # the other formats' files, under this format's name
        cases += [(f"{other}'s {p.relative_to(folder)}", p.read_bytes()) for p in sorted(folder.rglob("*"))
                  if p.is_file() and p.suffix in (".xml", ".json", ".txt") and other != name]
    problems = []
    for k, (recipe, data) in enumerate(cases):
        folder = tmp_path / f"{k:04d}"
        shutil.copytree(written[name], folder)  # beside the file: what its reader also reads (seqinfo.ini)
        path = folder / READ_FROM[name]
        path.write_bytes(data)
        for given in (name, None):  # the format given, and guessed from the file
            found = _problem(analysis, kept, path, given, f"{name} ({'given' if given else 'guessed'}): {recipe}")
            if found:
                problems.append(found)
    assert not problems, f"{len(problems)} of {2 * len(cases)}:\n" + "\n".join(problems[:20])
