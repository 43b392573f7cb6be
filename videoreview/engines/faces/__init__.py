"""Faces: detect faces in frames and embed each into an identity vector; track and cluster.

    engine = registry.create("faces", "blazeface")       # or "dlib-hog", "dlib-cnn"
    faces = engine.detect(frame)                          # [Face(box, score, landmarks)]
    vectors = engine.embed(frame, faces)                  # float32 [n, engine.dim]

Tracking (tracking.py) links faces of consecutive samples into tracks within a shot;
clustering (clustering.py) groups tracks into identities P1, P2, ... over a video or a
set of videos; fitb.py puts those ids into caption text.
"""

from __future__ import annotations

from .protocol import Face, FaceEngine

__all__ = ["Face", "FaceEngine", "cluster_distance"]


def cluster_distance(engine: str) -> float:
    """The clustering distance of a face engine given as "name" or "name@version" (as
    Analysis.engines records it), without loading its models."""
    name = engine.split("@", 1)[0]
    if name.startswith("dlib-") or name in ("blazeface", ""):
        from .dlib_faces import DlibFaceEngine

        return DlibFaceEngine.cluster_distance
    raise KeyError(f"unknown face engine {name!r}")
