"""Small deterministic test videos with known ground truth.

Every ``make_*`` function writes one file into the directory it is given and returns a
:class:`SyntheticVideo`: the path plus what is true about the file (frame times, cut
times, events, rotation, ...). Two ways of making them:

* the ``ffmpeg`` CLI with lavfi sources (testsrc2, mandelbrot, gradients, ...) for shots
  that look like real footage with motion (cuts, dissolves, long benchmark files);
* frames drawn with numpy/OpenCV and encoded with PyAV, where exact per-frame control is
  needed (index-coded frames, variable frame rate, rotation, AVI with dropped frames).

Index-coded frames (:func:`index_frame`) carry their own frame number as a 12-bit
black/white code in the top half, so a test can read back *which* frame a decoder gave
it with :func:`read_index`, at any size down to about 48x27.

Usable from any test file (``tests/`` is on ``sys.path`` under pytest): ``from videos
import make_cuts_video``.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path

import numpy as np

__all__ = [
    "SyntheticVideo",
    "ffmpeg",
    "index_frame",
    "read_index",
    "INDEX_LIMIT",
    "SHOT_KINDS",
    "encode_frames",
    "make_index_video",
    "make_cuts_video",
    "make_crossfade_video",
    "make_event_video",
    "make_vfr_video",
    "vfr_times",
    "make_rotated_video",
    "make_lying_avi",
    "add_audio",
    "make_audio_only",
    "make_audio_with_cover",
    "make_long_video",
    "make_bad_inputs",
    "make_truncated_videos",
    "ffprobe_decoded_frames",
    "truncate_copy",
    "patch_avi_frame_count",
]


@dataclass(frozen=True)
class SyntheticVideo:
    """A generated file and its ground truth. Times are seconds from the first frame."""

    path: Path
    fps: float  # nominal rate the frames were made at (average for VFR files)
    frame_count: int  # frames that decode
    size: tuple[int, int]  # (width, height) as displayed, rotation applied
    times: np.ndarray  # presentation time of every frame
    cut_frames: tuple[int, ...] = ()  # first frame of each new shot after a hard cut
    gradual: tuple[tuple[float, float], ...] = ()  # (start, end) seconds of each dissolve
    events: dict[str, float] = field(default_factory=dict)  # named events without a cut
    rotation: int = 0  # degrees clockwise the stored frames are turned for display
    has_audio: bool = False
    codec: str = ""
    header_frame_count: int | None = None  # what the container claims, when it lies
    index_coded: bool = False  # frames carry their index (read with read_index)
    last_frame_duration: float | None = None  # how long the last frame shows (default 1 / fps)

    @property
    def cut_times(self) -> tuple[float, ...]:
        return tuple(float(self.times[i]) for i in self.cut_frames)

    @property
    def duration(self) -> float:
        """From the first frame to the end of the last one."""
        last = self.last_frame_duration if self.last_frame_duration is not None else 1 / self.fps
        return float(self.times[-1] + last)


# --------------------------------------------------------------------------- ffmpeg CLI


def ffmpeg(*args: str | os.PathLike) -> None:
    """Run the ffmpeg CLI quietly; raise with its stderr when it fails."""
    exe = shutil.which("ffmpeg")
    if exe is None:
        raise RuntimeError("the ffmpeg command-line tool is needed to make test videos (apt install ffmpeg)")
    cmd = [exe, "-hide_banner", "-nostdin", "-loglevel", "error", "-y", *map(os.fspath, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"ffmpeg failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")


# Shot kinds: lavfi sources that look unlike each other and all move.
SHOT_KINDS = ("testsrc2", "mandelbrot", "rgbtestsrc", "bars", "life", "cellauto")


def _shot_source(kind: int, k: int, w: int, h: int, fps: float) -> str:
    """lavfi source for shot number ``k`` of the given kind (``k`` seeds the random ones).

    The slow sources are rendered at a quarter of the size and scaled up: at 720p they
    would otherwise make generation crawl (mandelbrot runs at ~40 fps)."""
    s = f"s={w}x{h}:r={fps}"
    q = f"s={max(16, w // 4)}x{max(16, h // 4)}:r={fps}"
    up = f"scale={w}:{h}:flags=bicubic"
    kind %= len(SHOT_KINDS)
    if kind == 0:
        return f"testsrc2={s}"
    if kind == 1:
        return f"mandelbrot={q}:start_scale=2.5:end_scale=0.05:end_pts=60,{up}"
    if kind == 2:
        # (lavfi's gradients source looked right but renders differently run to run, seed or not)
        return f"rgbtestsrc={q},hue=H={k}:s=1.5,scroll=h=0.01,{up}"
    if kind == 3:
        return f"smptehdbars={s},scroll=h=0.01:v=0.004"
    if kind == 4:
        return (f"life={q}:mold=10:ratio=0.2:seed={k}:life_color=#ffd040:death_color=#203080"
                f":mold_color=#60a040,{up}")
    return f"cellauto={q}:rule=30:scroll=1:seed={k}:random_fill_ratio=0.4,hue=h={37 * k}:s=4,{up}"


def _concat_shots(out: Path, shot_lengths: Sequence[int], w: int, h: int, fps: float, x264: Sequence[str]) -> None:
    """Encode shots of the given frame counts back to back: a hard cut between each. Shot
    ``k`` is of kind ``k % len(SHOT_KINDS)``, so neighbours always differ."""
    parts = []
    for k, n in enumerate(shot_lengths):
        src = _shot_source(k, k, w, h, fps)
        parts.append(f"{src},format=yuv420p,trim=end_frame={n},setpts=PTS-STARTPTS[s{k}]")
    labels = "".join(f"[s{k}]" for k in range(len(shot_lengths)))
    graph = ";".join(parts) + f";{labels}concat=n={len(shot_lengths)}:v=1:a=0[out]"
    ffmpeg("-filter_complex", graph, "-map", "[out]", "-c:v", "libx264", *x264, "-pix_fmt", "yuv420p",
           "-r", str(fps), out)


# --------------------------------------------------------------------- index-coded frames

_CODE_ROWS, _CODE_COLS = 2, 6  # 12 bits: frames 0..4095
INDEX_LIMIT = 1 << (_CODE_ROWS * _CODE_COLS)


def _code_cells(w: int, h: int):
    """Pixel boxes (y0, y1, x0, x1) of the code cells in the top half, bit 0 first."""
    ys = np.linspace(0, h / 2, _CODE_ROWS + 1)
    xs = np.linspace(0, w, _CODE_COLS + 1)
    for r in range(_CODE_ROWS):
        for c in range(_CODE_COLS):
            yield ys[r], ys[r + 1], xs[c], xs[c + 1]


def index_frame(i: int, size: tuple[int, int] = (320, 180)) -> np.ndarray:
    """RGB frame whose top half encodes ``i``; the bottom half moves, with a red patch
    bottom-left and a blue patch bottom-right (to check channel order and orientation)."""
    w, h = size
    if not 0 <= i < INDEX_LIMIT:
        raise ValueError(f"index {i} does not fit in the code")
    img = np.zeros((h, w, 3), np.uint8)
    for bit, (y0, y1, x0, x1) in enumerate(_code_cells(w, h)):
        if (i >> bit) & 1:
            img[round(y0):round(y1), round(x0):round(x1)] = 255
    # Bottom half: a gradient that scrolls with i, so consecutive frames differ.
    yb = h // 2
    xs = np.arange(w)
    band = ((np.sin((xs + 4 * i) / w * 2 * np.pi * 3) + 1) * 60 + 40).astype(np.uint8)
    img[yb:, :, 1] = band[None, :]
    img[yb:, :, 2] = band[None, ::-1] // 2
    pw, ph = max(2, w // 6), max(2, (h - yb) // 2)
    img[h - ph:, :pw] = (255, 0, 0)
    img[h - ph:, w - pw:] = (0, 0, 255)
    return img


def read_index(frame: np.ndarray) -> int:
    """The index :func:`index_frame` encoded in ``frame`` (RGB, any size, unrotated)."""
    h, w = frame.shape[:2]
    gray = frame.astype(np.float32).mean(axis=2)
    value = 0
    for bit, (y0, y1, x0, x1) in enumerate(_code_cells(w, h)):
        # Sample the middle of the cell: edges blur when the frame is scaled down.
        cy, cx = (y0 + y1) / 2, (x0 + x1) / 2
        ry, rx = max(1.0, (y1 - y0) / 4), max(1.0, (x1 - x0) / 4)
        cell = gray[int(cy - ry):int(np.ceil(cy + ry)), int(cx - rx):int(np.ceil(cx + rx))]
        if cell.mean() > 128:
            value |= 1 << bit
    return value


def encode_frames(path: Path, frames: Iterable[np.ndarray], fps: float, *, times: Sequence[float] | None = None,
                  codec: str = "libx264", time_base: Fraction | None = None, rotation: int = 0,
                  options: dict[str, str] | None = None, pix_fmt: str = "yuv420p", gop: int = 25,
                  max_b_frames: int | None = None) -> None:
    """Encode RGB frames with PyAV. ``times`` gives each frame's pts in seconds (VFR);
    ``rotation`` is degrees *clockwise* for display, stored as a display matrix."""
    import av

    frames = iter(frames)
    first = next(frames)
    h, w = first.shape[:2]
    rate = Fraction(fps).limit_denominator(1001)
    tb = time_base or (Fraction(1, 1000) if times is not None else 1 / rate)
    with av.open(os.fspath(path), "w") as out:
        stream = out.add_stream(codec, rate=rate, options=options or {})
        stream.width, stream.height, stream.pix_fmt = w, h, pix_fmt
        stream.time_base = tb
        stream.codec_context.time_base = tb
        stream.codec_context.gop_size = gop
        if max_b_frames is not None:
            stream.codec_context.max_b_frames = max_b_frames
        if rotation:
            # PyAV/FFmpeg display matrices are counter-clockwise.
            stream.set_display_rotation((-rotation) % 360)
        for n, img in enumerate(_chain(first, frames)):
            frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(img), format="rgb24")
            t = Fraction(float(times[n])) if times is not None else n / rate
            frame.pts = round(t / tb)
            frame.time_base = tb
            out.mux(stream.encode(frame))
        out.mux(stream.encode(None))


def _chain(first, rest):
    yield first
    yield from rest


def make_index_video(directory: Path, name: str = "index.mp4", frames: int = 100, fps: float = 25,
                     size: tuple[int, int] = (320, 180), *, codec: str = "libx264", gop: int = 25,
                     times: Sequence[float] | None = None, rotation: int = 0,
                     options: dict[str, str] | None = None, pix_fmt: str = "yuv420p",
                     max_b_frames: int | None = None) -> SyntheticVideo:
    """Frames that carry their own index (see :func:`read_index`). H.264 with B-frames and
    a keyframe every ``gop`` frames by default, so seeking is exercised. The container
    follows the name's suffix (.mp4, .mkv, .ts, .avi, ...)."""
    path = Path(directory) / name
    if options is None and codec == "libx264":
        options = {"crf": "20", "preset": "veryfast"}
    encode_frames(path, (index_frame(i, size) for i in range(frames)), fps, times=times, codec=codec,
                  rotation=rotation, options=options, gop=gop, pix_fmt=pix_fmt, max_b_frames=max_b_frames)
    t = np.asarray(times, float) if times is not None else np.arange(frames) / fps
    w, h = size
    shown = (h, w) if rotation % 180 == 90 else (w, h)
    avg = (frames - 1) / (t[-1] - t[0]) if frames > 1 else fps
    return SyntheticVideo(path, float(avg), frames, shown, t, rotation=rotation,
                          codec={"libx264": "h264", "libvpx-vp9": "vp9"}.get(codec, codec), index_coded=True)


