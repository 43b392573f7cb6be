"""Who says each segment (MICap's idea: tie speech to the identities on screen).

A segment is given to an identity only with evidence:
- "alone": while it is spoken, that identity's face is the only face on screen (in at
  least half of the face samples inside the segment, and no other face in any of them);
- otherwise nobody: several faces with no sign of who is talking, an off-screen voice,
  faces nobody could identify. Wrong names are worse than none.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import replace

from ..records import Analysis, TranscriptSegment
from .faces import SAMPLE_RATE as FACE_SAMPLE_RATE

MIN_ALONE = 0.5  # of the face samples within a segment, at least this share show the speaker alone


def attribute_speakers(analysis: Analysis, segments: list[TranscriptSegment],
                       sample_rate: float = FACE_SAMPLE_RATE) -> list[TranscriptSegment]:
    """``segments`` with ``speaker`` set where the faces in ``analysis`` show who speaks."""
    if not analysis.faces:
        return segments
    faces_at: dict[float, list] = defaultdict(list)
    for face in analysis.faces:
        faces_at[face.time].append(face)
    times = sorted(faces_at)
    out = []
    for segment in segments:
        speaker = _alone(segment, times, faces_at, sample_rate)
        out.append(replace(segment, speaker=speaker, speaker_by="alone" if speaker else ""))
    return out


def _alone(segment: TranscriptSegment, times: list[float], faces_at, sample_rate: float) -> str | None:
    """The identity shown alone while ``segment`` is spoken, or None. ``times``: the face
    samples that found any face (the stage samples ``sample_rate`` frames a second)."""
    # Samples a little before the start count: a face sample is up to 1 / rate older
    # than the moment it stands for.
    inside = times[bisect.bisect_left(times, segment.start - 0.5 / sample_rate):
                   bisect.bisect_right(times, segment.end)]
    who = set()
    for time in inside:
        faces = faces_at[time]
        if len(faces) > 1:
            return None
        who.add(faces[0].identity)
    expected = max(1.0, (segment.end - segment.start) * sample_rate)
    if len(who) != 1 or None in who or len(inside) < MIN_ALONE * expected:
        return None
    return next(iter(who))
