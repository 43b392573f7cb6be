"""Event boundaries: hard cuts, gradual transitions, and generic events (Kinetic-GEB+).

An engine has ``name``, ``version``, ``device`` and
``detect(source: FrameSource, progress, cancel) -> list[Boundary]``.
"""
