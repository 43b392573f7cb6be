"""The timeline's tracks, top to bottom. Each track paints its row, says what is under a
click and what its tooltip reads, and paints its name in the header column (base.py's
``Track``). A new track is a class in the module of its family and one line in TRACKS.

A track paints only the time range it is given (the damaged part of the view plus its
``margin_px``), slicing the index's sorted arrays with searchsorted; where more items
than pixels are in view it draws one mark per pixel column instead of one per item.
"""

from .base import KEY_THUMB_H, RULER_H, THUMBNAIL_H, Hit, Track
from .blocks import CaptionTrack, ScreenTextTrack, SpeechTrack
from .identities import IdentityTrack
from .markers import BoundaryTrack, KeyframeTrack
from .notes import NotesTrack
from .objects import ObjectsTrack
from .people import PeopleTrack
from .ruler import RulerTrack, ruler_steps
from .strip import ThumbnailTrack

# Top to bottom. A new track: its class in its family's module, and one line here.
TRACKS: list[type[Track]] = [RulerTrack, ThumbnailTrack, NotesTrack, BoundaryTrack, CaptionTrack, SpeechTrack,
                             ScreenTextTrack, ObjectsTrack, PeopleTrack, IdentityTrack, KeyframeTrack]

__all__ = ["KEY_THUMB_H", "RULER_H", "THUMBNAIL_H", "TRACKS", "Hit", "Track", "ruler_steps"]
