"""Deterministic stand-ins for the analysis engines, for the tests that check wiring (the
pipeline, the window, the library, the command line) rather than a model: each is named
``fake`` and is registered in the engine registry like any engine, so it is chosen the
same way (``--engines``, engines.json) and reaches the analysis and library child
processes (conftest.py names this module in VIDEOREVIEW_ENGINE_MODULES).

They load no model and decode through the same readers as the real engines (the shared
decoding pass, the sound reader), so the decoding of awkward files is still exercised:
- boundaries: a hard cut where a frame differs from the one before by more than CUT_STEP
  on average (the synthetic clips' shots differ by far more); no gradual transitions, no events;
- faces: none;
- expressions: from how bright a face's box is (bright happy, dark sad, else neutral);
- speech: one segment, "fake speech", over the part of the sound louder than SILENCE;
- on-screen text: none;
- objects: a "person", score 1, over each picture pasted on a face clip (``pictures``, the
  faces of fake-people below), and nothing else: the faces and poses stages look only near
  the people the objects stage sees (people_seen.py), so fake-people still finds its faces;
- poses: a body over each such picture, standing still: 17 keypoints at fixed places in
  its box (STANDING), each scored 1;
- captions: the builtin captioner's sentences, measured with a colour grid in place of
  EfficientNet-Lite0 (the subject: the frame's dominant colour's ImageNet class).
Two more face engines, for the window tests that need people or time:
- ``fake-people`` (PEOPLE): a "face" is each picture pasted on the plain background of the
  face clips (tests/faces.py), its box the picture's; its vector the picture's colours, so
  Grace Hopper and Eileen Collins are two people however they are mirrored, turned, scaled
  or lit. On frames without a plain background (the other clips) it finds no one;
- ``fake-slow`` (SLOW): no faces, after SLOW_SECONDS a sample, so that a cancel sent when
  the faces stage starts arrives while it runs.
The models themselves are tested with the real engines, in tests marked ``models``.
"""

from __future__ import annotations

from time import sleep

import cv2
import numpy as np

from videoreview.engines import registry
from videoreview.engines.base import ProgressFn, no_progress
from videoreview.engines.captions.builtin import BuiltinCaptionEngine
from videoreview.engines.expressions import LABELS as EXPRESSIONS
from videoreview.engines.faces.protocol import Face
from videoreview.engines.placement import Placement
from videoreview.engines.poses.protocol import Person
from videoreview.engines.speech.protocol import Transcript
from videoreview.media import scaled_size
from videoreview.media.shared_pass import read_alone
from videoreview.records import Boundary, TranscriptSegment, Word

FAKE = "fake"
ENGINES = {"boundaries": FAKE, "faces": FAKE, "expressions": FAKE, "objects": FAKE, "poses": FAKE, "speech": FAKE,
           "screen-text": FAKE, "captions": FAKE}
PEOPLE, SLOW = "fake-people", "fake-slow"
PERSON = "person"  # the COCO label of people, whose boxes the objects stage shares (people_seen.py)
WITH_PEOPLE = {**ENGINES, "faces": PEOPLE}  # the engines of the window tests on the face clips
CUT_STEP = 40.0  # mean absolute difference (0-255) between two frames at a cut
SILENCE = 0.01  # peak amplitude below which a sample is no speech
SLOW_SECONDS = 0.25  # fake-slow's time a sample: 3 s for the faces of a 6 s clip
# A person standing still, facing the camera, as fractions (x, y) of its box, in COCO's
# keypoint order (decode.KEYPOINTS): the poses stage says "standing" of it (status.py).
STANDING = np.array([
    (0.50, 0.06), (0.53, 0.04), (0.47, 0.04), (0.56, 0.05), (0.44, 0.05),  # nose, eyes, ears
    (0.62, 0.18), (0.38, 0.18), (0.66, 0.34), (0.34, 0.34), (0.66, 0.50), (0.34, 0.50),  # shoulders, elbows, wrists
    (0.58, 0.52), (0.42, 0.52), (0.58, 0.75), (0.42, 0.75), (0.58, 0.97), (0.42, 0.97),  # hips, knees, ankles
], np.float32)


class _Fake:
    name = FAKE
    version = "1"
    device = "cpu"
    device_note = None

    def __init__(self, device: str = "cpu") -> None:
        pass

    def release(self) -> None:
        pass


class FakeBoundaries(_Fake):
    def detect(self, source, progress: ProgressFn = no_progress, cancel=None) -> list[Boundary]:
        return read_alone(source, self.reader(source), progress, cancel)

    def reader(self, source) -> CutReader:
        return CutReader(source)


