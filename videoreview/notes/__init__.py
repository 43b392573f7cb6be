"""A reviewer's notes: time-coded comments, ranges and drawings on frames (records.Note).

``changes``: adding, changing, deleting and merging notes, as pure functions on the
Analysis. ``files``: export to and import from JSON, CSV, subtitles, OTIO, EDL, Final
Cut Pro XML and FCPXML, one module per format. ``author``: the name notes are signed
with. Editors' timecodes are in ``videoreview/smpte.py``; the PDF report draws a note's
drawing with ``summary/export/drawings.py``, the window with ``gui/video/shapes.py``.
"""
