"""The speech stage: what is said, when, and by whom.

``compute`` (cached) reads the sound on the picture's clock (media/audio.py) and has the
speech engine transcribe it; it also says what the audio held when nothing was said (no
audio stream, silence, damage, sound shorter or longer than the picture). ``apply`` (every
time, cheap) keeps the segments a reviewer edited; who says what is the speakers stage's
(speakers.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...engines.base import ProgressFn
from ...media import FrameSource
from ...media.audio import sound_pieces
from ...records import Analysis, SpeechInfo, TranscriptSegment
from ..cancel import CancelToken
from .base import Stage, engine_tag
from .cost import StageCost
from .result import StageResult

SILENT_PEAK = 1e-3  # -60 dBFS: nothing a microphone picked up
# The sound is read and transcribed in pieces of at most this many seconds, each ended in a
# pause (media/audio.py), so that a long film's sound is never held whole (16 kHz float32:
# 3.8 MB a minute, and Whisper's spectrogram of it 0.8 MB a second).
PIECE = 120.0
OVERRUN = 0.5  # seconds of sound past the picture's end still transcribed (a last word)


@dataclass(frozen=True)
class SpeechResult(StageResult):
    """What the sound held (``audio``: "none", "silent", "no speech" or "speech"), how long it
    runs, what was odd about it, the language heard first and the segments. Results cached
    with no sound (or a silent one) hold only ``audio`` (and its duration and note)."""

    audio: str
    duration: float = 0.0
    note: str = ""
    language: str = ""
    language_probability: float = 0.0
    segments: tuple[TranscriptSegment, ...] = ()


class SpeechStage(Stage):
    name = "speech"
    cost = StageCost(0.11, load=0.5, needs="voice", unit="audio", beside=True)  # Whisper base, int8
    Result = SpeechResult

    def __init__(self, engine) -> None:
        self.engine = engine

    @classmethod
    def make(cls, engine, chosen: dict[str, str], device: str) -> list[Stage]:
        """What is said, then, where faces are found too, who says it (speakers.py)."""
        if chosen.get("faces", "none") == "none":
            return [cls(engine)]
        from ...engines.faces.mouth import FaceMesh
        from .speakers import SpeakerStage

        return [cls(engine), SpeakerStage(FaceMesh())]

    def compute(self, source: FrameSource, progress: ProgressFn, cancel: CancelToken) -> SpeechResult:
        info = source.info
        pieces = sound_pieces(source.path, source.start_time, self.engine.rate, PIECE, cancel)
        if pieces is None:
            return SpeechResult("none")
        picture, rate = info.duration, self.engine.rate
        heard, first, start, peak, problem = [], None, 0.0, 0.0, ""
        for piece in pieces:
            problem = piece.problem or problem
            samples = piece.samples[:max(0, int((picture + OVERRUN - start) * rate))]  # not past the picture
            loudest = float(np.abs(samples).max()) if len(samples) else 0.0
            peak = max(peak, loudest)
            if loudest >= SILENT_PEAK:
                part = _part_of(progress, start / picture if picture else 0.0, len(samples) / rate / (picture or 1.0))
                # the language heard first holds for the rest
                transcript = self.engine.transcribe(samples, part, cancel, first.language if first else None)
                first = first if first is not None else transcript
                heard += [shifted(segment, start) for segment in transcript.segments]
            start += piece.duration
        notes = [problem] if problem else []
        if start > picture + OVERRUN:
            notes.append(f"the sound runs {start - picture:.1f} s past the picture; that part is left out")
        elif 0 < start < picture - 1.0:
            notes.append(f"the sound ends at {start:.1f} s, before the picture ({picture:.1f} s)")
        result = SpeechResult("silent", duration=round(min(start, picture + OVERRUN), 3), note="; ".join(notes))
        if peak < SILENT_PEAK:
            return result
        return replace(result, audio="speech" if heard else "no speech", language=first.language if first else "",
                       language_probability=first.language_probability if first else 0.0, segments=tuple(heard))

    def apply(self, analysis: Analysis, result: SpeechResult, previous: Analysis | None) -> Analysis:
        info = SpeechInfo(audio=result.audio, language=result.language,
                          language_probability=result.language_probability, duration=result.duration,
                          note=result.note, engine=engine_tag(self.engine))
        return replace(analysis, speech=info, transcript=keep_edited(list(result.segments), previous))


def keep_edited(found: list[TranscriptSegment], previous: Analysis | None) -> tuple[TranscriptSegment, ...]:
    """The engine's segments with the reviewer's edited ones in place of those they overlap."""
    kept = [s for s in previous.transcript if s.edited] if previous is not None else []

    def covered(segment: TranscriptSegment) -> bool:
        return any(min(segment.end, k.end) - max(segment.start, k.start) > 0.5 * (segment.end - segment.start)
                   for k in kept)

    return tuple(sorted(kept + [s for s in found if not covered(s)], key=lambda s: s.start))


def _part_of(progress: ProgressFn, at: float, share: float) -> ProgressFn:
    """Progress of a piece that is ``share`` of the whole, starting ``at`` of it."""
    def part(fraction: float, message: str = "") -> None:
        progress(min(1.0, at + fraction * share), message)

    return part


def shifted(segment: TranscriptSegment, seconds: float) -> TranscriptSegment:
    """A segment heard in a piece of sound that starts ``seconds`` into the picture, on the picture's clock."""
    if not seconds:
        return segment
    words = tuple(replace(w, start=round(w.start + seconds, 3), end=round(w.end + seconds, 3)) for w in segment.words)
    return replace(segment, start=round(segment.start + seconds, 3), end=round(segment.end + seconds, 3), words=words)