class CutReader:
    """Every frame at 32 pixels wide, through the shared decoding pass."""

    def __init__(self, source) -> None:
        info = source.info
        self.indices = np.arange(info.frame_count, dtype=np.int64)
        self.size = scaled_size(info.width, info.height, 32)
        self.batch = 64
        self.previous: np.ndarray | None = None
        self.cuts: list[tuple[int, float, float]] = []

    def status(self) -> str:
        return ""  # the pass says "frame N/TOTAL"

    def take(self, batch) -> None:
        for index, time, frame in zip(batch.indices, batch.times, batch.frames):
            frame = frame.astype(np.float32)
            if self.previous is not None:
                step = float(np.abs(frame - self.previous).mean())
                if step > CUT_STEP:
                    self.cuts.append((int(index), float(time), step))
            self.previous = frame

    def result(self) -> list[Boundary]:
        return [Boundary(round(time, 6), index, "cut", round(min(1.0, step / 255 * 4), 4), engine=FAKE)
                for index, time, step in self.cuts]


class FakeFaces(_Fake):
    dim = 4
    same_person = 0.6
    cluster_distance = 0.5

    def detect(self, frame: np.ndarray) -> list:
        return []

    def embed(self, frame: np.ndarray, faces) -> np.ndarray:
        return np.zeros((len(faces), self.dim), np.float32)

    def crops(self, frame: np.ndarray, faces, size: int = 150) -> list[np.ndarray]:
        return [np.zeros((size, size, 3), np.uint8) for _ in faces]


class FakePeople(FakeFaces):
    """The pictures of the face clips (``pictures``), each a face."""

    name = PEOPLE
    dim = 16  # a 4 x 4 histogram of chromaticity (red and green shares of each bright pixel)
    same_person = 0.25  # one person's pictures measured 0.00-0.09 apart on the face clips, two people 0.46-0.54
    cluster_distance = 0.2

    def detect(self, frame: np.ndarray) -> list[Face]:
        return [Face(box, 1.0) for box in pictures(frame)]

    def embed(self, frame: np.ndarray, faces) -> np.ndarray:
        vectors = np.zeros((len(faces), self.dim), np.float32)
        for row, face in enumerate(faces):
            pixels = _picture(frame, face.box).reshape(-1, 3).astype(np.float32)
            total = pixels.sum(axis=1)
            bright = pixels[total > 60] / total[total > 60, None]
            histogram, _, _ = np.histogram2d(bright[:, 0], bright[:, 1], bins=4, range=[[0, 1], [0, 1]])
            vectors[row] = histogram.ravel() / max(1.0, np.linalg.norm(histogram))
        return vectors

    def crops(self, frame: np.ndarray, faces, size: int = 150) -> list[np.ndarray]:
        return [cv2.resize(_picture(frame, face.box), (size, size), interpolation=cv2.INTER_AREA) for face in faces]


MIN_PICTURE = 0.02  # share of a frame a picture covers at least
MIN_BACKGROUND = 0.5  # share of a frame that must be background
OFF_BACKGROUND = 24  # summed green and blue difference (0-255 each) from the background's


