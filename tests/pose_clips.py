"""Test clips of a person whose status is known: a drawn, articulated human figure over a real
photograph, walking then running, standing then sitting, lying down, raising its arms, bending.

The figure is a small 3D model, posed by joint angles and shaded, drawn into each frame:

* a skeleton of the proportions of an adult (in body heights H: shoulders at 0.82 H, hips at
  0.53 H, thigh 0.245 H, shin 0.25 H, upper arm 0.17 H, forearm 0.15 H, head 0.13 H tall);
* a body of ellipsoids (head with hair, ears and nose, neck, chest, waist, pelvis, hands, shoes)
  and tapered limbs (chains of spheres), in clothes: a shirt with short sleeves, trousers, shoes;
  skin on the face, forearms and hands; eyes, brows and a mouth painted on the face;
* shaded by a light from the upper left (Lambert, ambient 0.45), z-buffered, drawn at twice the
  size and shrunk (anti-aliased edges), with a soft shadow on the ground;
* seen by an orthographic camera looking down 12 degrees, over a photograph of scikit-image or
  scikit-learn (the launch pad, the Summer Palace, the garage of the motorcycle, the coffee, the
  astronaut's flag without her), blurred a little, the lower part a floor of gravel.

Poses are joint angles (``Pose``) interpolated over time; the gaits (walking, running) are cycles
of hip, knee, shoulder and elbow angles after the textbook curves; the figure moves on by its
stride per cycle. A standing figure sways a little.

MoveNet sees the figure as a person (0.3 to 0.55, a little under 0.3 at times in front of the
motorcycle) with its keypoints within 2 to 5 % of its height of the drawn joints (median point),
more where a limb is hidden behind the body. It sees least of a figure in profile standing still
(0.12 to 0.27 before the motorcycle: the figures stand turned 20 to 45 degrees from the camera),
and of one lying on its back seen from the side (0.3 to 0.4 over the launch pad, under 0.25 over
the coffee and the garage), so the lying figure turns its front 60 degrees towards the camera.

Each ``make_*`` function writes an H.264 file and returns a ``PoseClip``: the path and the truth,
a list of (start, end, status) with the statuses of videoreview.engines.poses.status, each
change half-way through the movement between them, and the figure's true 2D keypoints (COCO's
17, as MoveNet gives them) at every frame. ``CLIPS`` names them all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path

import cv2
import numpy as np

from videos import encode_frames

SIZE, FPS = (640, 360), 10
ELEVATION = 12.0  # degrees the camera looks down
LIGHT = np.array([-0.45, 0.65, 0.62]) / np.linalg.norm([-0.45, 0.65, 0.62])
SUPERSAMPLE = 2

SKIN = (222, 170, 135)
HAIR = (62, 42, 28)
SHOES = (38, 34, 32)
SEAT = (120, 80, 50)
BELT = (40, 32, 28)

# Proportions, in body heights: from the pelvis' centre (between the hip joints), in the body's
# own axes: x to its left, y up, z forward.
HIP_HALF = 0.055
SHOULDER_UP, SHOULDER_HALF = 0.29, 0.115
NECK_UP, HEAD_UP = 0.31, 0.405
UPPER_ARM, FOREARM, HAND = 0.17, 0.15, 0.075
THIGH, SHIN, FOOT = 0.245, 0.25, 0.13


@dataclass(frozen=True)
class Pose:
    """Joint angles in degrees. Flexion is forward (a leg or arm hanging down is 0, pointing
    forward 90, up 180); knees and elbows bend by theirs; ``lean`` tilts the trunk forward at the
    hips; ``fall`` turns the whole body backwards about its left-right axis (90: on its back),
    ``roll`` about its own long axis (turns its front to the camera when lying)."""

    lean: float = 0.0
    l_shoulder: float = 0.0
    r_shoulder: float = 0.0
    l_abduct: float = 8.0  # arms away from the body, sideways
    r_abduct: float = 8.0
    l_elbow: float = 10.0
    r_elbow: float = 10.0
    l_hip: float = 0.0
    r_hip: float = 0.0
    l_hip_out: float = 3.0
    r_hip_out: float = 3.0
    l_knee: float = 3.0
    r_knee: float = 3.0
    head: float = 0.0  # nod forward
    fall: float = 0.0
    roll: float = 0.0
    bob: float = 0.0  # extra height of the body (a running stride's flight), body heights
    yaw: float = 30.0  # degrees turned from facing the camera towards the picture's right

    def mix(self, other: Pose, a: float) -> Pose:
        a = float(np.clip(a, 0.0, 1.0))
        return Pose(**{f.name: (1 - a) * getattr(self, f.name) + a * getattr(other, f.name) for f in fields(self)})


STANDING = Pose()
SITTING = Pose(lean=-5, l_hip=88, r_hip=92, l_knee=85, r_knee=92, l_elbow=45, r_elbow=40, l_shoulder=15,
               r_shoulder=12, l_hip_out=8, r_hip_out=8)
ARMS_UP = Pose(l_shoulder=20, r_shoulder=20, l_abduct=160, r_abduct=160, l_elbow=15, r_elbow=15)
BENDING = Pose(lean=80, l_shoulder=75, r_shoulder=70, l_elbow=10, r_elbow=15, l_hip=0, r_hip=0, l_knee=8,
               r_knee=8, head=-40)
LYING = Pose(fall=90, roll=60, l_shoulder=10, r_shoulder=5, l_abduct=20, r_abduct=25, l_knee=12, r_knee=25,
             l_hip=8, r_hip=18, head=10)


def gait(cycles: float, run: float = 0.0) -> Pose:
    """The pose ``cycles`` strides into walking (``run`` 0) or running (``run`` 1; in between a
    blend): each hip swings between extension and flexion (walking -12..+28 degrees, running
    -25..+65), its knee bends most in the swing (60 and 110 degrees), the right leg half a cycle
    behind the left, the arms swing against the legs; a runner leans 12 degrees, holds the elbows
    near 90 and leaves the ground between steps."""
    phase = 2 * np.pi * cycles

    def blend(walking, running):
        return walking + run * (running - walking)

    def leg(p):
        hip = blend(8, 20) + blend(20, 45) * np.sin(p)
        swing = max(0.0, np.cos(p - blend(0.35, 0.5)))
        knee = blend(5, 18) + blend(55 * swing ** 2, 92 * swing ** 1.3)
        return hip, knee

    l_hip, l_knee = leg(phase)
    r_hip, r_knee = leg(phase + np.pi)
    swing, lift = blend(18, 40), blend(0, 10)
    elbow = blend(18, 85)
    return Pose(lean=blend(3, 12), l_hip=l_hip, r_hip=r_hip, l_knee=l_knee, r_knee=r_knee,
                l_shoulder=-swing * np.sin(phase) + lift, r_shoulder=swing * np.sin(phase) + lift,
                l_elbow=elbow, r_elbow=elbow, bob=run * 0.03 * max(0.0, np.sin(2 * phase)))


# A stride (two steps) and its time, from which the speed over the ground in body heights per second.
# Walking: 0.8 H (1.4 m for 1.75 m) in 1.05 s (0.95 Hz): 0.76 H/s (1.33 m/s); running: 1.5 H (2.6 m)
# in 0.72 s (1.4 Hz): 2.1 H/s (3.6 m/s, a jog).
WALK_STRIDE, WALK_PERIOD = 0.8, 1.05
RUN_STRIDE, RUN_PERIOD = 1.5, 0.72


# ------------------------------------------------------------------------------------------- geometry


def _rx(deg: float) -> np.ndarray:
    a = np.radians(deg)
    return np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])


def _ry(deg: float) -> np.ndarray:
    a = np.radians(deg)
    return np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]])


def _rz(deg: float) -> np.ndarray:
    a = np.radians(deg)
    return np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])


DOWN = np.array([0.0, -1.0, 0.0])


def _limb(flex: float, out: float, side: int) -> np.ndarray:
    """A limb's direction in its parent's axes: hanging down, turned ``out`` degrees away from the
    body's middle (side +1 left, -1 right) and swung ``flex`` degrees forward."""
    return _rx(-flex) @ _rz(side * out) @ DOWN


