"""The builtin face engine: dlib's detectors and its 128-d ResNet face descriptor.

Weights come from the ``face-recognition-models`` package (CC0): the CNN (MMOD) face
detector, the 5-point landmark model for alignment and the ResNet descriptor. The
package's 68-point model is never used (its training data forbids commercial use), and
the package is never imported (its __init__ needs pkg_resources): its files are located.

Three detectors, as settings: "blazeface" (MediaPipe's BlazeFace full-range on LiteRT,
blazeface.py: ~6 ms a frame, smaller and turned faces too; the default), "hog" (dlib's
HOG + linear SVM, ~95 ms a 640x360 frame, frontal faces) and "cnn" (dlib's MMOD CNN, finds
turned and smaller faces, far slower on a CPU). Whatever finds the face, dlib's 5-point
model places the landmarks that align it for the descriptor.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ...paths import package_dir
from ..loading import loads_once
from .protocol import Face

_MODEL_FILES = {
    "landmarks": "shape_predictor_5_face_landmarks.dat",
    "descriptor": "dlib_face_recognition_resnet_model_v1.dat",
    "cnn": "mmod_human_face_detector.dat",
}


def model_path(kind: str) -> Path:
    """Where the installed ``face-recognition-models`` package keeps a model file."""
    folder = package_dir("face_recognition_models")
    if folder is None:
        raise RuntimeError("the face-recognition-models package is not installed (pip install face-recognition-models)")
    path = folder / "models" / _MODEL_FILES[kind]
    if not path.is_file():
        raise RuntimeError(f"{path}: model file missing from face-recognition-models; reinstall it")
    return path


class DlibFaceEngine:
    dim = 128
    same_person = 0.6  # dlib's guidance for two faces (99.38% on LFW at this threshold)
    # Track means are steadier than single faces, and people of one film look more alike
    # than LFW pairs: in the Megamind clip (opencv-doc) the two characters' tracks are
    # 0.56-0.63 apart (their average 0.59 merges them at 0.6), one person's 0.27-0.35.
    cluster_distance = 0.5
    # Bump when anything that changes the output changes: it is part of the cache key.
    version = "1"

    def __init__(self, detector: str = "hog", upsample: int = 1, device: str = "cpu"):
        import dlib

        from ..placement import cpu_only

        if detector not in ("blazeface", "hog", "cnn"):
            raise ValueError(f"detector must be 'blazeface', 'hog' or 'cnn', not {detector!r}")
        self.name = "blazeface" if detector == "blazeface" else f"dlib-{detector}"
        self.detector = detector
        self.upsample = upsample
        self._dlib = dlib
        place = cpu_only(device, "BlazeFace on LiteRT and dlib's face descriptor have CPU builds only")
        self.device, self.device_note = place.device, place.note
        self._hog = self._cnn = self._blazeface = self._landmarks = self._descriptor = None

    def release(self) -> None:
        self._hog = self._cnn = self._blazeface = self._landmarks = self._descriptor = None

    def load(self) -> None:
        """Load the models now, not at the first frame (pipeline/warm.py)."""
        self._load()

    @loads_once  # the background load and the first frame may ask at once
    def _load(self) -> None:
        """The models, on first use: never when the faces come from the cache."""
        if self._landmarks is not None:
            return
        dlib = self._dlib
        self._hog = dlib.get_frontal_face_detector() if self.detector == "hog" else None
        self._cnn = dlib.cnn_face_detection_model_v1(str(model_path("cnn"))) if self.detector == "cnn" else None
        if self.detector == "blazeface":
            from .blazeface import BlazeFace

            self._blazeface = BlazeFace()
        self._landmarks = dlib.shape_predictor(str(model_path("landmarks")))
        self._descriptor = dlib.face_recognition_model_v1(str(model_path("descriptor")))

    def detect(self, frame: np.ndarray) -> list[Face]:
        self._load()
        frame = np.ascontiguousarray(frame)
        if self._blazeface is not None:
            found = [(self._dlib.rectangle(int(round(x)), int(round(y)), int(round(x + w)) - 1, int(round(y + h)) - 1),
                      score) for (x, y, w, h), score, _ in self._blazeface.detect(frame)]
        elif self._hog is not None:
            rects, scores, _ = self._hog.run(frame, self.upsample, 0.0)
            found = list(zip(rects, scores))
        else:
            found = [(d.rect, d.confidence) for d in self._cnn(frame, self.upsample)]
        h, w = frame.shape[:2]
        faces = []
        for rect, score in sorted(found, key=lambda rs: -rs[1]):
            x0, y0 = max(0, rect.left()), max(0, rect.top())
            x1, y1 = min(w, rect.right() + 1), min(h, rect.bottom() + 1)
            if x1 - x0 < 4 or y1 - y0 < 4:
                continue
            shape = self._landmarks(frame, rect)
            points = np.array([(p.x, p.y) for p in shape.parts()], np.float32)
            faces.append(Face((float(x0), float(y0), float(x1 - x0), float(y1 - y0)), float(score), points))
        return faces

    def _shapes(self, frame: np.ndarray, faces: Sequence[Face]):
        self._load()
        dlib = self._dlib
        shapes = dlib.full_object_detections()
        for face in faces:
            x, y, w, h = face.box
            rect = dlib.rectangle(int(round(x)), int(round(y)), int(round(x + w)) - 1, int(round(y + h)) - 1)
            if face.landmarks is None:
                shapes.append(self._landmarks(frame, rect))
            else:
                points = dlib.points([dlib.point(int(round(px)), int(round(py))) for px, py in face.landmarks])
                shapes.append(dlib.full_object_detection(rect, points))
        return shapes

    def embed(self, frame: np.ndarray, faces: Sequence[Face]) -> np.ndarray:
        if not faces:
            return np.zeros((0, self.dim), np.float32)
        frame = np.ascontiguousarray(frame)
        vectors = self._descriptor.compute_face_descriptor(frame, self._shapes(frame, faces))
        return np.array([np.asarray(v) for v in vectors], np.float32)

    def crops(self, frame: np.ndarray, faces: Sequence[Face], size: int = 150) -> list[np.ndarray]:
        if not faces:
            return []
        frame = np.ascontiguousarray(frame)
        return [np.asarray(c) for c in self._dlib.get_face_chips(frame, self._shapes(frame, faces), size=size)]
