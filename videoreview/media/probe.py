"""Find out what a video file really holds, quickly, and say plainly when it is unusable.

``probe`` demuxes every packet of the video stream with PyAV (no decoding) to get the
real presentation timestamps and frame count: container headers lie (an AVI may claim
444 frames and hold 68; a truncated file claims what it had before it was cut). Zero-size
"dropped frame" packets are skipped. Then it decodes a little: the first frame (rotation;
something must decode; leading frames that do not decode are dropped) and the whole last
GOP (frames listed at the end that do not decode are dropped: a damaged last packet looks
like any other until it is decoded; the last keyframe must decode as one, else the
file's keyframe flags are not trusted). The frames that decode are the video: its
``frame_count`` and ``duration`` count them, ``header_frame_count`` keeps the container's
claim. A 20-minute 720p H.264 file (1.1 GB) probes in 0.35 s when cached, 0.10 s of it
decoding the 250-frame last GOP (benchmarks/bench_probe.py; ffprobe -count_frames takes
32 s), and 1-4.5 s from a cold disk: the time goes on reading packets.

Truncated files: a file cut short that still has decodable frames opens normally, with
``frame_count`` counting what decodes (``header_frame_count`` keeps the container's
claim). A cut MP4 without its index, or one with no decodable frame, is a MediaError
whose reason starts with "truncated:".
"""

from __future__ import annotations

import copy
import os
import struct
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..errors import MediaError
from ..records import VideoInfo

# For file dialogs and folder scans. probe() does not look at the extension.
VIDEO_EXTENSIONS: frozenset[str] = frozenset(
    {
        ".mp4", ".m4v", ".mov", ".qt", ".mkv", ".webm", ".avi", ".wmv", ".asf", ".flv", ".f4v",
        ".mpg", ".mpeg", ".m2v", ".vob", ".ts", ".mts", ".m2ts", ".3gp", ".3g2", ".ogv",
        ".mxf", ".dv", ".divx", ".y4m",
    }
)
VIDEO_FILE_FILTER = "Videos ({})".format(" ".join(f"*{e}" for e in sorted(VIDEO_EXTENSIONS)))

# Demuxers that happily "open" things that are not videos.
_TEXT_FORMATS = {"tty"}
_IMAGE_FORMATS = {"image2", "png_pipe", "jpeg_pipe", "bmp_pipe", "webp_pipe", "tiff_pipe", "svg_pipe",
                  "jpegxl_pipe", "gem_pipe", "psd_pipe", "qoi_pipe", "pgm_pipe", "ppm_pipe", "pam_pipe"}
NOT_MEDIA = "not a video file (could not be read as a media container)"


@dataclass
class StreamIndex:
    """What a FrameSource needs beyond VideoInfo: every frame's pts, in presentation order."""

    path: str
    stream_index: int
    time_base: Fraction
    pts: np.ndarray  # int64, sorted: pts of frame i
    keyframe: np.ndarray  # bool: frame i is a keyframe (decoding can start there)
    format_name: str
    rotation: int  # clockwise degrees
    stored_size: tuple[int, int]  # (width, height) of the coded frames
    first_frame: object = None  # av.VideoFrame: frame 0, for checking decord against
    seekable: bool = True  # False: no timestamps, frames are counted from the start
    keyframes_trusted: bool = True  # False: the file's keyframe flags are wrong

    def keyframe_before(self) -> np.ndarray:
        """For each frame, the index of the last keyframe at or before it (0 if none)."""
        idx = np.where(self.keyframe, np.arange(len(self.pts)), 0)
        return np.maximum.accumulate(idx)


def probe(path: str | os.PathLike) -> VideoInfo:
    """VideoInfo for ``path``; MediaError with a plain reason if it is not a usable video.
    The scan is kept for the FrameSources that open the same unchanged file next
    (``scan_once``): an analysis probes, then opens (twice in the window: the coarse look,
    then the pass), and a scan decodes the file's last frames to find how many really
    decode (on a 4 s clip 0.7 s of a 3.7 s analysis)."""
    found = scan(path)
    _last.clear()
    _last[_identity(path)] = found
    return found[0]