def skeleton(pose: Pose) -> dict[str, np.ndarray]:
    """The joints of the posed body (3D, body heights) in its own axes, the pelvis' centre at 0,
    before ``fall`` and ``roll``."""
    trunk = _rx(pose.lean)  # about the hips, forward
    j: dict[str, np.ndarray] = {"pelvis": np.zeros(3)}
    j["neck"] = trunk @ np.array([0, NECK_UP, 0.0])
    j["head"] = j["neck"] + trunk @ _rx(pose.head) @ np.array([0, HEAD_UP - NECK_UP, 0.012])
    j["head_axes"] = trunk @ _rx(pose.head)
    j["trunk_axes"] = trunk
    for side, s in (("l", 1), ("r", -1)):
        shoulder = trunk @ np.array([s * SHOULDER_HALF, SHOULDER_UP, 0.0])
        flex, out, elbow = getattr(pose, f"{side}_shoulder"), getattr(pose, f"{side}_abduct"), getattr(
            pose, f"{side}_elbow")
        upper = trunk @ _limb(flex, out, s)
        fore = trunk @ _limb(flex + elbow, out, s)
        j[f"{side}_shoulder"] = shoulder
        j[f"{side}_elbow"] = shoulder + UPPER_ARM * upper
        j[f"{side}_wrist"] = j[f"{side}_elbow"] + FOREARM * fore
        j[f"{side}_hand"] = j[f"{side}_wrist"] + HAND * 0.55 * fore
        hip = np.array([s * HIP_HALF, 0.0, 0.0])
        hflex, hout, knee = getattr(pose, f"{side}_hip"), getattr(pose, f"{side}_hip_out"), getattr(
            pose, f"{side}_knee")
        j[f"{side}_hip"] = hip
        j[f"{side}_knee"] = hip + THIGH * _limb(hflex, hout, s)
        j[f"{side}_ankle"] = j[f"{side}_knee"] + SHIN * _limb(hflex - knee, hout, s)
        j[f"{side}_toe"] = j[f"{side}_ankle"] + FOOT * _limb(hflex - knee + 90, 0, s) + np.array([0, -0.03, 0])
    return j