# ------------------------------------------------------------------------ the fixtures


def make_cuts_video(directory: Path, cut_frames: Sequence[int] = (50, 110, 175), fps: float = 25,
                    size: tuple[int, int] = (320, 180), frames: int = 240, name: str = "cuts.mp4") -> SyntheticVideo:
    """Hard cuts at ``cut_frames`` between visually distinct shots that each move."""
    bounds = [0, *cut_frames, frames]
    lengths = [b - a for a, b in zip(bounds, bounds[1:])]
    if min(lengths) <= 0:
        raise ValueError("cut_frames must be increasing and inside the video")
    path = Path(directory) / name
    _concat_shots(path, lengths, *size, fps, ["-preset", "veryfast", "-crf", "20", "-g", "50"])
    return SyntheticVideo(path, float(fps), frames, tuple(size), np.arange(frames) / fps,
                          cut_frames=tuple(cut_frames), codec="h264")


def make_crossfade_video(directory: Path, start: float = 2.0, fade: float = 1.0, after: float = 2.0, fps: float = 25,
                         size: tuple[int, int] = (320, 180), name: str = "crossfade.mp4") -> SyntheticVideo:
    """Two moving shots with one dissolve of ``fade`` seconds starting at ``start``.

    ``gradual`` holds (start, end): the first frame that mixes both shots is at ``start``;
    from ``end`` on only the second shot shows."""
    w, h = size
    n0 = round((start + fade) * fps)
    n1 = round((fade + after) * fps)
    total = round((start + fade + after) * fps)
    a = f"{_shot_source(0, 0, w, h, fps)},format=yuv420p,trim=end_frame={n0},setpts=PTS-STARTPTS,settb=1/{fps}[a]"
    b = f"{_shot_source(2, 1, w, h, fps)},format=yuv420p,trim=end_frame={n1},setpts=PTS-STARTPTS,settb=1/{fps}[b]"
    graph = f"{a};{b};[a][b]xfade=transition=fade:duration={fade}:offset={start}[out]"
    path = Path(directory) / name
    ffmpeg("-filter_complex", graph, "-map", "[out]", "-c:v", "libx264", "-preset", "veryfast", "-crf", "20",
           "-pix_fmt", "yuv420p", "-r", str(fps), path)
    return SyntheticVideo(path, float(fps), total, tuple(size), np.arange(total) / fps,
                          gradual=((start, start + fade),), codec="h264")


