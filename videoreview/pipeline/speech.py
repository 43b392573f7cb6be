"""The speech stage: what is said, when, and by whom.

``compute`` (cached) reads the sound on the picture's clock (media/audio.py) and has the
speech engine transcribe it; it also says what the audio held when nothing was said (no
audio stream, silence, damage, sound shorter or longer than the picture). ``apply`` (every
time, cheap) keeps the segments a reviewer edited; who says what is the speakers stage's
(speakers.py).
"""

from __future__ import annotations

from dataclasses import replace

from ..engines.base import ProgressFn
from ..media import FrameSource
from ..media.audio import read_sound
from ..records import Analysis, SpeechInfo, TranscriptSegment
from .cancel import CancelToken

SILENT_PEAK = 1e-3  # -60 dBFS: nothing a microphone picked up
OVERRUN = 0.5  # seconds of sound past the picture's end still transcribed (a last word)


class SpeechStage:
    name = "speech"

    def __init__(self, engine) -> None:
        self.engine = engine

    def compute(self, source: FrameSource, progress: ProgressFn, cancel: CancelToken) -> dict:
        info = source.info
        sound = read_sound(source.path, source.start_time, self.engine.rate, cancel)
        if sound is None:
            return {"audio": "none"}
        notes = [sound.problem] if sound.problem else []
        picture = info.duration
        if sound.duration > picture + OVERRUN:
            notes.append(f"the sound runs {sound.duration - picture:.1f} s past the picture; that part is left out")
            sound = replace(sound, samples=sound.samples[:int((picture + OVERRUN) * sound.rate)])
        elif 0 < sound.duration < picture - 1.0:
            notes.append(f"the sound ends at {sound.duration:.1f} s, before the picture ({picture:.1f} s)")
        result = {"audio": "silent", "duration": round(sound.duration, 3), "note": "; ".join(notes)}
        if sound.peak() < SILENT_PEAK:
            return result
        transcript = self.engine.transcribe(sound.samples, progress, cancel)
        result.update(audio="speech" if transcript.segments else "no speech", language=transcript.language,
                      language_probability=transcript.language_probability,
                      segments=[s.to_dict() for s in transcript.segments])
        return result

    def apply(self, analysis: Analysis, result: dict, previous: Analysis | None) -> Analysis:
        engine = f"{self.engine.name}@{self.engine.version}"
        info = SpeechInfo(audio=result["audio"], language=result.get("language", ""),
                          language_probability=result.get("language_probability", 0.0),
                          duration=result.get("duration", 0.0), note=result.get("note", ""), engine=engine)
        found = [TranscriptSegment.from_dict(d) for d in result.get("segments", ())]
        return replace(analysis, speech=info, transcript=keep_edited(found, previous))


def keep_edited(found: list[TranscriptSegment], previous: Analysis | None) -> tuple[TranscriptSegment, ...]:
    """The engine's segments with the reviewer's edited ones in place of those they overlap."""
    kept = [s for s in previous.transcript if s.edited] if previous is not None else []

    def covered(segment: TranscriptSegment) -> bool:
        return any(min(segment.end, k.end) - max(segment.start, k.start) > 0.5 * (segment.end - segment.start)
                   for k in kept)

    return tuple(sorted(kept + [s for s in found if not covered(s)], key=lambda s: s.start))


def make_stages(engine, chosen: dict[str, str], device: str) -> list:
    """What is said, then, where faces are found too, who says it (speakers.py)."""
    if chosen.get("faces", "none") == "none":
        return [SpeechStage(engine)]
    from ..engines.faces.mouth import FaceMesh
    from .speakers import SpeakerStage

    return [SpeechStage(engine), SpeakerStage(FaceMesh())]