@dataclass
class Ellipsoid:
    centre: np.ndarray  # world space, body heights
    axes: np.ndarray  # 3x3: columns are the semi-axes
    colour: tuple[int, int, int]


@dataclass
class Figure:
    """Where the figure stands and how it looks."""

    height: float  # pixels, standing
    shirt: tuple[int, int, int] = (178, 48, 52)
    trousers: tuple[int, int, int] = (52, 68, 112)
    seat: tuple[float, float, float] | None = None  # a pouf: its top's height and where (x, z), body heights


def _sphere(c, r, colour) -> Ellipsoid:
    return Ellipsoid(np.asarray(c, float), np.eye(3) * r, colour)


def _oriented(c, axes: np.ndarray, radii, colour) -> Ellipsoid:
    return Ellipsoid(np.asarray(c, float), axes @ np.diag(radii), colour)


def _chain(a, b, r0, r1, colour, step: float = 0.35) -> list[Ellipsoid]:
    """A tapered limb from a to b: spheres of radius r0 at a to r1 at b, overlapping."""
    length = float(np.linalg.norm(np.subtract(b, a)))
    n = max(2, int(np.ceil(length / (step * min(r0, r1)))) + 1)
    return [_sphere(np.add(a, (np.subtract(b, a)) * k / (n - 1)), r0 + (r1 - r0) * k / (n - 1), colour)
            for k in range(n)]


def _frame_of(v: np.ndarray) -> np.ndarray:
    """Axes (columns x, y, z) whose y is along v."""
    y = v / np.linalg.norm(v)
    x = np.cross(y, [0, 0, 1.0]) if abs(y[2]) < 0.9 else np.cross(y, [1.0, 0, 0])
    x /= np.linalg.norm(x)
    return np.stack([x, y, np.cross(x, y)], 1)


def body(pose: Pose, figure: Figure, place: np.ndarray) -> tuple[list[Ellipsoid], dict[str, np.ndarray]]:
    """The figure's ellipsoids and its joints in world space (body heights; y up, z towards the
    camera), its lowest point on the ground (y = 0) at x = place[0], z = place[1]."""
    j = skeleton(pose)
    turn = _ry(pose.yaw) @ _rx(-pose.fall) @ _ry(pose.roll)
    axes_keys = ("head_axes", "trunk_axes")
    world = {k: turn @ v for k, v in j.items()}
    points = np.array([v for k, v in world.items() if k not in axes_keys])
    low = points[:, 1].min() - 0.035
    shift = np.array([place[0], -low + pose.bob, place[1]])
    w = {k: (v + shift if k not in axes_keys else v) for k, v in world.items()}
    trunk, head_axes = w["trunk_axes"], w["head_axes"]
    shirt, trousers = figure.shirt, figure.trousers
    parts: list[Ellipsoid] = []
    # trunk: chest, waist, pelvis
    parts.append(_oriented(w["pelvis"] + trunk @ [0, 0.2, 0], trunk, (0.108, 0.12, 0.068), shirt))
    parts.append(_oriented(w["pelvis"] + trunk @ [0, 0.09, 0.0], trunk, (0.092, 0.1, 0.062), shirt))
    hips_axes = turn
    parts.append(_oriented(w["pelvis"] + hips_axes @ [0, 0.0, 0.0], hips_axes, (0.1, 0.075, 0.068), trousers))
    parts.append(_oriented(w["pelvis"] + hips_axes @ [0, 0.045, 0.0], hips_axes, (0.094, 0.018, 0.064), BELT))
    # neck and head
    parts += _chain(w["neck"] - trunk @ [0, 0.02, 0], w["head"] - head_axes @ [0, 0.04, 0.01], 0.028, 0.026, SKIN)
    parts.append(_oriented(w["head"], head_axes, (0.05, 0.064, 0.058), SKIN))
    parts.append(_oriented(w["head"] + head_axes @ [0, 0.012, -0.014], head_axes, (0.055, 0.062, 0.058), HAIR))
    parts.append(_sphere(w["head"] + head_axes @ [0, -0.008, 0.057], 0.011, SKIN))  # nose
    for s in (1, -1):
        parts.append(_oriented(w["head"] + head_axes @ [s * 0.05, 0.0, 0.0], head_axes, (0.008, 0.016, 0.011),
                               SKIN))
    for side in ("l", "r"):
        sh, el, wr = w[f"{side}_shoulder"], w[f"{side}_elbow"], w[f"{side}_wrist"]
        sleeve = sh + 0.55 * (el - sh)
        parts += _chain(sh, sleeve, 0.04, 0.034, shirt)
        parts += _chain(sleeve, el, 0.026, 0.024, SKIN)
        parts += _chain(el, wr, 0.024, 0.018, SKIN)
        hand = w[f"{side}_hand"]
        parts.append(_oriented(hand, _frame_of(hand - wr), (0.017, 0.038, 0.012), SKIN))
        hp, kn, an, toe = w[f"{side}_hip"], w[f"{side}_knee"], w[f"{side}_ankle"], w[f"{side}_toe"]
        parts += _chain(hp, kn, 0.058, 0.04, trousers)
        parts += _chain(kn, an, 0.04, 0.03, trousers)
        parts.append(_oriented((an + toe) / 2, _frame_of(toe - an), (0.034, 0.085, 0.03), SHOES))
    if figure.seat is not None:
        top, x, z = figure.seat
        parts.append(Ellipsoid(np.array([x, top / 2, z]), np.diag([0.2, top / 2, 0.15]), SEAT))
    return parts, w