def pictures(frame: np.ndarray) -> list[tuple[int, int, int, int]]:
    """The boxes of the pictures pasted on a face clip's frame, largest first: background is
    where a pixel's green and blue are those of most of the frame (the clips' backgrounds
    vary in red only); a picture is a filled rectangle of other pixels of at least
    MIN_PICTURE of the frame. No box on a frame without a plain background."""
    green_blue = frame[:, :, 1:].astype(np.int16)
    background = np.median(green_blue.reshape(-1, 2), axis=0)
    other = np.abs(green_blue - background).sum(axis=2) > OFF_BACKGROUND
    if other.mean() > 1 - MIN_BACKGROUND:
        return []
    other = cv2.morphologyEx(other.astype(np.uint8), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(other)
    found = [(int(x), int(y), int(w), int(h)) for x, y, w, h, area in stats[1:count]
             if area >= MIN_PICTURE * other.size and area >= 0.8 * w * h]
    return sorted(found, key=lambda b: -b[2] * b[3])


def _picture(frame: np.ndarray, box) -> np.ndarray:
    x, y, w, h = (int(v) for v in box)
    return frame[y:y + h, x:x + w]


class SlowFaces(FakeFaces):
    name = SLOW

    def detect(self, frame: np.ndarray) -> list:
        sleep(SLOW_SECONDS)
        return []


class FakeObjects(_Fake):
    def detect(self, frame: np.ndarray) -> list:
        return [(PERSON, 1.0, tuple(float(v) for v in box)) for box in pictures(frame)]


class FakePoses(_Fake):
    def people(self, frame: np.ndarray) -> list[Person]:
        return [Person(1.0, tuple(float(v) for v in box), _standing(box)) for box in pictures(frame)]


def _standing(box) -> np.ndarray:
    """STANDING's keypoints in ``box`` (x, y, w, h), each scored 1."""
    x, y, w, h = box
    points = np.ones((len(STANDING), 3), np.float32)
    points[:, :2] = STANDING * (w, h) + (x, y)
    return points


class FakeExpressions(_Fake):
    """A face's expression from how bright its box is: bright happy, dark sad, else neutral."""

    def expressions(self, image_rgb: np.ndarray, boxes) -> list[dict[str, float]]:
        shown = []
        for x, y, w, h in boxes:
            crop = image_rgb[max(0, int(y)):int(y + h), max(0, int(x)):int(x + w)]
            level = crop.mean() / 255 if crop.size else 0.5
            label = "happy" if level > 0.6 else "sad" if level < 0.3 else "neutral"
            shown.append({each: 0.94 if each == label else 0.01 for each in EXPRESSIONS})
        return shown


class FakeSpeech(_Fake):
    rate = 16000

    def transcribe(self, samples: np.ndarray, progress: ProgressFn, cancel, language: str | None = None) -> Transcript:
        loud = np.flatnonzero(np.abs(samples) > SILENCE)
        progress(1.0, "")
        if not len(loud):
            return Transcript((), language or "en", 1.0)
        start, end = round(loud[0] / self.rate, 3), round((loud[-1] + 1) / self.rate, 3)
        middle = round((start + end) / 2, 3)
        words = (Word(start, middle, "fake", 1.0), Word(middle, end, "speech", 1.0))
        return Transcript((TranscriptSegment(start, end, "fake speech", words, "en", FAKE),), language or "en", 1.0)


class FakeText(_Fake):
    long_side = 320

    def read(self, frame: np.ndarray) -> list:
        return []

    def find(self, image: np.ndarray, frame_shape=None) -> list:
        return []


class ColourGrid:
    """EfficientNet-Lite0's interface (features and ImageNet probabilities) from colours:
    a frame's feature is its 16 x 16 grid of mean colours; its class is its dominant colour's."""

    # ImageNet classes by dominant channel: red, green, blue
    CLASSES = (947, 984, 978)  # mushroom, rapeseed, seashore
    device, device_note = "cpu", None

    def __call__(self, frames: np.ndarray) -> np.ndarray:
        return self.features_and_probabilities(frames)[0]

    def features_and_probabilities(self, frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        frames = np.asarray(frames, np.float32)
        n, h, w, _ = frames.shape
        rows, cols = np.linspace(0, h, 17).astype(int), np.linspace(0, w, 17).astype(int)
        grid = np.stack([[frames[:, rows[i]:max(rows[i + 1], rows[i] + 1), cols[j]:max(cols[j + 1], cols[j] + 1)]
                          .mean(axis=(1, 2)) for j in range(16)] for i in range(16)], axis=1)  # [n, 16, 16, 3]
        features = np.zeros((n, 1280), np.float32)
        features[:, :768] = grid.reshape(n, -1) / 255 - 0.5
        features /= np.maximum(np.linalg.norm(features, axis=1, keepdims=True), 1e-6)
        probabilities = np.full((n, 1000), 1e-4, np.float32)
        dominant = frames.mean(axis=(1, 2)).argmax(axis=1)
        probabilities[np.arange(n), np.array(self.CLASSES)[dominant]] = 0.9
        return features, probabilities


class FakeCaptions(BuiltinCaptionEngine):
    name = FAKE
    version = "1"

    def __init__(self, device: str = "cpu") -> None:
        super().__init__()
        self._extract, self._place = ColourGrid(), Placement("cpu")

    def release(self) -> None:
        pass


for capability, engine in (("boundaries", FakeBoundaries), ("faces", FakeFaces), ("expressions", FakeExpressions),
                           ("objects", FakeObjects), ("poses", FakePoses), ("speech", FakeSpeech),
                           ("screen-text", FakeText), ("captions", FakeCaptions)):
    registry.register(capability, FAKE, engine)
registry.register("faces", PEOPLE, FakePeople)
registry.register("faces", SLOW, SlowFaces)
