"""The library panel: search every analysed video by text, the library's videos, the
reviewers' open notes in all of them, and the analysis queue that fills it.

Searching, cataloguing and indexing happen in the library process (see
work/library_client.py); analysing stays with the window's analysis queue, so a folder added
here and a video dropped on the window share one queue.

panel.py lays the parts out and is what the window talks to; search.py is the query and
the Results tab, videos.py the Videos tab, open_notes.py the Open notes tab,
queue_status.py the queue under them, cataloguing.py the requests that add to the library
and index it, pictures.py the stills' size and keys.
"""

from .panel import LibraryPanel

__all__ = ["LibraryPanel"]