# ------------------------------------------------------------------------------------------- drawing


class Camera:
    """Orthographic, looking down ELEVATION degrees; the ground line ``ground`` pixels from the top
    at the scene's z = 0, ``scale`` pixels a body height, world x = 0 at pixel column ``x0``."""

    def __init__(self, scale: float, ground: float, x0: float = 0.0, elevation: float = ELEVATION):
        self.scale, self.ground, self.x0 = scale, ground, x0
        self.r = _rx(elevation)

    def to_camera(self, p: np.ndarray) -> np.ndarray:
        return np.asarray(p, float) @ self.r.T

    def pixel(self, p: np.ndarray) -> np.ndarray:
        c = self.to_camera(p)
        return np.stack([self.x0 + self.scale * c[..., 0], self.ground - self.scale * c[..., 1]], -1)


def render(parts: Sequence[Ellipsoid], camera: Camera, size: tuple[int, int]
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]:
    """The figure drawn at ``SUPERSAMPLE`` times the size inside its box: colour [h, w, 3] float,
    coverage [h, w] and depth [h, w] (camera z in body heights), and the box's top left in
    supersampled pixels."""
    k = SUPERSAMPLE
    scale = camera.scale * k
    cams = [(camera.to_camera(p.centre), camera.r @ p.axes, p.colour) for p in parts]
    ext = [np.sqrt((a ** 2).sum(1)) for _, a, _ in cams]
    xs = [camera.x0 * k + scale * c[0] for c, _, _ in cams]
    ys = [camera.ground * k - scale * c[1] for c, _, _ in cams]
    x0 = int(max(0, min(x - scale * e[0] for x, e in zip(xs, ext)) - 2))
    x1 = int(min(size[0] * k, max(x + scale * e[0] for x, e in zip(xs, ext)) + 3))
    y0 = int(max(0, min(y - scale * e[1] for y, e in zip(ys, ext)) - 2))
    y1 = int(min(size[1] * k, max(y + scale * e[1] for y, e in zip(ys, ext)) + 3))
    h, w = max(1, y1 - y0), max(1, x1 - x0)
    colour = np.zeros((h, w, 3), np.float32)
    depth = np.full((h, w), -np.inf, np.float32)
    for (c, a, rgb), e, cx, cy in zip(cams, ext, xs, ys):
        bx0, bx1 = int(max(x0, cx - scale * e[0])), int(min(x1, cx + scale * e[0] + 1))
        by0, by1 = int(max(y0, cy - scale * e[1])), int(min(y1, cy + scale * e[1] + 1))
        if bx1 <= bx0 or by1 <= by0:
            continue
        px = (np.arange(bx0, bx1) + 0.5 - camera.x0 * k) / scale
        py = (camera.ground * k - (np.arange(by0, by1) + 0.5)) / scale
        g = np.linalg.inv(a)
        gz = g[:, 2]
        d0 = np.stack(np.broadcast_arrays(px[None, :] - c[0], py[:, None] - c[1], -c[2] + 0 * px[None, :]), -1)
        b = d0 @ g.T  # [h, w, 3]
        aa = gz @ gz
        ab = b @ gz
        disc = ab ** 2 - aa * ((b ** 2).sum(-1) - 1)
        hit = disc > 0
        if not hit.any():
            continue
        t = (-ab + np.sqrt(np.maximum(disc, 0))) / aa
        z = t  # camera z of the surface (the ray starts at z = 0)
        region = depth[by0 - y0:by1 - y0, bx0 - x0:bx1 - x0]
        front = hit & (z > region)
        if not front.any():
            continue
        q = b + t[..., None] * gz
        normal = q @ g  # G^T q
        normal /= np.linalg.norm(normal, axis=-1, keepdims=True) + 1e-9
        light = LIGHT @ camera.r.T
        shade = 0.45 + 0.62 * np.clip(normal @ light, 0, None)
        shade += 0.12 * np.clip(normal[..., 2], 0, 1) ** 8  # a soft sheen facing the camera
        region[front] = z[front]
        colour[by0 - y0:by1 - y0, bx0 - x0:bx1 - x0][front] = (np.array(rgb, np.float32) * shade[front, None])
    return colour, np.isfinite(depth).astype(np.float32), depth, (x0, y0)


