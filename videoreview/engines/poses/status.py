"""A person's status from their body keypoints, in numpy: posture in a frame, motion over a track,
and the moments the status changes.

    posture(keypoints)                          # "standing", "sitting", "lying", "bending", "arms raised", None
    statuses(times, keypoints_per_time)         # + "walking", "running"; smoothed over ~1 s
    status_changes(times, statuses, 1.0)        # [(time, "walking", "running"), ...]

The keypoints are MoveNet's (engines/poses/movenet.py, decode.KEYPOINTS): float [17, 3] of x, y
in the frame's pixels (y down) and a score; points scoring under MIN_SCORE (0.3, MoveNet's own
suggested threshold) are left out. Every length is measured in the person's body height H, so
the rules hold at any scale; H comes from the segments least often foreshortened (see
``body_height``).

Posture, one frame (``posture``). "Measured" below is the range over the samples of the test
clips (tests/pose_clips.py, 5 a second, the second either side of a change left out), first on the
figure's drawn joints, then on MoveNet's keypoints of the same frames:

* the trunk: the middle of the hips to the middle of the shoulders, its tilt from upright;
* bending: the trunk tilted TRUNK_BENT = 40 degrees or more over upright legs: the hips above the
  ankles by LEGS_UPRIGHT_SPAN = 0.25 H or more and the hips-to-ankles line within
  LEGS_UPRIGHT_ANGLE = 35 degrees of vertical (measured: standing and walking spans 0.36 to 0.49 H,
  lines 0 to 16 degrees; bending 0.45 to 0.48 H, 2 to 6 degrees). Walkers lean about 5 degrees,
  runners 10 to 20 (measured up to 14, one walking sample of MoveNet's at 30), people reaching
  down 60 to 90 (measured 78 to 89). Where the legs are not seen, arms hanging ARMS_HANG = 0.2 H or
  more below their shoulders say the trunk is held up (measured 0.31 to 0.59 H bending): MoveNet
  scored the legs of the bent-over figure under 0.3 (0.1 to 0.29) in a third of its samples. Also
  bending: an upright-looking trunk foreshortened to under TRUNK_SHORT = 0.6 of its length (it
  leans 53 degrees or more towards the camera or away) over upright legs (measured: standing
  0.27 to 0.29 H against 0.29 H expected, bending at 45 degrees from the camera's axis 0.20 to 0.21);
* lying: the trunk tilted TRUNK_LYING = 60 degrees or more, not over upright legs (measured 82 to
  92 degrees, the hips level with the ankles: spans -0.10 to -0.03 H);
* sitting: the trunk under TRUNK_BENT and the thighs near level: the knees on average at most
  THIGH_DROP_SITTING = 0.14 H below the hips. A thigh is 0.245 H, so a level thigh drops 0, one
  55 degrees from vertical 0.14 H, a standing one 0.245 H; a thigh pointing at the camera looks
  short too, so sitting facing the camera counts. Measured: seated 0.04 drawn but 0.11 to 0.12 by
  MoveNet (a camera looking down shows the knees lower), standing and walking 0.20 to 0.27,
  running 0.16 to 0.23 (the mean of a thigh lifted 65 degrees and one 25 degrees back is 0.16);
* standing: the trunk under TRUNK_BENT, the thighs not level; "arms raised" instead when both
  wrists are ARMS_ABOVE = 0.05 H or more above their shoulders, or one is HAND_OVER_HEAD = 0.1 H
  or more above the face's highest point (measured: arms up 0.22 to 0.29 H above the shoulders,
  down 0.15 to 0.36 H below). A seated person with their arms up is sitting: the body's posture
  is the larger change;
* None when the shoulders or the hips are not seen, where standing and sitting cannot be told
  apart (no knee seen) and the arms are down, or the trunk between TRUNK_BENT and TRUNK_LYING
  over legs neither upright nor seated (a body on its way down).

Motion, over a track (``statuses``), where the posture is standing or arms raised; each sample
looks at the track's samples within MOTION_WINDOW = 1 s around it (5 or 6 samples at 5 a second):

* speed: the slope of a straight line through the hips' x (the ankles' where no hip is seen), in
  H per second. People walk at 0.5 to 1.3 H/s (0.9 to 2.2 m/s for 1.75 m) and run at 1.4 H/s and
  more (2.5 m/s, a slow jog, and up): WALK_SPEED = 0.3 H/s, RUN_SPEED = 1.4 H/s. Measured: the
  walker before a fixed camera 0.76 drawn, 0.63 to 0.72 by MoveNet; standing still at most 0.03;
  a camera that follows the person leaves no speed in the frame (0.12 to 0.17 for the walking and
  running figure of the tracking shot), whence the swing;
* leg swing: how fast the ankles' horizontal separation (left ankle's x minus right's, in H)
  changes: its total variation over the window per second. In profile the separation swings
  between plus and minus a step, so it changes by 4 steps a stride: a walker's steps of 0.35 to
  0.45 H at 0.9 to 1 strides a second make 1.3 to 1.8 H/s, a jogger's of 0.6 to 0.8 H at 1.3 to
  1.5 strides 3 to 5 H/s (less sampled at 5 a second). WALK_SWING = 0.5 H/s, RUN_SWING = 2.0 H/s.
  Measured: standing still 0 to 0.12 (MoveNet's jitter), walking 0.86 to 1.6 drawn and 0.45 to
  1.4 by MoveNet, running 2.5 to 3.4 and 2.2 to 3.2. It shrinks as the person turns to face the
  camera (the legs swing along the line of sight: a runner coming straight at the camera may look
  like a walker or nobody moving, unless the camera is fixed and they cross it), and a brisk
  walker's long steps (0.5 H at 1.05 strides a second) reach 2.2 H/s in a sample or two.

Moving when the speed or the swing is over its walking threshold; running when the speed is
over RUN_SPEED or the swing over RUN_SWING; else walking. How high the heels kick was tried as a
third sign (a runner's 0.25 to 0.4 H, a walker's 0.1 to 0.15 H): MoveNet, at 5 frames a second,
put the running figure's ankles at most 0.12 H above each other, no more than when it walked.

Smoothing: each sample's status is the most common among the samples within SMOOTH_WINDOW = 1 s
around it (a tie keeps the sample's own, else the one before), so one odd frame (a knee misplaced,
a person missed) does not flip it; samples with no status take the one before. ``status_changes``
then drops the runs shorter than ``min_duration`` (1 s: the shortest status a caption should
name; a single odd sample lasts 0.2 s) and puts each change half-way between the last sample of a
status and the first of the next.

Segment lengths and gait figures: Drillis and Contini's body segment proportions; walking and
running speeds, cadences and step lengths as in gait textbooks. On the test clips (a drawn figure
walking then running, standing then walking, sitting, lying, raising its arms, bending: ten true
changes) MoveNet's keypoints give every change with the right statuses, each within 0.4 s, boundary
F1 1.0 at 0.5 s and more (benchmarks/bench_poses.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

MIN_SCORE = 0.3  # MoveNet's suggested keypoint threshold

NOSE, L_EYE, R_EYE, L_EAR, R_EAR = 0, 1, 2, 3, 4
L_SHOULDER, R_SHOULDER, L_ELBOW, R_ELBOW, L_WRIST, R_WRIST = 5, 6, 7, 8, 9, 10
L_HIP, R_HIP, L_KNEE, R_KNEE, L_ANKLE, R_ANKLE = 11, 12, 13, 14, 15, 16
FACE = (NOSE, L_EYE, R_EYE, L_EAR, R_EAR)

# Segment lengths as fractions of body height (Drillis and Contini, 1966): the middle of the
# shoulders to the middle of the hip joints 0.29 (shoulder height 0.818 H, hip joint 0.530 H),
# thigh 0.245, shin 0.246.
TRUNK, THIGH, SHIN = 0.29, 0.245, 0.246

TRUNK_BENT = 40.0  # degrees from upright: bending (or on the way down) from here
TRUNK_LYING = 60.0  # degrees: lying from here unless the legs stand
TRUNK_SHORT = 0.6  # of its length: a trunk this short over upright legs leans 53 degrees or more at the camera
LEGS_UPRIGHT_SPAN = 0.25  # H the hips stand above the ankles on upright legs (0.45 H and more standing)
LEGS_UPRIGHT_ANGLE = 35.0  # degrees from vertical of the hip-to-ankle line on upright legs
THIGH_DROP_SITTING = 0.14  # H: knees at most this far below the hips, on average, when seated
ARMS_ABOVE = 0.05  # H: both wrists this far above their shoulders
HAND_OVER_HEAD = 0.10  # H: one wrist this far above the face's highest point
ARMS_HANG = 0.2  # H: a wrist this far below its shoulder hangs (a body bent over, legs unseen)

MOTION_WINDOW = 1.0  # s around each sample for the speed and the swing
WALK_SPEED, RUN_SPEED = 0.3, 1.4  # H per second
WALK_SWING, RUN_SWING = 0.5, 2.0  # H per second of change in the ankles' separation
SMOOTH_WINDOW = 1.0  # s: the majority over this window

UPRIGHT = ("standing", "arms raised")


def _seen(keypoints: np.ndarray, min_score: float) -> np.ndarray:
    return np.asarray(keypoints)[:, 2] >= min_score


def _mid(kps: np.ndarray, seen: np.ndarray, *which: int) -> np.ndarray | None:
    """The mean of the points among ``which`` that are seen, None if none is."""
    idx = [i for i in which if seen[i]]
    return kps[idx, :2].mean(0) if idx else None


def body_height(keypoints: np.ndarray, min_score: float = MIN_SCORE) -> float | None:
    """The person's height in pixels, from the segments seen: the trunk, and each leg (thigh and
    shin together, or either alone), each over its share of the height; the largest, since a
    segment turned towards the camera only looks shorter. None without both a shoulder and a hip."""
    kps = np.asarray(keypoints, np.float64)
    seen = _seen(kps, min_score)
    shoulders, hips = _mid(kps, seen, L_SHOULDER, R_SHOULDER), _mid(kps, seen, L_HIP, R_HIP)
    if shoulders is None or hips is None:
        return None
    estimates = [np.linalg.norm(shoulders - hips) / TRUNK]
    for hip, knee, ankle in ((L_HIP, L_KNEE, L_ANKLE), (R_HIP, R_KNEE, R_ANKLE)):
        thigh = np.linalg.norm(kps[hip, :2] - kps[knee, :2]) if seen[hip] and seen[knee] else None
        shin = np.linalg.norm(kps[knee, :2] - kps[ankle, :2]) if seen[knee] and seen[ankle] else None
        if thigh is not None and shin is not None:
            estimates.append((thigh + shin) / (THIGH + SHIN))  # the leg along the knee: bending it changes nothing
        elif thigh is not None:
            estimates.append(thigh / THIGH)
        elif shin is not None:
            estimates.append(shin / SHIN)
    height = float(max(estimates))
    return height if height > 0 else None


def arms_raised(keypoints: np.ndarray, min_score: float = MIN_SCORE, height: float | None = None) -> bool:
    """Both wrists above their shoulders, or one well above the head (an upright body's)."""
    kps = np.asarray(keypoints, np.float64)
    seen = _seen(kps, min_score)
    height = height or body_height(kps, min_score)
    if not height:
        return False
    both = all(seen[w] and seen[s] and kps[s, 1] - kps[w, 1] >= ARMS_ABOVE * height
               for w, s in ((L_WRIST, L_SHOULDER), (R_WRIST, R_SHOULDER)))
    if both:
        return True
    face = [i for i in FACE if seen[i]]
    if not face:
        return False
    top = kps[face, 1].min()
    return any(seen[w] and top - kps[w, 1] >= HAND_OVER_HEAD * height for w in (L_WRIST, R_WRIST))


def _arms_hang(kps: np.ndarray, seen: np.ndarray, height: float) -> bool:
    """A wrist ARMS_HANG below its shoulder: the arm hangs, so the trunk is held up, not lying."""
    return any(seen[w] and seen[s] and kps[w, 1] - kps[s, 1] >= ARMS_HANG * height
               for w, s in ((L_WRIST, L_SHOULDER), (R_WRIST, R_SHOULDER)))


def posture(keypoints: np.ndarray, min_score: float = MIN_SCORE) -> str | None:
    """One person's posture in one frame: "lying", "bending", "sitting", "arms raised",
    "standing", or None when the points seen do not tell (the module's docstring has the rules)."""
    kps = np.asarray(keypoints, np.float64)
    seen = _seen(kps, min_score)
    shoulders, hips = _mid(kps, seen, L_SHOULDER, R_SHOULDER), _mid(kps, seen, L_HIP, R_HIP)
    height = body_height(kps, min_score)
    if shoulders is None or hips is None or not height:
        return None
    trunk = shoulders - hips
    tilt = float(np.degrees(np.arctan2(abs(trunk[0]), -trunk[1])))  # 0 upright, 90 level, 180 upside down
    ankles = _mid(kps, seen, L_ANKLE, R_ANKLE)
    knees = _mid(kps, seen, L_KNEE, R_KNEE)
    feet = ankles if ankles is not None else knees
    legs_upright = None
    if feet is not None:
        leg = feet - hips
        span = leg[1] / height  # how far the hips stand above the feet (y down)
        if ankles is None:
            span *= (THIGH + SHIN) / THIGH  # knees only: as if the shins went on the same way
        angle = float(np.degrees(np.arctan2(abs(leg[0]), leg[1])))
        legs_upright = span >= LEGS_UPRIGHT_SPAN and angle <= LEGS_UPRIGHT_ANGLE
    drops = [(kps[k, 1] - kps[h, 1]) / height for h, k in ((L_HIP, L_KNEE), (R_HIP, R_KNEE)) if seen[h] and seen[k]]
    seated = bool(drops) and float(np.mean(drops)) <= THIGH_DROP_SITTING
    if tilt >= TRUNK_BENT:
        if legs_upright or (legs_upright is None and _arms_hang(kps, seen, height)):
            return "bending"
        if tilt >= TRUNK_LYING:
            return "lying"
        return "sitting" if seated else None
    if seated:
        return "sitting"
    if legs_upright and np.linalg.norm(trunk) < TRUNK_SHORT * TRUNK * height:
        return "bending"  # towards the camera or away: the trunk foreshortened over standing legs
    if arms_raised(kps, min_score, height):
        return "arms raised"
    if not drops:
        return None  # no knee: standing or sitting cannot be told
    return "standing"


def _window(times: np.ndarray, i: int, width: float) -> np.ndarray:
    return np.flatnonzero(np.abs(times - times[i]) <= width / 2 + 1e-9)


def motion(times: Sequence[float], keypoints: Sequence[np.ndarray | None], min_score: float = MIN_SCORE
           ) -> np.ndarray:
    """Per sample: speed and leg swing (both in H per second) over MOTION_WINDOW, NaN where they
    cannot be measured. ``keypoints`` may hold None where the person was not seen."""
    t = np.asarray(times, np.float64)
    n = len(t)
    height = np.full(n, np.nan)
    x = np.full(n, np.nan)  # hips' x, else ankles'
    apart = np.full(n, np.nan)  # left ankle's x minus right's
    for i, kps in enumerate(keypoints):
        if kps is None:
            continue
        kps = np.asarray(kps, np.float64)
        seen = _seen(kps, min_score)
        h = body_height(kps, min_score)
        if not h:
            continue
        height[i] = h
        centre = _mid(kps, seen, L_HIP, R_HIP)
        if centre is None:
            centre = _mid(kps, seen, L_ANKLE, R_ANKLE)
        if centre is not None:
            x[i] = centre[0]
        if seen[L_ANKLE] and seen[R_ANKLE]:
            apart[i] = kps[L_ANKLE, 0] - kps[R_ANKLE, 0]
    out = np.full((n, 2), np.nan)
    for i in range(n):
        w = _window(t, i, MOTION_WINDOW)
        if not np.isfinite(height[w]).any():
            continue
        scale = np.nanmedian(height[w])
        ok = w[np.isfinite(x[w])]
        if len(ok) >= 3 and np.ptp(t[ok]) > 0:
            out[i, 0] = abs(np.polyfit(t[ok], x[ok], 1)[0]) / scale
        ok = w[np.isfinite(apart[w])]
        if len(ok) >= 3 and np.ptp(t[ok]) > 0:
            out[i, 1] = np.abs(np.diff(apart[ok])).sum() / np.ptp(t[ok]) / scale
    return out


def gait(speed: float, swing: float) -> str | None:
    """ "walking", "running" or None (not moving) from ``motion``'s two numbers (NaN: not known)."""
    speed, swing = np.nan_to_num(speed, nan=0.0), np.nan_to_num(swing, nan=0.0)
    if speed >= RUN_SPEED or swing >= RUN_SWING:
        return "running"
    if speed >= WALK_SPEED or swing >= WALK_SWING:
        return "walking"
    return None


def statuses(track_times: Sequence[float], track_keypoints: Sequence[np.ndarray | None],
             min_score: float = MIN_SCORE, smooth: float = SMOOTH_WINDOW) -> list[str | None]:
    """A person's status at each sample of their track: the posture, "walking" or "running" in place
    of standing (or arms raised) while they move, the most common over ``smooth`` seconds; None
    only where no sample of the track tells anything (nothing before it to carry on)."""
    t = np.asarray(track_times, np.float64)
    raw: list[str | None] = [posture(k, min_score) if k is not None else None for k in track_keypoints]
    moves = motion(t, track_keypoints, min_score)
    for i, status in enumerate(raw):
        if status in UPRIGHT:
            raw[i] = gait(*moves[i]) or status
    out: list[str | None] = []
    for i in range(len(t)):
        votes = Counter(raw[j] for j in _window(t, i, smooth) if raw[j] is not None)
        if votes:
            best = max(votes.values())
            # a tie: keep what the sample itself says, else what came before, else the first seen
            tied = [s for s, c in votes.items() if c == best]
            if raw[i] in tied:
                out.append(raw[i])
            elif out and out[-1] in tied:
                out.append(out[-1])
            else:
                out.append(tied[0])
        else:
            out.append(out[-1] if out else None)
    first = next((s for s in out if s is not None), None)
    return [s if s is not None else first for s in out]


def status_changes(times: Sequence[float], statuses: Sequence[str | None], min_duration: float = 1.0
                   ) -> list[tuple[float, str, str]]:
    """The moments a status gives way to another: (time, before, after), the time half-way
    between the last sample of the one and the first of the other. Runs lasting less than
    ``min_duration`` seconds (first sample to the next run's first) are dropped first, the
    shortest first, their samples given to the runs around them; samples with no status are
    skipped."""
    pairs = [(float(t), s) for t, s in zip(times, statuses) if s is not None]
    if not pairs:
        return []
    runs: list[list] = []  # [status, first time, last time]
    for t, s in pairs:
        if runs and runs[-1][0] == s:
            runs[-1][2] = t
        else:
            runs.append([s, t, t])

    def length(k: int) -> float:
        end = runs[k + 1][1] if k + 1 < len(runs) else runs[k][2]
        start = runs[k][1] if k > 0 else runs[k][1]
        return end - start

    while len(runs) > 1:
        inner = [k for k in range(len(runs)) if length(k) < min_duration]
        if not inner:
            break
        k = min(inner, key=length)
        if 0 < k < len(runs) - 1 and runs[k - 1][0] == runs[k + 1][0]:
            runs[k - 1][2] = runs[k + 1][2]  # A, b, A: one run of A
            del runs[k:k + 2]
        elif k == 0:
            runs[1][1] = runs[0][1]
            del runs[0]
        elif k == len(runs) - 1:
            runs[-2][2] = runs[-1][2]
            del runs[-1]
        else:  # A, b, C: b's time split between them
            middle = (runs[k][1] + runs[k][2]) / 2
            before = [t for t, _ in pairs if runs[k][1] <= t <= middle]
            after = [t for t, _ in pairs if middle < t <= runs[k][2]]
            runs[k - 1][2] = before[-1] if before else runs[k - 1][2]
            runs[k + 1][1] = after[0] if after else runs[k + 1][1]
            del runs[k]
    return [((a[2] + b[1]) / 2, a[0], b[0]) for a, b in zip(runs, runs[1:])]
