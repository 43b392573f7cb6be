"""OpenTimelineIO: the video as one clip with a marker at every boundary and keyframe,
so an editor (Resolve, Premiere via an adapter, Avid, ...) can import them."""

from __future__ import annotations

import os
from pathlib import Path

from ...records import Analysis, write_atomic

# otio.schema.MarkerColor values; opentimelineio itself is imported only when exporting,
# so the window (whose timeline shares the subtitle rules of this package) starts without it.
MARKER_COLORS = {"cut": "RED", "gradual": "ORANGE", "event": "BLUE", "keyframe": "GREEN"}


def timeline_of(analysis: Analysis):
    """An ``opentimelineio.schema.Timeline``: one clip, a marker per boundary and keyframe."""
    import opentimelineio as otio

    info = analysis.video
    rate = info.fps
    time = otio.opentime.RationalTime
    frames = otio.opentime.TimeRange(time(0, rate), time(info.frame_count, rate))
    media = otio.schema.ExternalReference(target_url=Path(info.path).resolve().as_uri(), available_range=frames)
    clip = otio.schema.Clip(name=Path(info.path).name, media_reference=media, source_range=frames)

    def marker(name: str, frame: int, color: str, comment: str, metadata: dict) -> otio.schema.Marker:
        at = otio.opentime.TimeRange(otio.opentime.RationalTime(frame, rate), otio.opentime.RationalTime(0, rate))
        return otio.schema.Marker(name=name, marked_range=at, color=color, comment=comment,
                                  metadata={"videoreview": metadata})

    for b in sorted(analysis.boundaries, key=lambda b: b.time):
        c = b.caption
        comment = f"{c.subject}: {c.before} → {c.after}" if c else ""
        clip.markers.append(marker(b.kind, b.frame, MARKER_COLORS[b.kind], comment,
                                   {"time": b.time, "confidence": b.confidence, "edited": b.edited}))
    for k in sorted(analysis.keyframes, key=lambda k: k.time):
        clip.markers.append(marker("keyframe", k.frame, MARKER_COLORS["keyframe"], k.reason,
                                   {"time": k.time, "edited": k.edited}))
    track = otio.schema.Track(name="video", kind=otio.schema.TrackKind.Video)
    track.append(clip)
    timeline = otio.schema.Timeline(name=Path(info.path).stem)
    timeline.tracks.append(track)
    return timeline


def write_otio(analysis: Analysis, path: str | os.PathLike) -> None:
    import opentimelineio as otio

    text = otio.adapters.write_to_string(timeline_of(analysis), "otio_json")
    write_atomic(Path(path), text.encode("utf-8"))
