"""Notes as OpenTimelineIO markers on the video's clip (``.otio``): every field of the
note, drawings included, travels in the marker's metadata, so an OTIO file round-trips
exactly; markers an editor made (no such metadata) come in as new notes."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..errors import RecordError
from ..records import Analysis, Note, write_atomic
from ..smpte import exact_rate
from ..timecode import frame_time
from .incoming import Incoming, at_rate, file_time, foreign_id, rate_messages, tag_for

# OTIO's MarkerColor names for our tags
COLOURS = {"blue": "BLUE", "cyan": "CYAN", "green": "GREEN", "yellow": "YELLOW", "red": "RED", "pink": "PINK",
           "purple": "PURPLE"}


def timeline(analysis: Analysis, notes: tuple[Note, ...]):
    import opentimelineio as otio

    info = analysis.video
    rate = exact_rate(info.fps)

    def span(frame: int, frames: int):
        time = otio.opentime.RationalTime
        return otio.opentime.TimeRange(time(frame, rate), time(frames, rate))

    media = otio.schema.ExternalReference(target_url=Path(info.path).resolve().as_uri(),
                                          available_range=span(0, info.frame_count))
    clip = otio.schema.Clip(name=Path(info.path).name, media_reference=media, source_range=span(0, info.frame_count))
    for n in notes:
        length = n.last_frame - n.frame + 1 if n.is_range else 0
        clip.markers.append(otio.schema.Marker(name=n.text.split("\n")[0][:80], marked_range=span(n.frame, length),
                                               color=COLOURS[n.tag], comment=n.text,
                                               metadata={"videoreview": {"note": n.to_dict()}}))
    track = otio.schema.Track(name="video", kind=otio.schema.TrackKind.Video)
    track.append(clip)
    result = otio.schema.Timeline(name=f"{Path(info.path).stem} notes")
    result.tracks.append(track)
    return result


def write(analysis: Analysis, notes: tuple[Note, ...], path: str | os.PathLike) -> None:
    import opentimelineio as otio

    text = otio.adapters.write_to_string(timeline(analysis, notes), "otio_json")
    write_atomic(Path(path), text.encode("utf-8"))


def read(analysis: Analysis, path: str | os.PathLike) -> Incoming:
    import opentimelineio as otio

    try:
        loaded = otio.adapters.read_from_file(str(path), "otio_json")
    except Exception as exc:  # OTIO raises its own and plain exceptions for a file that is not OTIO
        raise RecordError(path, f"not an OpenTimelineIO file ({type(exc).__name__}: {exc})") from None
    if not isinstance(loaded, otio.schema.Timeline):
        raise RecordError(path, f"not an OpenTimelineIO timeline (it holds a {type(loaded).__name__})")
    incoming, changed, rates = Incoming(), file_time(path), set()
    # Markers on clips (ours, Resolve's clip markers) and on tracks and the timeline's stack.
    holders = [*loaded.find_clips(), *loaded.tracks, loaded.tracks]
    for holder in holders:
        for marker in holder.markers:
            rate = marker.marked_range.start_time.rate
            rates.add(rate)
            incoming.notes.append(_note(marker, rate, analysis, path, changed, incoming.messages))
    incoming.messages += rate_messages(path, rates, analysis)
    return incoming


def _note(marker, rate: float, analysis: Analysis, path, changed: str, messages: list[str]) -> Note:
    ours = (marker.metadata.get("videoreview") or {}).get("note")
    if ours is not None:
        try:
            return at_rate(Note.from_dict(_plain(ours)), rate, analysis)
        except (RecordError, TypeError) as exc:
            raise RecordError(path, f"marker {marker.name!r}: {getattr(exc, 'reason', exc)}") from None
    # An editor's marker: its time counts from the start of what holds it.
    start = marker.marked_range.start_time
    frame = round(start.value_rescaled_to(rate))
    frames = round(marker.marked_range.duration.value_rescaled_to(rate))
    end = frame + frames - 1 if frames > 1 else None
    text = marker.comment or marker.name
    note = Note(id=foreign_id("otio", frame, end, text), time=frame_time(frame, rate), frame=frame,
                text=text, end_frame=end, tag=tag_for(str(marker.color or "BLUE"), path, messages), created=changed,
                changed=changed)
    return at_rate(note, rate, analysis)


def _plain(value):
    """OTIO's metadata containers as dicts and lists (what the records read)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [_plain(v) for v in value]
    return value
