"""Reading video: probe a file, decode its frames as numpy RGB arrays, make thumbnails.

numpy only here (plus PyAV, decord2 and OpenCV): no Qt, no torch.

    info = probe(path)                       # fast; MediaError if unusable
    with open_video(path) as src:            # decord when it checks out, else PyAV
        for batch in src.iter_batches(size=(224, 126)):
            batch.indices, batch.times, batch.frames
"""

from .files import find_videos
from .probe import VIDEO_EXTENSIONS, VIDEO_FILE_FILTER, probe
from .source import FrameBatch, FrameSource, open_video, scaled_size, short_side_size
from .thumbs import save_thumbnail, thumbnail

__all__ = [
    "VIDEO_EXTENSIONS",
    "VIDEO_FILE_FILTER",
    "FrameBatch",
    "FrameSource",
    "find_videos",
    "open_video",
    "probe",
    "save_thumbnail",
    "scaled_size",
    "short_side_size",
    "thumbnail",
]
