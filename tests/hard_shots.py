"""Hard shots for a shot-boundary detector: clips made from real photographs, filmed by a virtual camera.

Two kinds, each with its ground truth in a :class:`videos.SyntheticVideo`:

* one continuous shot in which something changes fast and must NOT be taken for a cut:
  a burst of bubbles under water (:func:`make_bubbles`, and :func:`make_bubbles_late`, the
  reported case: an MJPEG AVI whose last half second fills with bubbles), smoke that covers
  the picture (:func:`make_smoke`), camera flashes (:func:`make_flash`), a head passing
  right in front of the lens (:func:`make_close_pass`), a whip pan (:func:`make_whip_pan`).
  ``cut_frames`` and ``gradual`` are empty; ``events`` names the moments that are hard.
* transitions a detector must find: cuts between two cameras filming one scene, so colours
  barely change (:func:`make_two_cameras`), slow dissolves (:func:`make_slow_dissolves`),
  cuts between shots that both move fast (:func:`make_cut_in_motion`).

The photographs are scikit-image's and matplotlib's sample data (:func:`caption_set.photo`).
The camera (:func:`camera`) pans and zooms slowly and shakes a little by hand, with motion
blur from where it moves during the shutter time (:class:`Lens`); the sensor
(:class:`Sensor`) adds vignetting and noise. Everything is drawn at the target size with
numpy and OpenCV and encoded with PyAV (:func:`videos.encode_frames`): the whole set
(:data:`HARD_SHOTS`) is made in a few seconds.

Usable from any test or benchmark (``tests/`` on ``sys.path``)::

    from hard_shots import HARD_SHOTS
    for name, make in HARD_SHOTS.items():
        video = make(folder)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import cv2
import numpy as np

import videos
from caption_set import photo

__all__ = [
    "SIZE",
    "FPS",
    "camera",
    "Lens",
    "Sensor",
    "make_bubbles",
    "make_bubbles_late",
    "make_smoke",
    "make_flash",
    "make_close_pass",
    "make_whip_pan",
    "make_two_cameras",
    "make_slow_dissolves",
    "make_cut_in_motion",
    "HARD_SHOTS",
    "MOTION_CLIPS",
    "CUT_CLIPS",
]

SIZE, FPS = (640, 360), 25.0
Size = tuple[int, int]


# ----------------------------------------------------------------------------- camera


def _smooth(rng: np.random.Generator, n: int, sigma: float) -> np.ndarray:
    """``n`` samples of smooth random noise with unit standard deviation: white noise
    blurred over ``sigma`` frames."""
    pad = int(4 * sigma) + 1
    x = rng.normal(size=n + 2 * pad)
    t = np.arange(-pad, pad + 1)
    kernel = np.exp(-0.5 * (t / max(sigma, 1e-3)) ** 2)
    y = np.convolve(x, kernel / kernel.sum(), mode="same")[pad:pad + n]
    return (y - y.mean()) / (y.std() + 1e-9)


def _ease(u: np.ndarray) -> np.ndarray:
    u = np.clip(u, 0.0, 1.0)
    return u * u * (3 - 2 * u)


def _keyed(n: int, keys: Sequence[Sequence[float]]) -> np.ndarray:
    """Per-frame values from keys ``(fraction of the shot, value, ...)``: eased from each
    key to the next, held before the first and after the last."""
    at = np.array([k[0] for k in keys], float) * max(n - 1, 1)
    values = np.array([k[1:] for k in keys], float)
    if len(keys) == 1:
        return np.repeat(values, n, axis=0)
    i = np.arange(n)
    seg = np.clip(np.searchsorted(at, i, side="right") - 1, 0, len(at) - 2)
    u = _ease((i - at[seg]) / np.maximum(at[seg + 1] - at[seg], 1e-9))
    return values[seg] + (values[seg + 1] - values[seg]) * u[:, None]


def camera(shape: Sequence[int], n: int, keys: Sequence[Sequence[float]], *, size: Size = SIZE, seed: int = 0,
           sway: float = 0.005, sway_frames: float = 12.0, jitter: float = 0.0012, roll: float = 0.3) -> np.ndarray:
    """Where a hand-held camera looks in a photo of ``shape``, frame by frame: an array
    (n, 4) of window centre x, centre y, window width (photo pixels) and roll (degrees).

    ``keys``: ``(fraction of the shot, scale, fx, fy)``; ``scale`` is the window's width as
    a fraction of the widest window of the output's aspect that fits the photo, ``fx``/``fy``
    where it sits in the photo (0 left/top, 1 right/bottom). Between keys the camera eases.
    The hand adds ``sway`` (fraction of the width, over about ``sway_frames`` frames),
    ``jitter`` (frame to frame) and ``roll`` (degrees)."""
    h, w = shape[:2]
    aspect = size[0] / size[1]
    full = min(w, h * aspect)
    v = _keyed(n, keys)
    ww = full * v[:, 0]
    hh = ww / aspect
    cx = ww / 2 + (w - ww) * v[:, 1]
    cy = hh / 2 + (h - hh) * v[:, 2]
    rng = np.random.default_rng(seed)
    dx = _smooth(rng, n, sway_frames) * sway + _smooth(rng, n, 1.2) * jitter
    dy = _smooth(rng, n, sway_frames) * sway * 0.8 + _smooth(rng, n, 1.2) * jitter
    turn = _smooth(rng, n, sway_frames * 1.5) * roll
    return np.column_stack([cx + dx * ww, cy + dy * ww, ww, turn])


class Lens:
    """Films a photo along a camera path (:func:`camera`). Each frame is the average of
    views at instants spread over the shutter time (``shutter``, a fraction of the frame
    time), so a camera that moves fast blurs along its motion."""

    def __init__(self, image: np.ndarray, path: np.ndarray, size: Size = SIZE, shutter: float = 0.5):
        # A window wider than the output would alias: shrink the photo once instead.
        f = min(1.0, 1.25 * size[0] / float(path[:, 2].max()))
        if f < 1.0:
            image = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
            path = path * np.array([f, f, f, 1.0])
        self.image, self.path, self.size, self.shutter = image, path, size, shutter

    def __len__(self) -> int:
        return len(self.path)

    def _view(self, p: np.ndarray) -> np.ndarray:
        w, h = self.size
        s = w / p[2]
        a = np.deg2rad(p[3])
        c, si = np.cos(a) * s, np.sin(a) * s
        m = np.array([[c, -si, w / 2 - (c * p[0] - si * p[1])], [si, c, h / 2 - (si * p[0] + c * p[1])]], np.float32)
        return cv2.warpAffine(self.image, m, self.size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT101)

    def velocity(self, k: int) -> np.ndarray:
        """How the window moves per frame around frame ``k``: d(cx, cy, width, roll)."""
        a, b = max(k - 1, 0), min(k + 1, len(self.path) - 1)
        return (self.path[b] - self.path[a]) / max(1, b - a)

    def frame(self, k: int) -> np.ndarray:
        """Frame ``k`` as float32 RGB (0..255), motion-blurred."""
        p, d = self.path[k], self.velocity(k)
        scale = self.size[0] / p[2]
        # How far the picture's content moves during the shutter, in output pixels.
        shift = np.array([d[0], d[1]]) * scale
        streak = (np.hypot(*shift) + abs(d[2]) * scale / 2 + abs(np.deg2rad(d[3])) * self.size[0] / 2) * self.shutter
        samples = int(np.clip(np.ceil(streak / 2), 1, 16))
        if samples == 1:
            return self._view(p).astype(np.float32)
        acc = np.zeros((self.size[1], self.size[0], 3), np.float32)
        for u in np.linspace(-0.5, 0.5, samples) * self.shutter:
            acc += self._view(p + d * u)
        acc *= 1.0 / samples
        step = streak / samples
        if step > 2.5:  # fill the gaps between the samples along the motion
            k_len = int(round(step)) | 1
            acc = cv2.blur(acc, (k_len, 1) if abs(shift[0]) >= abs(shift[1]) else (1, k_len))
        return acc


class Sensor:
    """Turns a clean float frame into what a small camera records: vignetting and noise
    (luma and some chroma, a little correlated between neighbour pixels as demosaicing
    leaves it), clipped to 8 bits."""

    def __init__(self, size: Size = SIZE, seed: int = 0, noise: float = 2.2, vignette: float = 0.25, bank: int = 7):
        w, h = size
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((x - w / 2) ** 2 + (y - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        self.vignette = (1 - vignette * r2 ** 1.4)[..., None].astype(np.float32)
        rng = np.random.default_rng(seed)
        self.noise = []
        for _ in range(bank):
            grain = rng.normal(0, 1, (h, w, 1)) + rng.normal(0, 0.5, (h, w, 3))
            grain = cv2.GaussianBlur(grain.astype(np.float32), (0, 0), 0.6)
            self.noise.append(grain * np.float32(noise / (grain.std() + 1e-9)))

    def __call__(self, frame: np.ndarray, k: int) -> np.ndarray:
        """Frame ``k`` as recorded (uint8); ``frame`` (float32) is used up."""
        out = frame
        out *= self.vignette
        out += self.noise[(k * 3) % len(self.noise)]
        np.clip(out, 0, 255, out=out)
        return out.astype(np.uint8)


def _encode(path: Path, frames: Iterable[np.ndarray], fps: float, codec: str) -> str:
    """Encode with the project's helper; the codec's name as probes report it."""
    if codec == "mjpeg":  # as cameras write it: every frame a JPEG, full-range YUV, good quality
        videos.encode_frames(path, frames, fps, codec="mjpeg", pix_fmt="yuvj420p", options={"b": "12M"}, gop=1)
    else:
        options = {"crf": "20", "preset": "veryfast"} if codec == "libx264" else {}
        videos.encode_frames(path, frames, fps, codec=codec, options=options, gop=50)
    return {"libx264": "h264", "libx265": "hevc", "libvpx-vp9": "vp9"}.get(codec, codec)


def _video(path: Path, fps: float, n: int, size: Size, codec: str, *, cut_frames: Sequence[int] = (),
           gradual: Sequence[tuple[float, float]] = (),
           events: dict[str, float] | None = None) -> videos.SyntheticVideo:
    return videos.SyntheticVideo(path, float(fps), n, tuple(size), np.arange(n) / fps,
                                 cut_frames=tuple(int(c) for c in cut_frames),
                                 gradual=tuple((float(a), float(b)) for a, b in gradual),
                                 events={k: round(float(v), 6) for k, v in (events or {}).items()}, codec=codec)


def _frames(n: int, draw: Callable[[int], np.ndarray], sensor: Sensor):
    for k in range(n):
        yield sensor(draw(k), k)


# ---------------------------------------------------------------------------- bubbles


def _underwater(image: np.ndarray) -> np.ndarray:
    """A photo as if under a few metres of water: red absorbed, blue-green haze, softer."""
    f = image.astype(np.float32)
    lum = f @ np.float32([0.3, 0.59, 0.11])
    out = f * np.float32([0.2, 0.6, 0.7]) + lum[..., None] * np.float32([0.04, 0.16, 0.18])
    out = out * 0.78 + np.float32([6, 58, 74])
    out = cv2.GaussianBlur(out, (0, 0), 0.9)
    return np.clip(out, 0, 255).astype(np.uint8)


class _Water:
    """Light from the surface: brighter at the top, with caustics that ripple."""

    def __init__(self, size: Size, fps: float):
        w, h = size
        self.size, self.fps = size, fps
        sw, sh = 128, max(8, round(128 * h / w))
        y, x = np.mgrid[0:sh, 0:sw].astype(np.float32) / sw * 9
        self.x, self.y = x, y
        self.depth = (1.12 - 0.32 * np.linspace(0, 1, h, dtype=np.float32) ** 0.8)[:, None, None]
        self.fade = cv2.resize((1 - np.linspace(0, 1, sh, dtype=np.float32))[:, None].repeat(sw, 1) ** 1.5,
                               size, interpolation=cv2.INTER_LINEAR)

    def __call__(self, frame: np.ndarray, k: int) -> np.ndarray:
        t = k / self.fps
        v = (np.sin(self.x * 1.3 + self.y * 0.4 + t * 1.1) + np.sin(self.x * -0.5 + self.y * 1.4 + t * 0.8 + 1.7)
             + np.sin(self.x * 0.9 - self.y * 1.1 + t * 1.4 + 3.1))
        net = cv2.GaussianBlur((1 - np.abs(np.sin(v * 1.2))) ** 3, (0, 0), 0.8)
        light = cv2.resize(net, self.size, interpolation=cv2.INTER_CUBIC) * self.fade
        frame *= self.depth
        frame += (light * 22)[..., None] * np.float32([0.6, 1.0, 1.0])
        return frame


class _Bubbles:
    """A particle system of rising bubbles: a trickle, then from ``start`` a burst that within
    ``rise`` seconds spreads over most of the frame and keeps churning."""

    def __init__(self, size: Size, fps: float, start: float, rise: float = 0.5, seed: int = 0):
        self.w, self.h = size
        self.fps, self.start, self.rise = fps, start, rise
        self.s = self.h / 360  # sizes and speeds were tuned at 360 lines
        self.per = 25.0 / fps  # per-frame motion was tuned at 25 fps
        self.rng = np.random.default_rng(seed)
        self.x, self.y, self.r, self.vy, self.ph, self.age, self.rim = (np.empty(0) for _ in range(7))
        self.source = 0.55 * self.w
        self._sprites: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def _spawn(self, count: int, burst: float) -> None:
        if count <= 0:
            return
        rng, w, h, s = self.rng, self.w, self.h, self.s
        if burst <= 0:  # a diver's breath: small bubbles from one point below the frame
            x = rng.normal(0.3 * w, 0.03 * w, count)
            y = h + rng.uniform(0, 10 * s, count)
            r = np.clip(rng.lognormal(np.log(3.5 * s), 0.45, count), 1.5, 10 * s)
        else:
            spread = w * (0.15 + 0.45 * burst)
            x = np.where(rng.random(count) < 0.75, rng.normal(self.source, spread, count),
                         rng.uniform(-0.05 * w, 1.05 * w, count))
            below = rng.random(count) < 0.4
            y = np.where(below, h + rng.uniform(0, 40 * s, count), rng.uniform((0.6 - 0.5 * burst) * h, h, count))
            r = np.clip(rng.lognormal(np.log((5 + 12 * burst) * s), 0.7, count), 1.2, 80 * s)
        self.x = np.concatenate([self.x, x])
        self.y = np.concatenate([self.y, y])
        self.r = np.concatenate([self.r, r])
        self.vy = np.concatenate([self.vy, -(3 * s + 1.1 * r) * rng.uniform(0.8, 1.25, count)])
        self.ph = np.concatenate([self.ph, rng.uniform(0, 2 * np.pi, count)])
        self.age = np.concatenate([self.age, np.zeros(count)])
        self.rim = np.concatenate([self.rim, rng.uniform(0.55, 1.0, count)])

    def step(self, k: int) -> None:
        t = k / self.fps
        burst = 0.0 if t < self.start else min(1.0, (t - self.start + 1 / self.fps) / self.rise)
        if burst <= 0:
            rate = 0.5 if (k // 12) % 3 == 0 else 0.0  # breaths
        else:
            rate = (10 + 40 * burst) * (0.85 + 0.15 * np.sin(2 * np.pi * 1.3 * (t - self.start)))
        self._spawn(int(self.rng.poisson(rate * self.per)), burst)
        if not len(self.x):
            return
        per, s = self.per, self.s
        churn = 2.5 * s * np.sin(self.y / (30 * s) + self.ph + 4 * t) + (self.x - self.source) / self.w * 5 * s
        self.x += churn * per
        self.y += self.vy * per
        self.r *= 1 + 0.006 * per  # less pressure higher up
        self.age += 1
        keep = (self.y + self.r > -4) & (self.x + self.r > -40) & (self.x - self.r < self.w + 40)
        for name in ("x", "y", "r", "vy", "ph", "age", "rim"):
            setattr(self, name, getattr(self, name)[keep])

    # Bubble pictures by size (radii 1.08 apart), wobble (3 shapes) and rim (bright, dim).
    RADII = 1.2 * 1.08 ** np.arange(60)

    def _sprite(self, size: int, shape: int) -> tuple[np.ndarray, np.ndarray]:
        """(light, dark) uint8 patches of one bubble centred in them: a faint body, a bright
        rim, a dark band inside it where the light bends away, a highlight top left."""
        key = (size, shape)
        if key not in self._sprites:
            r = float(self.RADII[size])
            half = int(np.ceil(r * 1.3)) + 2
            light = np.zeros((2 * half + 1, 2 * half + 1), np.uint8)
            dark = np.zeros_like(light)
            sh, one = 8, 256  # subpixel bits for cv2's drawing
            c = (half * one, half * one)
            if r < 2.5:
                cv2.circle(light, c, int(r * one), 150 if shape < 3 else 100, -1, cv2.LINE_AA, sh)
            else:
                wob = (-0.13, 0.0, 0.13)[shape % 3] if r > 5 else 0.0
                ax, ay = r * (1.1 + wob), r * (0.9 - wob)
                ang = (-15.0, 10.0, 25.0)[shape % 3]
                axes = (int(ax * one), int(ay * one))
                if r > 4:
                    cv2.ellipse(light, c, axes, ang, 0, 360, 30, -1, cv2.LINE_AA, sh)
                if r > 6:
                    inner = (int(ax * 0.8 * one), int(ay * 0.8 * one))
                    cv2.ellipse(dark, c, inner, ang, 0, 360, 110, max(1, int(r * 0.16)), cv2.LINE_AA, sh)
                rim = 215 if shape < 3 else 135
                cv2.ellipse(light, c, axes, ang, 0, 360, rim, max(1, int(r * 0.07)), cv2.LINE_AA, sh)
                hl = (int((half - 0.4 * ax) * one), int((half - 0.42 * ay) * one))
                cv2.ellipse(light, hl, (int(0.22 * ax * one), int(0.13 * ay * one)), ang - 35, 0, 360, 245, -1,
                            cv2.LINE_AA, sh)
            self._sprites[key] = (light, dark)
        return self._sprites[key]

    def layers(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(light, shadow), float32 0..1: how much each pixel turns to the bubbles' silvery
        white, and how much it darkens (the band inside each rim that bends the light away).
        Bubbles are see-through: where they overlap, each rim shows (the brighter wins)."""
        w, h = self.w, self.h
        maps = {key: np.zeros((h, w), np.uint8) for key in ("far", "near", "far_dark", "near_dark")}
        t = k / self.fps
        sizes = np.clip(np.round(np.log(np.maximum(self.r, 1.2) / 1.2) / np.log(1.08)), 0, len(self.RADII) - 1)
        wobble = np.floor((self.ph + 9 * t) / (2 * np.pi) * 3).astype(int) % 3
        shapes = wobble + 3 * (self.rim < 0.75)
        fades = np.minimum(1.0, (self.age + 1) / 3)
        near_r = 16 * self.s
        for x, y, r, size, shape, fade in zip(self.x, self.y, self.r, sizes.astype(int), shapes, fades):
            light, dark = (maps["near"], maps["near_dark"]) if r > near_r else (maps["far"], maps["far_dark"])
            s_light, s_dark = self._sprite(size, shape)
            half = s_light.shape[0] // 2
            x0, y0 = int(round(x)) - half, int(round(y)) - half
            # the part of the patch inside the frame
            ax0, ay0 = max(0, -x0), max(0, -y0)
            ax1, ay1 = min(s_light.shape[1], w - x0), min(s_light.shape[0], h - y0)
            if ax1 <= ax0 or ay1 <= ay0:
                continue
            window = np.s_[y0 + ay0:y0 + ay1, x0 + ax0:x0 + ax1]
            patch = np.s_[ay0:ay1, ax0:ax1]
            for layer, sprite in ((light, s_light), (dark, s_dark)):
                part = sprite[patch] if fade >= 1 else (sprite[patch] * fade).astype(np.uint8)
                np.maximum(layer[window], part, out=layer[window])
        far_sigma, near_sigma = 0.6, 2.4 * self.s
        out = []
        for a, b in (("far", "near"), ("far_dark", "near_dark")):
            fa = cv2.GaussianBlur(maps[a], (0, 0), far_sigma).astype(np.float32) * (1 / 255)
            na = cv2.GaussianBlur(maps[b], (0, 0), near_sigma).astype(np.float32) * (1 / 255)
            out.append(1 - (1 - fa) * (1 - na))
        return out[0], out[1]

    def draw(self, frame: np.ndarray, k: int) -> np.ndarray:
        light, shadow = self.layers(k)
        # A thick cloud scatters light: the water turns milky where bubbles are dense.
        small = cv2.resize(light, (self.w // 8, self.h // 8), interpolation=cv2.INTER_AREA)
        haze = cv2.resize(cv2.GaussianBlur(small, (0, 0), 3), (self.w, self.h), interpolation=cv2.INTER_LINEAR)
        haze = np.clip(haze * 1.1, 0, 0.6)
        # frame -> milky -> shadowed -> covered by the bubbles' light, as one gain and one offset
        keep = (1 - 0.45 * shadow) * (1 - light)
        rgb = cv2.COLOR_GRAY2RGB  # (cv2's channel-wise products are faster than numpy's broadcasting)
        cv2.multiply(frame, cv2.cvtColor(keep * (1 - haze), rgb), dst=frame)
        milk = cv2.cvtColor(haze * keep, rgb)
        milk *= np.float32([150, 205, 215])
        silver = cv2.cvtColor(light, rgb)
        silver *= np.float32([228, 246, 250])
        frame += milk
        frame += silver
        return frame


def make_bubbles(directory: Path, size: Size = SIZE, fps: float = FPS, seconds: float = 7.0, codec: str = "libx264",
                 name: str = "bubbles.mp4", burst_at: float | None = None, rise: float = 0.5,
                 seed: int = 1) -> videos.SyntheticVideo:
    """Under water, one drifting shot of a diver (the astronaut, tinted blue-green, lit
    from the surface); from ``burst_at`` (default 45% in) a burst of bubbles rises, grows
    and multiplies until it fills most of the frame after ``rise`` seconds, and keeps
    churning to the end. No cut; ``events["burst"]`` is when it starts."""
    n = round(seconds * fps)
    burst_at = 0.45 * seconds if burst_at is None else burst_at
    image = _underwater(photo("astronaut"))
    lens = Lens(image, camera(image.shape, n, [(0, 0.82, 0.35, 0.3), (1, 0.7, 0.6, 0.45)], size=size, seed=seed,
                              sway=0.008, sway_frames=18, roll=0.8), size)
    water = _Water(size, fps)
    bubbles = _Bubbles(size, fps, burst_at, rise, seed=seed)

    def draw(k: int) -> np.ndarray:
        bubbles.step(k)
        return bubbles.draw(water(lens.frame(k), k), k)

    path = Path(directory) / name
    codec_name = _encode(path, _frames(n, draw, Sensor(size, seed, noise=2.6)), fps, codec)
    return _video(path, fps, n, size, codec_name, events={"burst": np.ceil(burst_at * fps - 1e-9) / fps})


def make_bubbles_late(directory: Path, size: Size = (640, 480), fps: float = FPS, seconds: float = 6.0,
                      codec: str = "mjpeg", name: str = "bubbles_late.avi") -> videos.SyntheticVideo:
    """The reported case: an underwater shot in an MJPEG AVI at 640x480 whose last half
    second fills with a burst of bubbles (one shot, no cut)."""
    return make_bubbles(directory, size, fps, seconds, codec, name, burst_at=seconds - 0.5, rise=0.4, seed=2)


# ------------------------------------------------------------------------------ smoke


def _periodic_noise(rng: np.random.Generator, cells: tuple[int, int], shape: tuple[int, int]) -> np.ndarray:
    """Smooth random texture of ``shape`` (h, w) that wraps around: ``cells`` random values
    (rows, columns) interpolated with cubic splines."""
    grid = rng.random(cells).astype(np.float32)
    reps = 3
    tiled = np.tile(grid, (reps, reps))
    big = cv2.resize(tiled, (shape[1] * reps, shape[0] * reps), interpolation=cv2.INTER_CUBIC)
    return big[shape[0]:2 * shape[0], shape[1]:2 * shape[1]].copy()


class _Smoke:
    """A smoke density field: octaves of smooth noise advected at their own speeds and
    warped by a slow flow, so it billows as it rolls from left to right. Drawn at a quarter
    of the size and scaled up (smoke has no fine detail)."""

    def __init__(self, size: Size, fps: float, seed: int = 0):
        self.size, self.fps = size, fps
        w, h = size
        self.sw, self.sh = max(32, w // 4), max(18, h // 4)
        tex = (self.sh * 2, self.sw * 2)
        rng = np.random.default_rng(seed)
        self.octaves = []
        for o, (amp, speed) in enumerate(((1.0, 2.4), (0.55, 3.1), (0.3, 3.9), (0.16, 4.6))):
            cells = (3 * 2 ** o, 3 * 2 ** o * 2 * self.sw // (2 * self.sh))
            self.octaves.append((_periodic_noise(rng, cells, tex), amp, speed, rng.uniform(-0.5, 0.5)))
        self.flow = [_periodic_noise(rng, (3, 5), tex) - 0.5 for _ in range(2)]
        yy, xx = np.mgrid[0:self.sh, 0:self.sw].astype(np.float32)
        self.xx, self.yy = xx, yy

    @staticmethod
    def _shifted(tex: np.ndarray, dx: float, dy: float, out: tuple[int, int]) -> np.ndarray:
        m = np.float32([[1, 0, -dx], [0, 1, -dy]])
        return cv2.warpAffine(tex, m, (tex.shape[1], tex.shape[0]), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_WRAP)[:out[0], :out[1]]

    def density(self, k: int) -> np.ndarray:
        """Density at the small size, about 0..1."""
        per = 25.0 / self.fps
        d = np.zeros((self.sh, self.sw), np.float32)
        total = 0.0
        for tex, amp, speed, rise in self.octaves:
            d += amp * self._shifted(tex, k * speed * per * self.sw / 160, k * rise * per, (self.sh, self.sw))
            total += amp
        d /= total
        # Curl: move the samples along a slow flow field.
        fx = self._shifted(self.flow[0], k * 0.6 * per, 0, (self.sh, self.sw)) * (self.sw * 0.12)
        fy = self._shifted(self.flow[1], k * 0.4 * per, 0, (self.sh, self.sw)) * (self.sh * 0.18)
        d = cv2.remap(d, self.xx + fx, self.yy + fy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT101)
        return (d - 0.5) * 2.6 + 0.5  # stretch the fBm's narrow spread

    def layer(self, k: int, level: float, front: float) -> tuple[np.ndarray, np.ndarray]:
        """(alpha (h, w, 1), colour (h, w, 3)) at full size: ``level`` 0 (none) .. 1 (thick),
        ``front`` how far across the frame the smoke has come (0..1.3)."""
        d = self.density(k)
        x = self.xx / self.sw
        reach = _ease((front - x) / 0.35 + 0.5)
        a = np.clip((d + 1.25 * level * reach - 1.0) / 0.5, 0, 1) ** 1.3 * 0.97
        # Light from the upper left: brighter where density falls toward the light; thick
        # smoke shades itself, darker low down.
        shade = d - np.pad(d, ((2, 0), (2, 0)), mode="edge")[:-2, :-2]
        lit = np.clip(0.95 + 2.2 * shade, 0.55, 1.2) * (1 - 0.22 * np.clip(d, 0, 1) * (0.4 + self.yy / self.sh))
        colour = np.stack([lit * 214, lit * 211, lit * 204], -1).astype(np.float32)
        both = np.dstack([a.astype(np.float32), colour])
        both = cv2.resize(both, self.size, interpolation=cv2.INTER_CUBIC)
        return np.clip(both[..., :1], 0, 1), both[..., 1:]


def make_smoke(directory: Path, size: Size = SIZE, fps: float = FPS, seconds: float = 7.0, codec: str = "libx264",
               name: str = "smoke.mp4", seed: int = 3) -> videos.SyntheticVideo:
    """A rocket on its pad, slow push-in; smoke rolls in from the left, thickens until it
    covers most of the picture for about a second, then thins to wisps. No cut; events:
    ``smoke`` (it enters), ``thick`` and ``thin`` (the second it covers most)."""
    n = round(seconds * fps)
    image = photo("rocket")
    lens = Lens(image, camera(image.shape, n, [(0, 0.95, 0.5, 0.5), (1, 0.78, 0.55, 0.4)], size=size, seed=seed),
                size)
    smoke = _Smoke(size, fps, seed)
    enter, thick = 0.2 * seconds, 0.43 * seconds
    thin = thick + 1.0

    def draw(k: int) -> np.ndarray:
        t = k / fps
        frame = lens.frame(k)
        if t < enter:
            return frame
        front = 1.3 * min(1.0, (t - enter) / (thick - enter))
        if t < thick:
            level = 0.35 + 0.9 * _ease((t - enter) / (thick - enter))
        elif t < thin:
            level = 1.25
        else:
            level = 1.25 - 1.0 * _ease((t - thin) / 1.4)
        a, colour = smoke.layer(k, float(level), front)
        return frame * (1 - a) + colour * a

    path = Path(directory) / name
    codec_name = _encode(path, _frames(n, draw, Sensor(size, seed)), fps, codec)
    return _video(path, fps, n, size, codec_name, events={"smoke": enter, "thick": thick, "thin": thin})


# ------------------------------------------------------------------------------ flash


def make_flash(directory: Path, size: Size = SIZE, fps: float = FPS, seconds: float = 7.0, codec: str = "libx264",
               name: str = "flash.mp4", seed: int = 4) -> videos.SyntheticVideo:
    """A portrait (Grace Hopper) filmed hand-held with a slow push-in while photographers'
    flashes go off twice: one frame lit toward white at 35%, and at 70% three frames - the
    lower part lit (a rolling shutter catches the flash mid-frame), full, fading. No cut;
    ``events`` flash1 and flash2."""
    n = round(seconds * fps)
    image = photo("grace")
    lens = Lens(image, camera(image.shape, n, [(0, 1.0, 0.5, 0.3), (1, 0.8, 0.5, 0.25)], size=size, seed=seed),
                size)
    first, second = round(0.35 * n), round(0.7 * n)
    # frame -> (strength, first lit row as a fraction of the height)
    flashes = {first: (1.0, 0.0), second: (0.9, 0.45), second + 1: (0.75, 0.0), second + 2: (0.22, 0.0)}
    w, h = size
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    # The flash is beside the camera: the subject in the middle gets most of it.
    reach = (0.55 + 0.45 * np.exp(-(((x - 0.5 * w) / (0.45 * w)) ** 2 + ((y - 0.45 * h) / (0.6 * h)) ** 2)))[..., None]

    def draw(k: int) -> np.ndarray:
        frame = lens.frame(k)
        if k not in flashes:
            return frame
        s, row = flashes[k]
        lit = np.minimum(frame * (1 + 3.2 * s) + 255 * 0.3 * s, 255)
        m = reach
        if row > 0:
            m = m * np.clip((y[..., None] - row * h) / 8, 0, 1)
        return frame + (lit - frame) * m

    path = Path(directory) / name
    codec_name = _encode(path, _frames(n, draw, Sensor(size, seed)), fps, codec)
    return _video(path, fps, n, size, codec_name, events={"flash1": first / fps, "flash2": second / fps})


# ------------------------------------------------------------------------- close pass


def make_close_pass(directory: Path, size: Size = SIZE, fps: float = FPS, seconds: float = 7.0,
                    codec: str = "libx264", name: str = "close_pass.mp4", passing: float = 0.45,
                    seed: int = 5) -> videos.SyntheticVideo:
    """A table in a café (the coffee photo) from a camera on a tripod with a slow drift;
    half way through, someone walks right past the lens: a dark, out-of-focus head and
    shoulders sweep across the whole frame in ``passing`` seconds and hide everything for a
    few frames, then the same shot goes on. No cut; ``events`` pass (first frame it shows)
    and covered (first frame it hides everything)."""
    n = round(seconds * fps)
    w, h = size
    image = photo("coffee")
    lens = Lens(image, camera(image.shape, n, [(0, 0.9, 0.4, 0.5), (1, 0.82, 0.6, 0.5)], size=size, seed=seed,
                              sway=0.0015, jitter=0.0003, roll=0.05), size)
    start = round(0.5 * n)
    steps = max(3, round(passing * fps))
    sw, sh = w // 4, h // 4
    rng = np.random.default_rng(seed)
    # Hair and skin in shadow: dark, a little uneven, lit along one edge by the room.
    tone = _periodic_noise(rng, (4, 6), (sh, sw))[..., None]
    body = (np.float32([30, 24, 22]) + tone * np.float32([16, 12, 10])).astype(np.float32)
    body = cv2.resize(body, size, interpolation=cv2.INTER_CUBIC)

    def mask(j: int) -> np.ndarray:
        u = (j + 0.5) / steps
        cx = (-1.05 + 3.1 * u) * sw  # from just off the left edge to just off the right
        m = np.zeros((sh, sw), np.float32)
        cv2.ellipse(m, (int(cx * 16), int(0.55 * sh * 16)), (int(1.02 * sw * 16), int(1.12 * sh * 16)), 8, 0, 360,
                    1.0, -1, cv2.LINE_AA, 4)
        cv2.ellipse(m, (int((cx - 0.2 * sw) * 16), int(1.75 * sh * 16)), (int(1.5 * sw * 16), int(0.9 * sh * 16)),
                    0, 0, 360, 1.0, -1, cv2.LINE_AA, 4)
        m = cv2.GaussianBlur(m, (0, 0), 0.05 * sw)  # far out of focus
        streak = int(3.1 * sw / steps * 0.5) | 1  # the shutter is open half the frame time
        m = cv2.blur(m, (streak, 1))
        return np.clip(cv2.resize(m, size, interpolation=cv2.INTER_CUBIC), 0, 1)[..., None]

    masks = {start + j: mask(j) for j in range(steps)}
    covered = min((k for k, m in masks.items() if m.min() > 0.9), default=start)

    def draw(k: int) -> np.ndarray:
        frame = lens.frame(k)
        m = masks.get(k)
        if m is None:
            return frame
        rim = np.clip(m * (1 - m) * 4, 0, 1) * 0.35  # edge light from the room behind
        return frame * (1 - m) + body * m + rim * frame

    path = Path(directory) / name
    codec_name = _encode(path, _frames(n, draw, Sensor(size, seed)), fps, codec)
    return _video(path, fps, n, size, codec_name, events={"pass": start / fps, "covered": covered / fps})


# --------------------------------------------------------------------------- whip pan


def _panorama(names: Sequence[str], height: int = 480, overlap: int = 90) -> np.ndarray:
    """Photos side by side at one height, blended over ``overlap`` pixels at each seam."""
    parts = []
    for name in names:
        im = photo(name)
        parts.append(cv2.resize(im, (round(im.shape[1] * height / im.shape[0]), height),
                                interpolation=cv2.INTER_AREA).astype(np.float32))
    pano = parts[0]
    ramp = np.linspace(0, 1, overlap, dtype=np.float32)[None, :, None]
    for part in parts[1:]:
        seam = pano[:, -overlap:] * (1 - ramp) + part[:, :overlap] * ramp
        pano = np.concatenate([pano[:, :-overlap], seam, part[:, overlap:]], axis=1)
    return pano.astype(np.uint8)


def make_whip_pan(directory: Path, size: Size = SIZE, fps: float = FPS, seconds: float = 7.0, codec: str = "libx264",
                  name: str = "whip_pan.mp4", whip: float = 0.4, seed: int = 6) -> videos.SyntheticVideo:
    """One continuous hand-held shot over a wide scene (a panorama of the motorcycle, the
    coffee table and the cat, mirrored at the end): it drifts on the motorcycle, whips
    across in ``whip`` seconds with strong horizontal motion blur, overshoots a little and
    settles on the cat. No cut; ``events`` whip (start) and settled."""
    n = round(seconds * fps)
    pano = _panorama(["motorcycle", "coffee", "chelsea"])
    pano = np.concatenate([pano, pano[:, ::-1][:, :200]], axis=1)  # room to overshoot
    ph, pw = pano.shape[:2]
    start = round(0.45 * n)
    steps = max(2, round(whip * fps))
    aspect = size[0] / size[1]
    win = 0.8 * ph * aspect  # window width in panorama pixels
    x0, x1 = 0.55 * win, pw - 200 - 0.62 * win
    k = np.arange(n, dtype=float)
    cx = x0 + 1.2 * k  # drift
    u = np.clip((k - start) / steps, 0, 1)
    cx = np.where(k < start, cx, x0 + 1.2 * start + (x1 - x0 - 1.2 * start) * _ease(u))
    after = k - (start + steps)
    settle = np.where(after >= 0, 0.05 * win * np.exp(-after / 5) * np.sin(after / 3.2), 0)
    cx = cx + settle + np.where(after >= 0, 0.8 * np.maximum(after, 0), 0)
    rng = np.random.default_rng(seed)
    cy = ph / 2 + _smooth(rng, n, 12) * 0.006 * win + _smooth(rng, n, 1.2) * 0.0012 * win
    cy = cy + np.where((u > 0) & (u < 1), np.sin(np.pi * u) * 0.03 * win, 0)  # a whip dips a little
    turn = _smooth(rng, n, 18) * 0.35 + np.where((u > 0) & (u < 1), np.sin(np.pi * u) * 1.5, 0)
    path = np.column_stack([cx + _smooth(rng, n, 12) * 0.004 * win, cy, np.full(n, win), turn])
    lens = Lens(pano, path, size)

    out = Path(directory) / name
    codec_name = _encode(out, _frames(n, lens.frame, Sensor(size, seed)), fps, codec)
    return _video(out, fps, n, size, codec_name, events={"whip": start / fps, "settled": (start + steps) / fps})


# ----------------------------------------------------------------------- with cuts


def _shots(n: int, cut_frames: Sequence[int], lenses: Sequence[Lens], order: Sequence[int]):
    """Frame ``k`` from the lens of the shot it is in: the lenses run the whole clip, as
    cameras that keep filming while the edit shows another."""
    bounds = [0, *cut_frames, n]

    def draw(k: int) -> np.ndarray:
        shot = int(np.searchsorted(bounds, k, side="right") - 1)
        return lenses[order[shot]].frame(k)

    return draw


def make_two_cameras(directory: Path, size: Size = SIZE, fps: float = FPS, seconds: float = 8.0,
                     codec: str = "libx264", name: str = "two_cameras.mp4", seed: int = 7) -> videos.SyntheticVideo:
    """One scene (the motorcycle in a workshop) filmed by two hand-held cameras: A wide
    from the left view of the stereo pair, B closer on the tank and front wheel from the
    right view (a few centimetres aside, turned a little, exposed a touch brighter). The
    edit goes A -> B -> A -> B -> A: four hard cuts between pictures of the same colours."""
    import skimage.data

    n = round(seconds * fps)
    left, right = skimage.data.stereo_motorcycle()[:2]
    a = Lens(left, camera(left.shape, n, [(0, 0.97, 0.5, 0.5), (1, 0.9, 0.45, 0.5)], size=size, seed=seed), size)
    tight = camera(right.shape, n, [(0, 0.58, 0.55, 0.45), (1, 0.52, 0.62, 0.5)], size=size, seed=seed + 1,
                   sway=0.007)
    tight[:, 3] += 2.0
    b = Lens(np.clip(right.astype(np.float32) * 1.04 + 3, 0, 255).astype(np.uint8), tight, size)
    cuts = [round(f * n) for f in (0.25, 0.45, 0.68, 0.85)]
    path = Path(directory) / name
    draw = _shots(n, cuts, [a, b], [0, 1, 0, 1, 0])
    codec_name = _encode(path, _frames(n, draw, Sensor(size, seed)), fps, codec)
    return _video(path, fps, n, size, codec_name, cut_frames=cuts)


def make_slow_dissolves(directory: Path, size: Size = SIZE, fps: float = FPS, seconds: float = 10.5,
                        codec: str = "libx264", name: str = "slow_dissolves.mp4",
                        fades: Sequence[float] = (1.0, 2.0, 1.5), seed: int = 8) -> videos.SyntheticVideo:
    """Four slowly moving shots joined by dissolves of ``fades`` seconds: the rocket, the
    cat, the coffee cup, then the retina, whose reds and oranges are the cup's (the last
    dissolve is between similar colours). ``gradual`` (start, end): from ``start`` frames
    mix both shots, from ``end`` only the next one shows."""
    photos = ["rocket", "chelsea", "coffee", "retina"]
    moves = [[(0, 0.95, 0.5, 0.5), (1, 0.75, 0.5, 0.45)], [(0, 0.8, 0.2, 0.5), (1, 0.8, 0.7, 0.45)],
             [(0, 0.7, 0.5, 0.5), (1, 0.9, 0.5, 0.5)], [(0, 0.7, 0.35, 0.5), (1, 0.72, 0.6, 0.5)]]
    fade_frames = [round(f * fps) for f in fades]
    n = round(seconds * fps)
    hold = (n - sum(fade_frames)) / len(photos)
    if hold < 1:
        raise ValueError("the dissolves do not fit in the clip")
    # Frame ranges: shot i shows alone for ``hold`` frames between its dissolves.
    starts, spans, pos = [], [], 0.0
    for f in fade_frames:
        s = round(pos + hold)
        starts.append(s)
        pos = s + f
    first = [0] + [s for s in starts]
    last = [s + f for s, f in zip(starts, fade_frames)] + [n]
    lenses = []
    for i, (p, keys) in enumerate(zip(photos, moves)):
        image = photo(p)
        spans.append((first[i], last[i]))
        length = last[i] - first[i]
        lenses.append((first[i], Lens(image, camera(image.shape, length, keys, size=size, seed=seed + i), size)))

    def draw(k: int) -> np.ndarray:
        for i, (s, f) in enumerate(zip(starts, fade_frames)):
            if s <= k < s + f:
                wa = (k - s + 1) / (f + 1)
                a0, la = lenses[i]
                b0, lb = lenses[i + 1]
                return la.frame(k - a0) * (1 - wa) + lb.frame(k - b0) * wa
        i = int(np.searchsorted(last, k, side="right"))
        i = min(i, len(lenses) - 1)
        s0, lens = lenses[i]
        return lens.frame(k - s0)

    path = Path(directory) / name
    codec_name = _encode(path, _frames(n, draw, Sensor(size, seed)), fps, codec)
    gradual = [(s / fps, (s + f) / fps) for s, f in zip(starts, fade_frames)]
    return _video(path, fps, n, size, codec_name, gradual=gradual)


def make_cut_in_motion(directory: Path, size: Size = SIZE, fps: float = FPS, seconds: float = 7.0,
                       codec: str = "libx264", name: str = "cut_in_motion.mp4", seed: int = 9) -> videos.SyntheticVideo:
    """Three shots that all move fast, cut while they move: a quick hand-held pan across the
    motorcycle, the astronaut from a running camera (strong shake), the cat with a fast
    zoom and shake. Neighbours have similar colours (the motorcycle and astronaut photos'
    histograms are the closest pair). Two hard cuts, each in the middle of the motion."""
    n = round(seconds * fps)
    cuts = [round(0.4 * n), round(0.7 * n)]
    fast = {"sway": 0.06, "sway_frames": 3.0, "jitter": 0.008, "roll": 2.5}
    shots = [("motorcycle", [(0.2, 0.6, 0.0, 0.5), (0.45, 0.6, 1.0, 0.4)]),
             ("astronaut", [(0.35, 0.72, 0.2, 0.4), (0.75, 0.7, 0.8, 0.45)]),
             ("chelsea", [(0.6, 0.9, 0.5, 0.5), (0.95, 0.45, 0.62, 0.35)])]
    lenses = []
    for i, (p, keys) in enumerate(shots):
        image = photo(p)
        lenses.append(Lens(image, camera(image.shape, n, keys, size=size, seed=seed + i, **fast), size))
    path = Path(directory) / name
    draw = _shots(n, cuts, lenses, [0, 1, 2])
    codec_name = _encode(path, _frames(n, draw, Sensor(size, seed, noise=3.0)), fps, codec)
    return _video(path, fps, n, size, codec_name, cut_frames=cuts)


# ---------------------------------------------------------------------------- the set

HARD_SHOTS: dict[str, Callable[..., videos.SyntheticVideo]] = {
    "bubbles": make_bubbles,
    "bubbles_late": make_bubbles_late,
    "smoke": make_smoke,
    "flash": make_flash,
    "close_pass": make_close_pass,
    "whip_pan": make_whip_pan,
    "two_cameras": make_two_cameras,
    "slow_dissolves": make_slow_dissolves,
    "cut_in_motion": make_cut_in_motion,
}
# One shot each, where a detector must find nothing / clips with transitions to find.
MOTION_CLIPS = ("bubbles", "bubbles_late", "smoke", "flash", "close_pass", "whip_pan")
CUT_CLIPS = ("two_cameras", "slow_dissolves", "cut_in_motion")
