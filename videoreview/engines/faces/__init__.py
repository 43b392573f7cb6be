"""Faces: detect faces in frames and embed each into an identity vector; track and cluster.

    engine = base.create("faces", "dlib-hog")            # or "dlib-cnn"
    faces = engine.detect(frame)                          # [Face(box, score, landmarks)]
    vectors = engine.embed(frame, faces)                  # float32 [n, engine.dim]

Tracking (tracking.py) links faces of consecutive samples into tracks within a shot;
clustering (clustering.py) groups tracks into identities P1, P2, ... over a video or a
set of videos; fitb.py puts those ids into caption text.
"""

from __future__ import annotations

from .. import base
from .protocol import Face, FaceEngine

CAPABILITY = "faces"

__all__ = ["CAPABILITY", "Face", "FaceEngine", "register_builtin", "cluster_distance"]


def _dlib(detector: str):
    def make():
        from .dlib_faces import DlibFaceEngine  # dlib loads only when an engine is made

        return DlibFaceEngine(detector=detector)

    return make


def cluster_distance(engine: str) -> float:
    """The clustering distance of a face engine given as "name" or "name@version" (as
    Analysis.engines records it), without loading its models."""
    name = engine.split("@", 1)[0]
    if name.startswith("dlib-") or not name:
        from .dlib_faces import DlibFaceEngine

        return DlibFaceEngine.cluster_distance
    raise KeyError(f"unknown face engine {name!r}")


def register_builtin() -> None:
    base.register(CAPABILITY, "dlib-hog", _dlib("hog"))
    base.register(CAPABILITY, "dlib-cnn", _dlib("cnn"))
