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
- speech: one segment, "fake speech", over the part of the sound louder than SILENCE;
- on-screen text: none;
- captions: the builtin captioner's sentences, measured with a colour grid in place of
  EfficientNet-Lite0 (the subject: the frame's dominant colour's ImageNet class).
The models themselves are tested with the real engines, in tests marked ``models``.
"""

from __future__ import annotations

import numpy as np

from videoreview.engines import registry
from videoreview.engines.base import ProgressFn, no_progress
from videoreview.engines.captions.builtin import BuiltinCaptionEngine
from videoreview.engines.speech.protocol import Transcript
from videoreview.media import scaled_size
from videoreview.media.shared_pass import read_alone
from videoreview.records import Boundary, TranscriptSegment, Word

FAKE = "fake"
ENGINES = {"boundaries": FAKE, "faces": FAKE, "speech": FAKE, "screen-text": FAKE, "captions": FAKE}
CUT_STEP = 40.0  # mean absolute difference (0-255) between two frames at a cut
SILENCE = 0.01  # peak amplitude below which a sample is no speech


class _Fake:
    name = FAKE
    version = "1"
    device = "cpu"

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
        self._extract = ColourGrid()

    def release(self) -> None:
        pass


for capability, engine in (("boundaries", FakeBoundaries), ("faces", FakeFaces), ("speech", FakeSpeech),
                           ("screen-text", FakeText), ("captions", FakeCaptions)):
    registry.register(capability, FAKE, engine)