def make_event_video(directory: Path, fps: float = 25, size: tuple[int, int] = (320, 180), seconds: float = 10.0,
                     enter: float = 2.0, stop: float = 3.5, change: float = 6.0,
                     name: str = "event.mp4") -> SyntheticVideo:
    """One fixed-camera shot over a textured background: a square slides in from the left
    (first visible at ``enter``), stops at ``stop`` and at ``change`` turns from orange to
    cyan and starts bouncing. Events, no cut."""
    import cv2

    w, h = size
    rng = np.random.default_rng(7)
    # Textured, static background: blurred noise plus a few fixed shapes.
    bg = rng.integers(0, 255, (h // 4 + 1, w // 4 + 1, 3), dtype=np.uint8)
    bg = cv2.resize(bg, (w, h), interpolation=cv2.INTER_CUBIC)
    bg = cv2.GaussianBlur(bg, (0, 0), 2)
    bg = (bg.astype(np.float32) * 0.5 + 60).astype(np.uint8)
    cv2.rectangle(bg, (w // 10, h // 8), (w // 4, h // 3), (90, 140, 90), -1)
    cv2.circle(bg, (4 * w // 5, h // 4), h // 8, (150, 110, 70), -1)
    side = h // 4
    rest_x = (w - side) // 2
    y0 = (h - side) // 2
    total = round(seconds * fps)

    def draw(i: int) -> np.ndarray:
        t = i / fps
        img = bg.copy()
        if t < enter:
            return img
        if t < stop:  # slide from just off the left edge to the rest position
            x = int(round(-side + 1 + (rest_x + side - 1) * (t - enter) / (stop - enter)))
            y, colour = y0, (255, 140, 0)
        elif t < change:
            x, y, colour = rest_x, y0, (255, 140, 0)
        else:
            x = rest_x
            y = y0 - int(round(abs(np.sin((t - change) * np.pi * 1.5)) * (h // 3)))
            colour = (0, 220, 255)
        cv2.rectangle(img, (x, y), (x + side - 1, y + side - 1), colour, -1)
        return img

    path = Path(directory) / name
    encode_frames(path, (draw(i) for i in range(total)), fps, options={"crf": "18", "preset": "veryfast"}, gop=50)
    times = np.arange(total) / fps
    # Events at the first frame that shows them.
    moments = (("enter", enter), ("stop", stop), ("change", change))
    ev = {k: float(times[int(np.ceil(v * fps - 1e-9))]) for k, v in moments}
    return SyntheticVideo(path, float(fps), total, tuple(size), times, events=ev, codec="h264", index_coded=False)


def vfr_times(fast: int = 45, slow: int = 30, fast_dt: float = 1 / 30, slow_dt: float = 1 / 10) -> np.ndarray:
    """Frame times: ``fast`` frames at ``fast_dt`` spacing, then ``slow`` at ``slow_dt``,
    then ``fast`` again. Rounded to whole milliseconds (Matroska's time base)."""
    dts = [fast_dt] * fast + [slow_dt] * slow + [fast_dt] * (fast - 1)
    return np.round(np.concatenate([[0.0], np.cumsum(dts)]), 3)


def make_vfr_video(directory: Path, name: str = "vfr.mkv", size: tuple[int, int] = (320, 180),
                   times: Sequence[float] | None = None) -> SyntheticVideo:
    """Variable frame rate, index-coded: 1/30 s spacing, then 1/10 s, then 1/30 s again.
    Works as .mkv or .mp4."""
    t = vfr_times() if times is None else np.asarray(times, float)
    v = make_index_video(directory, name, len(t), 30, size, times=t)
    return replace(v, last_frame_duration=float(t[-1] - t[-2]))


def make_rotated_video(directory: Path, rotation: int = 90, name: str = "rotated.mp4",
                       size: tuple[int, int] = (320, 180), frames: int = 50, fps: float = 25) -> SyntheticVideo:
    """Index-coded frames stored at ``size`` with a display matrix asking players to turn
    them ``rotation`` degrees clockwise: displayed size is swapped for 90/270.

    Written with PyAV's display matrix rather than the CLI's ``rotate`` tag, whose meaning
    changed between FFmpeg releases. ``ffmpeg -i file out.png`` (autorotate) shows the
    frame turned clockwise by ``rotation``, which tests can use as an independent check."""
    return make_index_video(directory, name, frames, fps, size, rotation=rotation)


def patch_avi_frame_count(path: Path, claimed: int) -> None:
    """Make an AVI's headers lie: set avih.dwTotalFrames and the video strh.dwLength."""
    data = bytearray(Path(path).read_bytes())
    avih = data.find(b"avih")
    if avih < 0:
        raise ValueError(f"{path}: no avih chunk")
    struct.pack_into("<I", data, avih + 8 + 16, claimed)  # dwTotalFrames
    pos = 0
    while (pos := data.find(b"strh", pos + 1)) >= 0:
        if data[pos + 8:pos + 12] == b"vids":
            struct.pack_into("<I", data, pos + 8 + 32, claimed)  # dwLength
            break
    # OpenDML files carry the real total again in dmlh; make it lie too.
    dmlh = data.find(b"dmlh")
    if dmlh >= 0:
        struct.pack_into("<I", data, dmlh + 8, claimed)
    Path(path).write_bytes(bytes(data))


def make_lying_avi(directory: Path, name: str = "lying.avi", codec: str = "cinepak", claimed: int = 444,
                   slots: int = 120, size: tuple[int, int] = (160, 96), fps: float = 25,
                   strip_index: bool = False) -> SyntheticVideo:
    """An AVI like old capture files: ``slots`` frame slots at ``fps`` of which only some
    hold a frame (the muxer writes zero-size "dropped frame" chunks for the gaps), and headers
    patched to claim ``claimed`` frames. Frames are index-coded with their number among
    the *real* frames, so ``frame_count`` is the number of real frames.

    ``strip_index`` renames the idx1 chunk away, as in a recording that was never
    finalised: FFmpeg then marks every packet as a keyframe, which is false for cinepak."""
    # Real frames at irregular slots: runs of 1, 2 and 3 slots apart.
    steps = np.resize([1, 2, 3, 2], slots)
    slot_ids = np.cumsum(np.concatenate([[0], steps]))
    slot_ids = slot_ids[slot_ids < slots]
    times = slot_ids / fps
    path = Path(directory) / name
    encode_frames(path, (index_frame(i, size) for i in range(len(times))), fps, times=times, codec=codec,
                  time_base=Fraction(1) / Fraction(fps).limit_denominator(1001), gop=12, options={},
                  pix_fmt="rgb24" if codec == "cinepak" else "yuvj420p")
    patch_avi_frame_count(path, claimed)
    if strip_index:
        data = bytearray(path.read_bytes())
        pos = data.rfind(b"idx1")
        if pos >= 0:
            data[pos:pos + 4] = b"JUNK"
            path.write_bytes(bytes(data))
    n = len(times)
    return SyntheticVideo(path, float((n - 1) / (times[-1] - times[0])), n, tuple(size), times, codec=codec,
                          header_frame_count=claimed, index_coded=True, last_frame_duration=1 / fps)


def add_audio(src: Path, dst: Path, frequency: int = 440) -> Path:
    """Copy of ``src`` with an AAC tone as a second stream (video stream copied as is)."""
    ffmpeg("-i", src, "-f", "lavfi", "-i", f"sine=frequency={frequency}", "-map", "0:v", "-map", "1:a",
           "-c:v", "copy", "-c:a", "aac", "-shortest", dst)
    return Path(dst)


def make_audio_only(directory: Path, name: str = "audio_only.mp4", seconds: float = 2.0) -> Path:
    """An AAC tone in an MP4 container: a media file with no video stream."""
    path = Path(directory) / name
    ffmpeg("-f", "lavfi", "-i", f"sine=frequency=440:duration={seconds}", "-c:a", "aac", path)
    return path


def make_audio_with_cover(directory: Path, name: str = "song.mp3", seconds: float = 2.0) -> Path:
    """An MP3 with cover art: FFmpeg shows the picture as a video stream (attached_pic)
    although the file is not a video."""
    path = Path(directory) / name
    ffmpeg("-f", "lavfi", "-i", f"sine=frequency=330:duration={seconds}", "-f", "lavfi", "-i",
           "testsrc2=s=64x64:d=0.04", "-map", "0:a", "-map", "1:v", "-frames:v", "1", "-c:a", "libmp3lame",
           "-c:v", "mjpeg", "-disposition:v", "attached_pic", "-id3v2_version", "3", path)
    return path


def make_long_video(path: Path, seconds: float, size: tuple[int, int] = (1280, 720), fps: float = 25,
                    cut_every: float | Sequence[float] = 10.0, crf: int = 23,
                    repeat_after: float = 60.0) -> SyntheticVideo:
    """H.264 for benchmarks: shots of ``cut_every`` seconds (a number, or a cycle of
    lengths) from sources that move, hard cuts between them, x264 ultrafast.

    To stay quick for long files, the first ``repeat_after`` seconds are encoded once and
    then repeated by stream copy (every copy starts at a keyframe and with a cut)."""
    cycle = [cut_every] if np.isscalar(cut_every) else list(cut_every)
    total = round(seconds * fps)
    per_segment = min(total, max(1, round(repeat_after * fps)))

    def lengths_for(n_frames: int) -> list[int]:
        lengths: list[int] = []
        while sum(lengths) < n_frames:
            n = max(1, round(cycle[len(lengths) % len(cycle)] * fps))
            lengths.append(min(n, n_frames - sum(lengths)))
        # The shot that wraps around to the next copy must differ from shot 0.
        if len(lengths) > 1 and len(lengths) % len(SHOT_KINDS) == 1:
            lengths[-2] += lengths.pop()
        return lengths

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    w, h = size
    x264 = ["-preset", "ultrafast", "-crf", str(crf), "-g", "250"]
    seg_lengths = lengths_for(per_segment)
    copies, rest = divmod(total, per_segment)
    if copies == 1 and rest == 0:
        _concat_shots(path, seg_lengths, w, h, fps, x264)
        pieces = [seg_lengths]
    else:
        seg = path.with_name(f".{path.stem}.segment.mp4")
        tail = path.with_name(f".{path.stem}.tail.mp4")
        listing = path.with_name(f".{path.stem}.concat.txt")
        try:
            _concat_shots(seg, seg_lengths, w, h, fps, x264)
            names = [seg] * copies
            pieces = [seg_lengths] * copies
            if rest:
                tail_lengths = lengths_for(rest)
                _concat_shots(tail, tail_lengths, w, h, fps, x264)
                names.append(tail)
                pieces.append(tail_lengths)
            listing.write_text("".join(f"file '{n.resolve()}'\n" for n in names), encoding="utf-8")
            ffmpeg("-f", "concat", "-safe", "0", "-i", listing, "-c", "copy", path)
        finally:
            for f in (seg, tail, listing):
                f.unlink(missing_ok=True)
    starts = np.cumsum([n for piece in pieces for n in piece])[:-1]
    return SyntheticVideo(path, float(fps), total, (w, h), np.arange(total) / fps,
                          cut_frames=tuple(int(c) for c in starts), codec="h264")


# ------------------------------------------------------------------------- bad inputs


def truncate_copy(src: Path, dst: Path, fraction: float = 0.5) -> Path:
    """The first ``fraction`` of ``src``'s bytes, as an interrupted download would leave it."""
    data = Path(src).read_bytes()
    Path(dst).write_bytes(data[: int(len(data) * fraction)])
    return Path(dst)


def make_bad_inputs(directory: Path) -> dict[str, Path]:
    """Inputs that each must give one MediaError, by name:

    text (notes.txt), text_as_mp4, empty, random (bytes named .mp4), truncated_mp4 (the
    first half of an MP4 whose moov index is at the end), directory, missing,
    audio_only, cover_art (an MP3 whose only "video" is its cover picture).

    Cut-off files that still hold decodable frames open normally: see
    :func:`make_truncated_videos`."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}
    out["text"] = d / "notes.txt"
    out["text"].write_text("This is a text file, not a video.\n" * 20, encoding="utf-8")
    out["text_as_mp4"] = d / "notes.mp4"
    out["text_as_mp4"].write_text("Definitely not a video.\n" * 20, encoding="utf-8")
    out["empty"] = d / "empty.mp4"
    out["empty"].write_bytes(b"")
    out["random"] = d / "random.mp4"
    out["random"].write_bytes(np.random.default_rng(1234).integers(0, 256, 200_000, dtype=np.uint8).tobytes())
    full_mp4 = make_index_video(d, "_full.mp4", frames=100).path
    out["truncated_mp4"] = truncate_copy(full_mp4, d / "truncated.mp4")
    full_mp4.unlink()
    out["directory"] = d / "folder.mp4"
    out["directory"].mkdir(exist_ok=True)
    out["missing"] = d / "does-not-exist.mp4"
    out["audio_only"] = make_audio_only(d)
    out["cover_art"] = make_audio_with_cover(d)
    return out


def make_truncated_videos(directory: Path) -> dict[str, SyntheticVideo]:
    """First halves of 100-frame index-coded videos that still hold decodable frames
    (they open; frame_count is what decodes): truncated_mkv, and truncated_faststart (an
    MP4 with its moov index at the front). ``frame_count`` in the returned truth is the
    number of frames that decode (counted with the ffprobe CLI); ``header_frame_count``
    what the container still claims (None for Matroska)."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    out: dict[str, SyntheticVideo] = {}
    full_mkv = make_index_video(d, "_full.mkv", frames=100)
    full_mp4 = make_index_video(d, "_full.mp4", frames=100)
    faststart = d / "_faststart.mp4"
    ffmpeg("-i", full_mp4.path, "-c", "copy", "-movflags", "+faststart", faststart)
    for name, src, header in (("truncated_mkv", full_mkv.path, None), ("truncated_faststart", faststart, 100)):
        path = truncate_copy(src, d / f"{name}.mp4" if name.endswith("faststart") else d / f"{name}.mkv")
        n = ffprobe_decoded_frames(path)
        out[name] = SyntheticVideo(path, 25.0, n, (320, 180), np.arange(n) / 25.0, codec="h264",
                                   header_frame_count=header, index_coded=True)
    for f in (full_mkv.path, full_mp4.path, faststart):
        f.unlink()
    return out


def ffprobe_decoded_frames(path: Path) -> int:
    """How many frames the ffprobe CLI decodes from the first video stream: an
    independent count (single-threaded, so frames in flight are not lost on errors)."""
    exe = shutil.which("ffprobe")
    if exe is None:
        raise RuntimeError("the ffprobe command-line tool is needed (apt install ffmpeg)")
    out = subprocess.run(
        [exe, "-v", "quiet", "-threads", "1", "-select_streams", "v:0", "-count_frames",
         "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", os.fspath(path)],
        capture_output=True, text=True, check=True,
    ).stdout
    return int(out.split()[0].strip(","))  # MPEG-TS lists the stream again under its program