_last: dict[tuple, tuple[VideoInfo, StreamIndex]] = {}  # the last probe's scan, by _identity (one file)


def _identity(path: str | os.PathLike) -> tuple:
    st = os.stat(path)
    return os.path.realpath(path), st.st_size, st.st_mtime_ns


def scan_once(path: str | os.PathLike) -> tuple[VideoInfo, StreamIndex]:
    """``scan(path)``, or the last probe's scan of the same unchanged file (its index
    copied: a FrameSource changes its own)."""
    try:
        found = _last.get(_identity(path))
    except OSError:
        found = None  # scan says what is wrong with the path
    if found is None:
        return scan(path)
    info, index = found
    return info, copy.copy(index)


def check_path(path: str | os.PathLike) -> int:
    """Size in bytes of a readable regular file, or MediaError."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise MediaError(path, "file not found") from None
    except PermissionError:
        raise MediaError(path, "permission denied") from None
    except (OSError, ValueError) as exc:  # ValueError: NUL in the path
        raise MediaError(path, f"cannot be read ({exc.__class__.__name__}: {exc})") from None
    if os.path.isdir(path):
        raise MediaError(path, "is a directory")
    if st.st_size == 0:
        raise MediaError(path, "empty file")
    if not os.access(path, os.R_OK):
        raise MediaError(path, "permission denied")
    return st.st_size


def open_container(path: str | os.PathLike, size: int):
    """av.open with failures turned into MediaError."""
    import av

    try:
        return av.open(os.fspath(path), metadata_errors="replace")
    except FileNotFoundError:
        raise MediaError(path, "file not found") from None
    except IsADirectoryError:
        raise MediaError(path, "is a directory") from None
    except PermissionError:
        raise MediaError(path, "permission denied") from None
    except av.error.FFmpegError as exc:
        raise MediaError(path, _why_unreadable(path, size, exc)) from None
    except OSError as exc:
        raise MediaError(path, f"cannot be read ({exc.strerror or exc})") from None


def _why_unreadable(path, size: int, exc: Exception) -> str:
    """FFmpeg could not open it: truncated container, or not a media file at all?"""
    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
    except OSError:
        head = b""
    if head[4:8] in (b"ftyp", b"moov", b"mdat", b"free", b"wide", b"skip"):
        return _mp4_problem(path, size)
    if head.startswith(b"\x1a\x45\xdf\xa3"):
        return "truncated or damaged Matroska/WebM file (FFmpeg could not read its headers)"
    if head.startswith(b"RIFF") and head[8:12] == b"AVI ":
        riff_size = struct.unpack("<I", head[4:8])[0] + 8
        if riff_size > size:
            return f"truncated: the AVI file has {size} of its {riff_size} bytes"
        return "damaged AVI file (FFmpeg could not read its headers)"
    return NOT_MEDIA


def _mp4_problem(path, size: int) -> str:
    """Walk the top-level boxes of an MP4/MOV to say what is missing."""
    boxes = []
    try:
        with open(path, "rb") as fh:
            pos = 0
            while pos + 8 <= size and len(boxes) < 10000:
                fh.seek(pos)
                hdr = fh.read(16)
                box_size, kind = struct.unpack(">I4s", hdr[:8])
                if box_size == 1 and len(hdr) >= 16:
                    box_size = struct.unpack(">Q", hdr[8:16])[0]
                elif box_size == 0:
                    box_size = size - pos
                name = kind.decode("latin-1")
                if box_size < 8:
                    return f"damaged MP4/MOV file (invalid '{name}' box at byte {pos})"
                boxes.append(name)
                if pos + box_size > size:
                    if "moov" not in boxes or name == "moov":
                        return (f"truncated: the MP4/MOV file ends inside its '{name}' box and has no complete "
                                f"'moov' index (only {size} bytes; was the download or recording interrupted?)")
                    return f"truncated: the MP4/MOV file ends inside its '{name}' box"
                pos += box_size
    except (OSError, struct.error):
        pass
    if "moov" not in boxes:
        return "truncated: the MP4/MOV file has no 'moov' index (was the download or recording interrupted?)"
    return "damaged MP4/MOV file (FFmpeg could not read it)"


def _pick_container_name(format_name: str, path) -> str:
    names = format_name.split(",")
    ext = Path(os.fspath(path)).suffix.lower().lstrip(".")
    return ext if ext in names else names[0]


def _video_stream(container):
    for stream in container.streams.video:
        disp = int(stream.disposition or 0)
        if disp & 0x400:  # AV_DISPOSITION_ATTACHED_PIC: cover art, not video
            continue
        return stream
    return None


def _rotation_of(frame, stream) -> int:
    """Clockwise degrees, a multiple of 90, from the display matrix (or old 'rotate' tag)."""
    ccw = None
    try:
        ccw = frame.rotation if frame is not None else None
    except Exception:  # older PyAV, or no side data
        ccw = None
    if ccw is not None and ccw != 0:
        cw = -float(ccw)
    else:
        try:
            cw = float(stream.metadata.get("rotate", 0))
        except (TypeError, ValueError):
            cw = 0.0
    return int(round(cw / 90.0)) * 90 % 360


def decode_threads() -> int:
    return max(1, min(os.cpu_count() or 2, 8))


def set_threads(ctx) -> None:
    """Slice threads only. Frame threading is no faster on 2 cores, delays frames after a
    seek, and loses the frames still in flight when a damaged packet errors at the end,
    so the probe's count and the reader's output would disagree on truncated files."""
    ctx.thread_type = "SLICE"
    ctx.thread_count = decode_threads()


def decode_packets(stream, packets):
    """Decode packets, skipping ones the decoder rejects; then drain the decoder."""
    import av

    packets = iter(packets)
    while True:
        try:
            packet = next(packets)
        except StopIteration:
            break
        except av.error.FFmpegError:
            break  # read error (truncated file): decode what we have
        if packet.size == 0:
            continue  # PyAV's end-of-stream marker, or an AVI "dropped frame"
        try:
            frames = stream.codec_context.decode(packet)
        except av.error.EOFError:
            return
        except av.error.FFmpegError:
            continue  # a damaged packet: skip it, as players do
        yield from frames
    try:
        yield from stream.codec_context.decode(None)
    except av.error.FFmpegError:
        return


def scan(path: str | os.PathLike) -> tuple[VideoInfo, StreamIndex]:
    """probe() plus the per-frame index that FrameSource uses."""
    import av

    size = check_path(path)
    container = open_container(path, size)
    try:
        return _scan(path, size, container, av)
    finally:
        container.close()


def _scan(path, size: int, container, av) -> tuple[VideoInfo, StreamIndex]:
    fmt = container.format.name
    if fmt in _TEXT_FORMATS:
        raise MediaError(path, NOT_MEDIA)
    if fmt in _IMAGE_FORMATS:
        raise MediaError(path, "not a video file (a still image)")
    stream = _video_stream(container)
    has_audio = len(container.streams.audio) > 0
    if stream is None:
        raise MediaError(path, "no video stream (audio only)" if has_audio else "no video stream")
    ctx = stream.codec_context
    if ctx is None or not ctx.name:
        raise MediaError(path, "unsupported video codec")
    codec = ctx.name
    set_threads(ctx)
    tb = stream.time_base or Fraction(1, 90000)
    header_frames = int(stream.frames) if stream.frames and stream.frames > 0 else None

    # 1. Demux: timestamps and keyframes of every packet that carries a frame.
    pts_l, key_l, dur_l = [], [], []
    missing_ts = False
    ended_early = False
    try:
        for packet in container.demux(stream):
            if packet.size == 0:
                continue  # end marker, or zero-size "dropped frame" (AVI)
            ts = packet.pts if packet.pts is not None else packet.dts
            if ts is None:
                missing_ts = True
                break
            pts_l.append(ts)
            key_l.append(bool(packet.is_keyframe))
            dur_l.append(packet.duration or 0)
    except av.error.FFmpegError:
        ended_early = True  # read error part-way: keep what was read
    except OSError as exc:
        raise MediaError(path, f"cannot be read ({exc.strerror or exc})") from None

    if fmt in ("gif", "webp") and len(pts_l) <= 1:
        raise MediaError(path, "not a video file (a still image)")

    if missing_ts or not pts_l:
        # No timestamps in the container (raw streams): decode everything to learn them.
        return _scan_by_decoding(path, size, stream.index, av, fmt, has_audio, header_frames)

    order = np.argsort(np.asarray(pts_l, np.int64), kind="stable")
    pts = np.asarray(pts_l, np.int64)[order]
    keyframe = np.asarray(key_l, bool)[order]
    durations = np.asarray(dur_l, np.int64)[order]
    # Duplicate pts (broken muxers) would make frames indistinguishable: keep the first.
    keep = np.concatenate([[True], np.diff(pts) > 0])
    pts, keyframe, durations = pts[keep], keyframe[keep], durations[keep]
    if not keyframe.any():
        keyframe[0] = True  # no flags at all (some AVI): treat the start as the only entry point

    # 2. Decode the start: rotation, and drop leading frames that cannot decode.
    first = _first_frame(container, stream, av)
    if first is None:
        reason = "no frame could be decoded"
        if ended_early or (header_frames and header_frames > len(pts)):
            reason = "truncated: no frame could be decoded"
        raise MediaError(path, reason)
    if first.pts is not None and first.pts > pts[0]:
        keep = pts >= first.pts
        if keep.any():
            pts, keyframe, durations = pts[keep], keyframe[keep], durations[keep]
            keyframe[0] = True
    rotation = _rotation_of(first, stream)

    # 3. Decode the last GOP: frames listed at the end that do not decode are not frames.
    pts, keyframe, durations, keys_ok = _check_tail(container, stream, av, pts, keyframe, durations)

    info = _make_info(path, size, stream, fmt, has_audio, header_frames, tb, pts, durations,
                      rotation, codec)
    index = StreamIndex(os.fspath(path), stream.index, tb, pts, keyframe, fmt, rotation,
                        (ctx.width, ctx.height), first, keyframes_trusted=keys_ok)
    return info, index


def _first_frame(container, stream, av):
    try:
        container.seek(0, backward=True)  # back to the start after demuxing
    except av.error.FFmpegError:
        return None
    for frame in decode_packets(stream, container.demux(stream)):
        return frame
    return None


def _check_tail(container, stream, av, pts, keyframe, durations):
    """Decode the last GOP and drop from the index the frames after its first decoded one
    that do not decode; also check that the last keyframe really is one.

    Always the whole GOP: a damaged or cut last packet looks like any other to the
    demuxer (an MP4 listing 250 frames, the last of them garbage, decodes 249), and only
    decoding tells. This costs one GOP of decoding (0.17 s for 250 frames at 640x360).
    Where the frames after the seek carry other timestamps than the demuxer's (inexact
    seeking in an MPEG program stream) nothing can be checked and the index stays.
    A keyframe that does not decode as one means the container's flags are wrong (an AVI
    without its index marks every frame) and seeking to them would give garbage: then
    only frame 0 is trusted as a starting point."""
    key_idx = np.flatnonzero(keyframe)
    for k in key_idx[::-1][:2]:  # the last keyframe, or the one before if that fails
        try:
            container.seek(int(pts[k]), backward=True, stream=stream)
        except av.error.FFmpegError:
            return pts, keyframe, durations, False
        seen = set()
        key_ok = None
        for frame in decode_packets(stream, container.demux(stream)):
            if frame.pts is None or frame.pts < pts[k]:
                continue
            if frame.pts == pts[k]:
                key_ok = bool(frame.key_frame)
            seen.add(frame.pts)
        decoded = seen.intersection(pts[k:].tolist())
        if not decoded:
            continue  # nothing decoded, or the seek was inexact (MPEG-PS): frames with other pts
        lo = min(decoded)
        drop = np.array([p > lo and p not in decoded for p in pts[k:].tolist()], bool)
        if drop.any():
            keep = np.concatenate([np.ones(k, bool), ~drop])
            pts, keyframe, durations = pts[keep], keyframe[keep], durations[keep]
        if key_ok is False:
            keyframe = np.zeros(len(pts), bool)
            keyframe[0] = True  # trust only the start: random access decodes from there
        return pts, keyframe, durations, key_ok is not False
    return pts, keyframe, durations, True


def _scan_by_decoding(path, size, stream_index, av, fmt, has_audio, header_frames):
    """Slow path for streams without timestamps (raw .h264 and the like): decode every
    frame once, from a fresh container, and number them."""
    container = open_container(path, size)
    try:
        stream = container.streams[stream_index]
        set_threads(stream.codec_context)
        rate = stream.average_rate or stream.guessed_rate or stream.base_rate or Fraction(25)
        tb = stream.time_base or 1 / Fraction(rate)
        pts_l = []
        first = None
        for n, frame in enumerate(decode_packets(stream, container.demux(stream))):
            if first is None:
                first = frame
            p = frame.pts if frame.pts is not None else round(n / Fraction(rate) / Fraction(tb))
            pts_l.append(max(p, pts_l[-1] + 1) if pts_l else p)
        if first is None:
            raise MediaError(path, "no frame could be decoded")
        pts = np.asarray(pts_l, np.int64)
        keyframe = np.zeros(len(pts), bool)
        keyframe[0] = True  # no timestamps to seek by: always decode from the start
        rotation = _rotation_of(first, stream)
        ctx = stream.codec_context
        info = _make_info(path, size, stream, fmt, has_audio, header_frames, tb, pts,
                          np.zeros(len(pts), np.int64), rotation, ctx.name)
        index = StreamIndex(os.fspath(path), stream.index, tb, pts, keyframe, fmt, rotation,
                            (ctx.width, ctx.height), first, seekable=False, keyframes_trusted=False)
        return info, index
    finally:
        container.close()


def _make_info(path, size, stream, fmt, has_audio, header_frames, tb, pts, durations, rotation,
               codec) -> VideoInfo:
    times = (pts - pts[0]).astype(np.float64) * float(tb)
    n = len(times)
    steps = np.diff(times)
    if n > 1 and times[-1] > 0:
        fps = (n - 1) / times[-1]
        last_dur = float(durations[-1] * tb) if durations[-1] > 0 else float(np.median(steps))
    else:
        rate = stream.average_rate or stream.guessed_rate or stream.base_rate
        fps = float(rate) if rate else 0.0
        last_dur = float(durations[-1] * tb) if durations[-1] > 0 else (1.0 / fps if fps else 0.0)
    duration = float(times[-1] + last_dur)
    vfr = False
    if len(steps) > 1:
        med = float(np.median(steps))
        # Material variation: more than 10% of a frame and 2 ms (Matroska rounds to 1 ms).
        vfr = bool(np.any(np.abs(steps - med) > max(0.1 * med, 0.002)))
    ctx = stream.codec_context
    w, h = ctx.width, ctx.height
    sar = stream.sample_aspect_ratio or ctx.sample_aspect_ratio
    if sar and sar > 0 and sar != 1:
        w = max(1, int(round(w * float(sar))))  # anamorphic: shown wider or narrower
    if rotation in (90, 270):
        w, h = h, w
    return VideoInfo(
        path=os.fspath(path),
        duration=duration,
        fps=float(fps),
        frame_count=int(n),
        width=int(w),
        height=int(h),
        rotation=int(rotation),
        has_audio=bool(has_audio),
        codec=codec,
        container=_pick_container_name(fmt, path),
        header_frame_count=header_frames,
        variable_frame_rate=vfr,
        size_bytes=int(size),
    )
