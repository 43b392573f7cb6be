"""The timeline: a time ruler, a thumbnail strip, notes, boundaries, captions, speech,
on-screen text, the objects found, one lane per identity and keyframes of one Analysis,
stacked like the tracks of a video editor.

The Analysis comes as sorted arrays (gui/analysis_index.py, shared with the video view);
tracks/ holds the tracks (one class each; ``tracks()`` lists them, a capability's from its
view in gui/capabilities/), view.py the widget that zooms, scrolls and takes clicks,
painting.py what one paint draws.
"""

from .tracks import ruler_steps
from .view import MAX_PX_PER_FRAME, Timeline

__all__ = ["MAX_PX_PER_FRAME", "Timeline", "ruler_steps"]
