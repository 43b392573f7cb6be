"""An engine around one builtin ONNX model of the catalog: loaded on first use (its file
checked against the catalog's sha256), on the device ONNX Runtime can give it."""

from __future__ import annotations

from .loading import loads_once
from .placement import Placed


class BuiltinOnnx(Placed):
    model = ""  # the catalog name of the model, set by each engine
    revision = 1  # of this wrapper's own code (its version is this and the weights' sha256)

    def __init__(self, device: str = "cpu", min_score: float = 0.0) -> None:
        from ..models.catalog import load_catalog

        self.asked = device
        self.min_score = min_score
        self._entry = load_catalog()[self.model]
        self.version = f"{self.revision}-{self._entry.sha256[:12]}"
        self._session = None

    def load(self) -> None:
        """Load the model now, not at the first frame (pipeline/warm.py)."""
        self._load()

    @loads_once  # the background load and the first frame may ask at once
    def _load(self):
        if self._session is None:
            from ..models.catalog import builtin_parts, builtin_weights
            from .onnx_export import session
            from .placement import onnx_placement

            builtin_weights(self._entry)  # checks the file against the catalog's sha256
            self.place = onnx_placement(self.asked)
            self._session = session(builtin_parts(self._entry)[0], self.place.device)
        return self._session

    def release(self) -> None:
        self._session = None
