"""Faces: detect faces in frames and embed each into an identity vector; track and cluster.

    engine = registry.create("faces", "blazeface")       # or "dlib-hog", "dlib-cnn"
    faces = engine.detect(frame)                          # [Face(box, score, landmarks)]
    vectors = engine.embed(frame, faces)                  # float32 [n, engine.dim]

Tracking (tracking.py) links faces of consecutive samples into tracks within a shot;
clustering (clustering.py) groups tracks into identities P1, P2, ... over a video or a
set of videos; ids_in_captions.py puts those ids into caption text.
"""

from __future__ import annotations

from .protocol import Face, FaceEngine

__all__ = ["Face", "FaceEngine"]
