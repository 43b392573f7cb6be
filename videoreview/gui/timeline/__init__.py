"""The timeline: a time ruler, a thumbnail strip, boundaries, captions, one lane per
identity and keyframes of one Analysis, stacked like the tracks of a video editor.

model.py holds the Analysis as sorted arrays (no Qt), tracks.py the tracks (one class
each, listed in TRACKS), view.py the widget that zooms, scrolls, paints and takes clicks.
"""

from .model import neighbour_time, ruler_steps
from .view import MAX_PX_PER_FRAME, Timeline

__all__ = ["MAX_PX_PER_FRAME", "Timeline", "neighbour_time", "ruler_steps"]
