"""The PDF report's pictures: keyframes, face crops and notes' frames with their drawings,
decoded in one pass per reader and encoded once as JPEG."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ...records import Analysis, FaceDetection, Note, Summary

PICTURE_PX = 480  # long side of a decoded frame: about 200 dpi at three pictures across A4
FACE_PX = 160  # face crops smaller than this are enlarged once, smoothly, rather than by the viewer
FACE_MARGIN = 0.4  # of the face box's size, around it
JPEG_QUALITY = 85
MAX_DECODERS = 4  # readers decoding pictures at once (no more than the cores)
PICTURES_PER_DECODER = 8  # fewer pictures than this per reader: not worth opening another


@dataclass
class Pictures:
    """JPEG bytes by frame index (keyframes, notes' frames without a drawing), by identity
    id (face crops) and by note id (a note's frame with its drawing on it)."""

    frames: dict[int, bytes] = field(default_factory=dict)
    faces: dict[str, bytes] = field(default_factory=dict)
    drawn: dict[str, bytes] = field(default_factory=dict)


def decode_pictures(analysis: Analysis, summary: Summary | None,
                     video_path: str | os.PathLike) -> tuple[Pictures, str | None]:
    """Every picture the report shows, decoded in one pass per reader (see _decode); a problem
    leaves the pictures out (the report is written with placeholders) and is returned."""
    from ...media import open_video, scaled_size

    exemplars = {i.id: i.exemplar for i in analysis.identities if i.exemplar is not None}
    frames = {k.frame for k in analysis.keyframes} | set(summary.keyframe_frames if summary else ())
    # A note without a drawing shows its frame as it is: the same picture as a keyframe there.
    plain_notes = {n.frame for n in analysis.notes if not n.drawing}
    try:
        with open_video(video_path, backend="pyav") as source:
            info = source.info
        wanted = sorted(f for f in frames | {n.frame for n in analysis.notes} | {e.frame for e in exemplars.values()}
                        if 0 <= f < info.frame_count)
        size = scaled_size(info.width, info.height, PICTURE_PX)
        decoded = _decode(video_path, wanted, size)
        scale = size[0] / info.width
        pictures = Pictures({f: _jpeg(decoded[f]) for f in frames | plain_notes if f in decoded},
                            {pid: _jpeg(_face_crop(decoded[e.frame], e, scale))
                             for pid, e in exemplars.items() if e.frame in decoded},
                            {n.id: _jpeg(_with_drawing(decoded[n.frame], n)) for n in analysis.notes
                             if n.drawing and n.frame in decoded})
    except Exception as exc:  # any decoder or file trouble: the report goes out without pictures
        return Pictures(), f"no pictures: could not read frames from {os.fspath(video_path)} ({exc})"
    problems = []
    for count, what in ((len(frames - pictures.frames.keys()), "keyframe(s)"),
                        (sum(n.frame not in decoded for n in analysis.notes), "note(s)")):
        if count:
            problems.append(f"{count} {what} lie beyond the end of {os.fspath(video_path)}: shown without a picture")
    return pictures, "; ".join(problems) or None


def _decode(video_path: str | os.PathLike, wanted: list[int], size: tuple[int, int]) -> dict[int, np.ndarray]:
    """Frames by index. Decoding dominates the export (H.264 decodes on one core unless
    the file has slices), so runs of the sorted frames are decoded by their own readers on
    threads (PyAV lets go of the GIL while it decodes): 100 pictures of a 3-minute 720p
    clip, 5.4 s on one reader, 2.6 s on two here."""
    from concurrent.futures import ThreadPoolExecutor

    from ...media import open_video

    def read(run: list[int]) -> dict[int, np.ndarray]:
        with open_video(video_path, backend="pyav") as source:
            return dict(zip(run, source.frames_at_indices(run, size=size).frames))

    workers = max(1, min(os.cpu_count() or 1, MAX_DECODERS, len(wanted) // PICTURES_PER_DECODER))
    runs = [list(run) for run in np.array_split(np.array(wanted, dtype=np.int64), workers) if len(run)]
    if len(runs) <= 1:
        return read(wanted) if wanted else {}
    decoded: dict[int, np.ndarray] = {}
    with ThreadPoolExecutor(len(runs), thread_name_prefix="pdf-pictures") as pool:
        for part in pool.map(read, runs):
            decoded.update(part)
    return decoded


def _with_drawing(picture: np.ndarray, note: Note) -> np.ndarray:
    """The frame with the note's drawing on it (Pillow, which fpdf2 brings)."""
    from PIL import Image

    from .drawings import draw_shapes

    image = Image.fromarray(picture)
    draw_shapes(image, note.drawing)
    return np.asarray(image)


def _face_crop(picture: np.ndarray, face: FaceDetection, scale: float) -> np.ndarray:
    """A square around the face box with a margin, inside the picture, at least FACE_PX."""
    import cv2

    x, y, w, h = (v * scale for v in face.box)
    height, width = picture.shape[:2]
    side = min(max(2.0, max(w, h) * (1 + 2 * FACE_MARGIN)), width, height)
    left = int(min(max(0.0, x + w / 2 - side / 2), width - side))
    top = int(min(max(0.0, y + h / 2 - side / 2), height - side))
    crop = picture[top:top + int(side), left:left + int(side)]
    if crop.shape[0] < FACE_PX:
        crop = cv2.resize(crop, (FACE_PX, FACE_PX), interpolation=cv2.INTER_CUBIC)
    return crop


def _jpeg(rgb: np.ndarray) -> bytes:
    import cv2

    ok, data = cv2.imencode(".jpg", np.ascontiguousarray(rgb[..., ::-1]), [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise ValueError("could not encode a picture as JPEG")
    return data.tobytes()
