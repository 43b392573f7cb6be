"""A reviewer's notes: time-coded comments, ranges and drawings on frames (records.Note).

``changes``: adding, changing, deleting and merging notes, as pure functions on the
Analysis. ``files``: export to and import from JSON, CSV, subtitles, OTIO, EDL, Final
Cut Pro XML and FCPXML, one module per format. ``drawing``: a note's drawing rendered
on its frame (for the PDF report). ``author``: the name notes are signed with.
"""
