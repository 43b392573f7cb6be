"""OpenTimelineIO: the video as one clip with a marker at every boundary and keyframe,
so an editor (Resolve, Premiere via an adapter, Avid, ...) can import them."""

from __future__ import annotations

import os
from pathlib import Path

import opentimelineio as otio

from ...records import Analysis, write_atomic

MARKER_COLORS = {"cut": otio.schema.MarkerColor.RED, "gradual": otio.schema.MarkerColor.ORANGE,
                 "event": otio.schema.MarkerColor.BLUE, "keyframe": otio.schema.MarkerColor.GREEN}


def timeline_of(analysis: Analysis) -> otio.schema.Timeline:
    info = analysis.video
    rate = info.fps
    frames = otio.opentime.TimeRange(otio.opentime.RationalTime(0, rate), otio.opentime.RationalTime(info.frame_count, rate))
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
    text = otio.adapters.write_to_string(timeline_of(analysis), "otio_json")
    write_atomic(Path(path), text.encode("utf-8"))