def _paint_face(colour: np.ndarray, depth: np.ndarray, origin, joints, camera: Camera) -> None:
    """Eyes, brows and a mouth on the face where it shows (the point in front in the z-buffer)."""
    k = SUPERSAMPLE
    head, axes = joints["head"], joints["head_axes"]
    marks = [((0.019, 0.012, 0.05), 0.0075, (30, 24, 22)), ((-0.019, 0.012, 0.05), 0.0075, (30, 24, 22)),
             ((0.02, 0.026, 0.048), 0.006, (55, 38, 28)), ((-0.02, 0.026, 0.048), 0.006, (55, 38, 28)),
             ((0.0, -0.03, 0.05), 0.007, (150, 70, 70))]
    for offset, radius, rgb in marks:
        p = head + axes @ np.array(offset)
        c = camera.to_camera(p)
        u, v = camera.pixel(p) * k - np.array(origin)
        iu, iv = int(u), int(v)
        if not (0 <= iv < depth.shape[0] and 0 <= iu < depth.shape[1]):
            continue
        facing = (camera.r @ axes @ np.array(offset) / np.linalg.norm(offset))[2]
        if facing < 0.25 or c[2] < depth[iv, iu] - 0.02:
            continue
        r = max(1, int(round(radius * camera.scale * k)))
        sx = max(1, int(round(r * max(facing, 0.3))))
        wide = (sx * 2, r) if offset[1] > 0.02 else ((sx * 2, max(1, r // 2)) if offset[1] < 0 else (sx, r))
        cv2.ellipse(colour, (iu, iv), wide, 0, 0, 360, tuple(float(x) for x in rgb), -1, cv2.LINE_AA)


def draw(background: np.ndarray, pose: Pose, figure: Figure, place, camera: Camera) -> tuple[np.ndarray, np.ndarray]:
    """The frame: ``background`` with the figure and its shadow; and the figure's 17 keypoints
    (x, y in pixels, visibility 1) in MoveNet's order."""
    size = (background.shape[1], background.shape[0])
    parts, joints = body(pose, figure, np.asarray(place, float))
    colour, cover, depth, (x0, y0) = render(parts, camera, size)
    _paint_face(colour, depth, (x0, y0), joints, camera)
    frame = background.astype(np.float32)
    # the shadow: a dark blurred ellipse under the body on the ground
    pts = np.array([v for k, v in joints.items() if not k.endswith("axes")])
    ground_pts = pts.copy()
    ground_pts[:, 1] = 0
    g = camera.pixel(ground_pts)
    cx, cy = g[:, 0].mean(), g[:, 1].mean()
    half = max(10.0, (g[:, 0].max() - g[:, 0].min()) / 2 + 0.08 * camera.scale)
    shadow = np.zeros(frame.shape[:2], np.float32)
    cv2.ellipse(shadow, (int(cx), int(cy)), (int(half), int(0.05 * camera.scale)), 0, 0, 360, 1.0, -1, cv2.LINE_AA)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 0.03 * camera.scale)
    frame *= 1 - 0.45 * shadow[..., None]
    # the figure, shrunk from the supersampled drawing
    k = SUPERSAMPLE
    if x0 % k:
        colour, cover = np.pad(colour, ((0, 0), (x0 % k, 0), (0, 0))), np.pad(cover, ((0, 0), (x0 % k, 0)))
        x0 -= x0 % k
    if y0 % k:
        colour, cover = np.pad(colour, ((y0 % k, 0), (0, 0), (0, 0))), np.pad(cover, ((y0 % k, 0), (0, 0)))
        y0 -= y0 % k
    h, w = cover.shape
    pad_h, pad_w = (-h) % k, (-w) % k
    colour = np.pad(colour, ((0, pad_h), (0, pad_w), (0, 0)))
    cover = np.pad(cover, ((0, pad_h), (0, pad_w)))
    small = colour.reshape(colour.shape[0] // k, k, colour.shape[1] // k, k, 3).mean((1, 3))
    alpha = cover.reshape(cover.shape[0] // k, k, cover.shape[1] // k, k).mean((1, 3))
    fy, fx = y0 // k, x0 // k
    hh, ww = min(alpha.shape[0], frame.shape[0] - fy), min(alpha.shape[1], frame.shape[1] - fx)
    a = alpha[:hh, :ww, None]
    region = frame[fy:fy + hh, fx:fx + ww]
    region[:] = region * (1 - a) + small[:hh, :ww]  # colour is premultiplied by coverage (black elsewhere)
    keypoints = keypoints_of(joints, camera)
    return np.clip(frame, 0, 255).astype(np.uint8), keypoints


# The figure's joints for MoveNet's 17 keypoints (KEYPOINTS' order); the face's from the head.
FACE = {"nose": (0.0, -0.005, 0.066), "left_eye": (0.019, 0.012, 0.05), "right_eye": (-0.019, 0.012, 0.05),
        "left_ear": (0.052, 0.0, 0.0), "right_ear": (-0.052, 0.0, 0.0)}
BODY = ("l_shoulder", "r_shoulder", "l_elbow", "r_elbow", "l_wrist", "r_wrist", "l_hip", "r_hip", "l_knee", "r_knee",
        "l_ankle", "r_ankle")


def keypoints_of(joints: dict[str, np.ndarray], camera: Camera) -> np.ndarray:
    pts = [joints["head"] + joints["head_axes"] @ np.array(v) for v in FACE.values()]
    pts += [joints[k] for k in BODY]
    xy = camera.pixel(np.array(pts))
    return np.column_stack([xy, np.ones(len(xy))]).astype(np.float32)


# ------------------------------------------------------------------------------------------- scenery


def scenery(name: str, size: tuple[int, int] = SIZE, width: int | None = None, floor: float = 0.62,
            tint=(150, 140, 120), crop: tuple[float, float, float, float] | None = None) -> np.ndarray:
    """A background ``width`` pixels wide (the frame's by default; wider for a camera that pans):
    the photograph ``name`` (tests/caption_set.photo; ``crop``: x0, y0, x1, y1 as fractions of it)
    scaled to fill the frame's height, mirrored side by side as far as needed, blurred a little (out
    of focus behind the figure); from ``floor`` of the height down a floor of scikit-image's gravel,
    tinted ``tint``."""
    import skimage.data

    from caption_set import photo

    w, h = size
    width = width or w
    image = photo(name)
    if crop is not None:
        ih, iw = image.shape[:2]
        image = image[int(crop[1] * ih):int(crop[3] * ih), int(crop[0] * iw):int(crop[2] * iw)]
    ih, iw = image.shape[:2]
    scale = max(w / iw, h / ih)
    image = cv2.resize(image, (int(np.ceil(iw * scale)), int(np.ceil(ih * scale))), interpolation=cv2.INTER_AREA)
    top = (image.shape[0] - h) // 2
    image = image[top:top + h]
    tiles = [image if k % 2 == 0 else image[:, ::-1] for k in range(width // image.shape[1] + 1)]
    wide = np.concatenate(tiles, 1)
    left = (min(wide.shape[1], max(width, image.shape[1])) - width) // 2
    frame = cv2.GaussianBlur(wide[:, left:left + width].astype(np.float32), (0, 0), 1.2)
    y = int(floor * h)
    texture = skimage.data.gravel().astype(np.float32) / 255
    texture = cv2.resize(texture, (512, h - y), interpolation=cv2.INTER_AREA)
    texture = np.concatenate([texture if k % 2 == 0 else texture[:, ::-1] for k in range(width // 512 + 1)], 1)
    ramp = np.linspace(0.75, 1.1, h - y)[:, None, None]
    ground = (0.6 + 0.5 * texture[:, :width, None]) * np.array(tint, np.float32) * ramp
    blend = np.clip((np.arange(h) - y + 6) / 12, 0, 1)[:, None, None]
    full = np.zeros_like(frame)
    full[y:] = ground
    return np.clip(frame * (1 - blend) + full * blend, 0, 255).astype(np.uint8)


# ------------------------------------------------------------------------------------------- clips


@dataclass(frozen=True, eq=False)  # eq on arrays would be ambiguous
class PoseClip:
    """A clip and its truth. Times are seconds from the first frame."""

    path: Path
    fps: float
    size: tuple[int, int]
    times: np.ndarray  # of every frame
    truth: tuple[tuple[float, float, str], ...]  # (start, end, status), end to end
    keypoints: np.ndarray  # float32 [frames, 17, 3]: the figure's true keypoints (x, y, 1)
    height: float  # the standing figure's height, pixels

    @property
    def duration(self) -> float:
        return float(len(self.times) / self.fps)

    @property
    def changes(self) -> list[tuple[float, str, str]]:
        """(time, before, after) of every change of status."""
        return [(b[0], a[2], b[2]) for a, b in zip(self.truth, self.truth[1:])]

    def status_at(self, t: float) -> str:
        return next((s for a, b, s in self.truth if a <= t < b), self.truth[-1][2])


Script = Callable[[float], tuple[Pose, tuple[float, float], float]]  # t -> pose, (x, z), camera's x0 (pixels)


def _smooth(a: float) -> float:
    a = float(np.clip(a, 0, 1))
    return a * a * (3 - 2 * a)


def _holds(t: float, steps: Sequence[tuple[Pose, float]], move: float) -> Pose:
    """Poses held in turn, each for its seconds, ``move`` seconds from one to the next between them."""
    start = 0.0
    for k, (pose, hold) in enumerate(steps):
        end = start + hold
        if t < end or k == len(steps) - 1:
            return pose
        if t < end + move:
            return pose.mix(steps[k + 1][0], _smooth((t - end) / move))
        start = end + move
    return steps[-1][0]


def _truth_of(steps: Sequence[tuple[str, float]], move: float) -> tuple[tuple[float, float, str], ...]:
    """Segments of ``steps`` (status, seconds held), each change half-way through the move."""
    out, start, t = [], 0.0, 0.0
    for k, (status, hold) in enumerate(steps):
        t += hold
        end = t + move / 2 if k < len(steps) - 1 else t
        out.append((start, end, status))
        start, t = end, t + move
    return tuple(out)


def _idle(t: float, seed: int) -> Pose:
    """A person standing is never quite still: a slow sway of the trunk and arms."""
    return Pose(lean=1.2 * np.sin(0.9 * t + seed), l_shoulder=3 * np.sin(1.3 * t + seed),
                r_shoulder=3 * np.sin(1.1 * t + 2 * seed), head=3 * np.sin(0.7 * t + seed))


def _add(a: Pose, b: Pose) -> Pose:
    base = Pose()
    return Pose(**{f.name: getattr(a, f.name) + getattr(b, f.name) - getattr(base, f.name) for f in fields(a)})


def render_clip(directory: Path, name: str, seconds: float, script: Script, truth, background: np.ndarray,
                figure: Figure, ground: float = 0.9, fps: float = FPS, size: tuple[int, int] = SIZE) -> PoseClip:
    """Draw and encode a clip: at each frame ``script`` poses the figure and places the camera; the
    background scrolls with the camera (it is ``background``'s width wide)."""
    n = int(round(seconds * fps))
    times = np.arange(n) / fps
    w, h = size
    keypoints = np.zeros((n, 17, 3), np.float32)

    def frames():
        for i, t in enumerate(times):
            pose, place, x0 = script(float(t))
            scroll = int(round(np.clip(-x0, 0, background.shape[1] - w)))
            camera = Camera(figure.height, ground * h, x0)
            frame, kps = draw(background[:, scroll:scroll + w], pose, figure, place, camera)
            keypoints[i] = kps
            yield frame

    path = Path(directory) / f"{name}.mp4"
    encode_frames(path, frames(), fps, options={"crf": "20", "preset": "veryfast"}, gop=int(fps * 2))
    return PoseClip(path, float(fps), tuple(size), times, tuple(truth), keypoints, figure.height)


def make_walk_run(directory: Path, walk: float = 4.0, change: float = 0.6, run: float = 4.0) -> PoseClip:
    """A tracking shot before the Summer Palace: the figure walks to the right (three quarters turned
    away from the camera's axis), then breaks into a run; the camera pans after it, so on the screen
    it drifts slowly right while the ground slides by."""
    seconds = walk + change + run
    figure = Figure(175, shirt=(40, 120, 150), trousers=(60, 58, 66))
    ts = np.arange(0, seconds + 0.01, 0.01)
    blend = np.array([_smooth((t - walk) / change) for t in ts])
    period = WALK_PERIOD + blend * (RUN_PERIOD - WALK_PERIOD)
    stride = WALK_STRIDE + blend * (RUN_STRIDE - WALK_STRIDE)
    cycles = np.concatenate([[0.0], np.cumsum(0.01 / period[:-1])])
    x = 1.0 + np.concatenate([[0.0], np.cumsum(0.01 * stride[:-1] / period[:-1])])
    on_screen = np.linspace(0.3, 0.65, len(ts)) * SIZE[0]
    background = scenery("china", width=SIZE[0] + int(figure.height * x[-1]) + 8)

    def script(t):
        i = min(int(round(t * 100)), len(ts) - 1)
        pose = replace(gait(cycles[i], blend[i]), yaw=75)
        return pose, (x[i], 0.0), on_screen[i] - figure.height * x[i]

    truth = _truth_of([("walking", walk), ("running", run)], change)
    return render_clip(directory, "walk-run", seconds, script, truth, background, figure)


def make_stand_walk(directory: Path, stand: float = 2.5, walk: float = 3.0, stop: float = 2.0,
                    change: float = 0.5) -> PoseClip:
    """A fixed camera in the garage of the motorcycle: the figure stands (turned a little to the
    right), turns and walks to the right across the picture, and stops."""
    seconds = stand + walk + stop + 2 * change
    figure = Figure(165, shirt=(200, 170, 60), trousers=(50, 50, 55))
    ts = np.arange(0, seconds + 0.01, 0.01)
    going = np.array([_smooth((t - stand) / change) * (1 - _smooth((t - stand - change - walk) / change))
                      for t in ts])
    cycles = np.concatenate([[0.0], np.cumsum(0.01 * going[:-1] / WALK_PERIOD)])
    x = 0.5 + np.concatenate([[0.0], np.cumsum(0.01 * going[:-1] * WALK_STRIDE / WALK_PERIOD)])
    background = scenery("motorcycle", floor=0.64, tint=(135, 128, 118))

    def script(t):
        i = min(int(round(t * 100)), len(ts) - 1)
        idle = _add(replace(STANDING, yaw=25), _idle(t, 1))
        pose = idle.mix(replace(gait(cycles[i]), yaw=70), going[i])
        return pose, (x[i], 0.0), 0.0

    truth = _truth_of([("standing", stand), ("walking", walk), ("standing", stop)], change)
    return render_clip(directory, "stand-walk", seconds, script, truth, background, figure)


def _posture_clip(directory: Path, name: str, steps: Sequence[tuple[str, Pose, float]], change: float,
                  background: np.ndarray, figure: Figure, x: float, seed: int = 0) -> PoseClip:
    seconds = sum(hold for _, _, hold in steps) + change * (len(steps) - 1)

    def script(t):
        pose = _holds(t, [(pose, hold) for _, pose, hold in steps], change)
        return _add(pose, _idle(t, seed)), (x, 0.0), 0.0

    truth = _truth_of([(status, hold) for status, _, hold in steps], change)
    return render_clip(directory, name, seconds, script, truth, background, figure)


def make_stand_sit(directory: Path) -> PoseClip:
    """By the coffee: the figure stands before a pouf, sits down on it, and stands up again."""
    top, x = 0.215, SIZE[0] / 2 / 200  # the pouf's top: the sitting pose's pelvis less the buttocks
    figure = Figure(200, shirt=(170, 45, 50), trousers=(50, 66, 110), seat=(top, x, -0.12))
    steps = [("standing", replace(STANDING, yaw=35), 3.0), ("sitting", replace(SITTING, yaw=35), 3.0),
             ("standing", replace(STANDING, yaw=35), 2.0)]
    return _posture_clip(directory, "stand-sit", steps, 1.0, scenery("coffee", tint=(140, 120, 100)), figure,
                         x=x, seed=2)


def make_stand_lie(directory: Path) -> PoseClip:
    """At the launch pad: the figure stands, then lies down on its back, turning side-on."""
    figure = Figure(180, shirt=(90, 130, 60), trousers=(70, 60, 50))
    steps = [("standing", replace(STANDING, yaw=45), 3.0), ("lying", replace(LYING, yaw=95), 4.0)]
    background = scenery("rocket", floor=0.6)
    return _posture_clip(directory, "stand-lie", steps, 1.2, background, figure, x=1.9, seed=3)


def make_arms_raised(directory: Path) -> PoseClip:
    """Before the astronaut's flag and shuttle (the photograph's right, without her): the figure
    stands, raises both arms over its head, and lowers them."""
    figure = Figure(190, shirt=(230, 230, 225), trousers=(40, 40, 60))
    steps = [("standing", replace(STANDING, yaw=20), 3.0), ("arms raised", replace(ARMS_UP, yaw=20), 3.0),
             ("standing", replace(STANDING, yaw=20), 2.0)]
    background = scenery("astronaut", crop=(0.72, 0.0, 1.0, 0.55), tint=(120, 130, 110))
    return _posture_clip(directory, "arms-raised", steps, 0.8, background, figure, x=SIZE[0] / 2 / 190, seed=4)


def make_stand_bend(directory: Path) -> PoseClip:
    """In front of the Summer Palace: the figure stands, bends forward (to pick something up), and
    straightens again."""
    figure = Figure(190, shirt=(120, 60, 140), trousers=(60, 80, 60))
    steps = [("standing", replace(STANDING, yaw=45), 3.0), ("bending", replace(BENDING, yaw=45), 3.0),
             ("standing", replace(STANDING, yaw=45), 2.0)]
    return _posture_clip(directory, "stand-bend", steps, 1.0, scenery("china", tint=(150, 150, 130)), figure,
                         x=SIZE[0] / 2 / 190, seed=5)


# The photograph behind the figure in each clip (``scenery``): what else a caption may say is there.
PHOTOS = {"walk-run": "china", "stand-walk": "motorcycle", "stand-sit": "coffee", "stand-lie": "rocket",
          "arms-raised": "astronaut", "stand-bend": "china"}

CLIPS: dict[str, Callable[[Path], PoseClip]] = {
    "walk-run": make_walk_run,
    "stand-walk": make_stand_walk,
    "stand-sit": make_stand_sit,
    "stand-lie": make_stand_lie,
    "arms-raised": make_arms_raised,
    "stand-bend": make_stand_bend,
}


# ------------------------------------------------------------------------------------------- reading back


def read_people(engine, clip: PoseClip, rate: float = 5.0) -> tuple[np.ndarray, list[np.ndarray | None], list[float]]:
    """The clip read as the app reads it (videoreview.media's FrameSource, ``rate`` frames a second),
    the one person's keypoints at each sample (the most confident person; None where MoveNet found
    nobody) and the milliseconds each ``engine.people`` took."""
    import time

    from videoreview.media.source import open_video

    times, keypoints, ms = [], [], []
    with open_video(clip.path) as source:
        for batch in source.sample(rate):
            for t, frame in zip(batch.times, batch.frames):
                start = time.perf_counter()
                people = engine.people(frame)
                ms.append(1000 * (time.perf_counter() - start))
                times.append(float(t))
                keypoints.append(people[0].keypoints if people else None)
    return np.array(times), keypoints, ms


def true_keypoints(clip: PoseClip, times: Sequence[float]) -> list[np.ndarray]:
    """The figure's drawn keypoints at the frames of ``times``."""
    return [clip.keypoints[min(len(clip.keypoints) - 1, int(round(t * clip.fps)))] for t in times]


def runs(times: Sequence[float], statuses: Sequence[str | None]) -> list[tuple[float, float, str | None]]:
    """(first, last sample's time, status) of each run of one status."""
    out: list[list] = []
    for t, s in zip(times, statuses):
        if out and out[-1][2] == s:
            out[-1][1] = float(t)
        else:
            out.append([float(t), float(t), s])
    return [tuple(r) for r in out]
