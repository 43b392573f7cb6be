"""A corpus of awkward files, as users meet them from phones, screen recorders and the web.

:func:`make_corpus` writes every file into a folder and returns a :class:`CorpusFile`
for each: what it is, and what FFmpeg's own ``ffprobe -count_frames`` decodes from it
(the reference), or the refusal expected where FFmpeg cannot decode it either.

The pictures are index-coded frames (:func:`videos.index_frame`): every frame carries its
own number, so a test can read back which frame a decoder or the player shows, whatever
the file did to it. Files are made with the ffmpeg CLI from raw frames piped in (any
codec, container and muxer option), or with PyAV where exact timestamps are needed
(variable frame rate, rotation); damage is done to the bytes of known packets, found
with PyAV's demuxer. Nothing here is downloaded and no file is over a few hundred KB
except the one huge-resolution clip.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
from dataclasses import asdict, dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from videos import add_audio, encode_frames, ffmpeg, ffprobe_decoded_frames, index_frame, make_audio_only

SIZE = (160, 96)  # divisible by 16: every encoder here takes it, interlaced and AV1 too
FPS = 25


@dataclass(frozen=True)
class CorpusFile:
    name: str  # short id, also the file's stem
    kind: str  # what it is, for the corpus table
    path: Path
    ffprobe_frames: int | None  # what ffprobe -count_frames decodes; None where it cannot read the file
    refusal: str | None = None  # expected in the one-line error, when the file is not a usable video
    exact: bool = True  # frame_count equals ffprobe's count (else within 1 %: damage mid-stream)
    header_frames: int | None = None  # what the container lists, where it lists frames that do not decode
    damaged: bool = False  # bytes were damaged or cut off: decoders may conceal the damage differently
    display: tuple[int, int] | None = None  # displayed (width, height), when the file says so
    rotation: int = 0
    index_coded: bool = True  # frames carry their index (videos.read_index)

    @property
    def refused(self) -> bool:
        return self.refusal is not None


# ------------------------------------------------------------------------- making files


def _run(cmd: list, stdin: bytes | None = None, stdout=None) -> None:
    proc = subprocess.run(cmd, input=stdin, stdout=stdout or subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed:\n{proc.stderr.decode(errors='replace')[-2000:]}")


def _raw_frames(count: int, size=SIZE) -> bytes:
    return b"".join(index_frame(i, size).tobytes() for i in range(count))


def encode(out: Path, count: int, args: list[str], *, size=SIZE, fps: float = FPS, to_pipe: bool = False) -> Path:
    """Index-coded frames 0..count-1 piped into the ffmpeg CLI with output ``args``;
    ``to_pipe`` writes the output through a pipe (the muxer cannot go back to write a
    duration or an index, as when a stream is recorded live)."""
    w, h = size
    cmd = [shutil.which("ffmpeg"), "-hide_banner", "-loglevel", "error", "-y",
           "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}", "-r", str(fps), "-i", "pipe:0", *args]
    frames = _raw_frames(count, size)
    if to_pipe:
        with open(out, "wb") as fh:
            _run([*cmd, "pipe:1"], frames, stdout=fh)
    else:
        _run([*cmd, os.fspath(out)], frames)
    return out


def h264(out: Path, count: int = 100, *extra: str, size=SIZE) -> Path:
    """H.264 with B-frames (3, pyramid) and a keyframe every 25 frames."""
    return encode(out, count, ["-c:v", "libx264", "-preset", "veryfast", "-bf", "3", "-g", "25",
                               "-pix_fmt", "yuv420p", *extra], size=size)


def video_packets(path: Path) -> list[tuple[int, int, int, bool]]:
    """(byte offset, size, pts, keyframe) of each video packet, in file order."""
    import av

    with av.open(os.fspath(path)) as container:
        stream = container.streams.video[0]
        rows = [(p.pos, p.size, p.pts, p.is_keyframe) for p in container.demux(stream) if p.size]
    return sorted(rows)


def scramble(path: Path, offset: int, length: int, seed: int) -> None:
    """Overwrite ``length`` bytes at ``offset`` with seeded random bytes."""
    junk = np.random.default_rng(seed).integers(0, 256, length, dtype=np.uint8).tobytes()
    with open(path, "r+b") as fh:
        fh.seek(offset)
        fh.write(junk)


def damage_packet(path: Path, packet: tuple[int, int, int, bool], seed: int, keep: int = 8) -> None:
    """Garbage over a packet's payload after its first ``keep`` bytes (its NAL length and
    header survive, as when a recording is damaged rather than cut)."""
    offset, size = packet[0], packet[1]
    scramble(path, offset + keep, size - keep, seed)


def cut_at(path: Path, size: int) -> None:
    with open(path, "r+b") as fh:
        fh.truncate(size)


def _no_track_mp4(path: Path) -> Path:
    """An MP4 whose moov has a movie header and no tracks: a container with no streams."""
    def box(kind: bytes, payload: bytes) -> bytes:
        return struct.pack(">I", 8 + len(payload)) + kind + payload

    mvhd = box(b"mvhd", bytes(4) + bytes(8) + struct.pack(">II", 1000, 0) + struct.pack(">IH", 0x10000, 0x100)
               + bytes(10) + struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000) + bytes(24)
               + struct.pack(">I", 1))
    path.write_bytes(box(b"ftyp", b"isom" + struct.pack(">I", 512) + b"isomiso2mp41") + box(b"moov", mvhd))
    return path


# ------------------------------------------------------------------------------ corpus


def make_corpus(directory: Path, seed: int = 19) -> list[CorpusFile]:
    """Every kind of awkward file, made in ``directory`` (created): 42 files in about 7 s."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    files: list[CorpusFile] = []

    def add(name: str, kind: str, path: Path, **truth) -> None:
        frames = _ffprobe_or_none(path) if path.is_file() else None
        files.append(CorpusFile(name, kind, path, frames, **truth))

    # --- damaged endings and middles (the failures users reported)
    for ext in ("mp4", "mov"):
        p = h264(d / f"last_packet_corrupt.{ext}")
        damage_packet(p, video_packets(p)[-1], seed)
        add(f"last_packet_corrupt_{ext}", f"H.264 {ext.upper()}, last packet corrupted", p, header_frames=100,
            damaged=True)
    p = h264(d / "_faststart.mp4", 100, "-movflags", "+faststart")
    last = video_packets(p)[-1]
    cut_at(p, last[0] + last[1] // 2)
    add("last_packet_truncated_mp4", "H.264 MP4 (index first), cut inside its last packet",
        p.rename(d / "last_packet_truncated.mp4"), header_frames=100, damaged=True)
    p = h264(d / "damaged_near_end.mp4", 120)
    for k, packet in enumerate(video_packets(p)[-6::3]):
        damage_packet(p, packet, seed + k)
    add("damaged_near_end_mp4", "H.264 MP4, two packets near the end damaged", p, header_frames=120,
        damaged=True)
    p = h264(d / "damaged_slice_mid.mp4", 120)
    packets = video_packets(p)
    middle = next(q for q in packets[len(packets) // 2:] if not q[3])
    damage_packet(p, middle, seed, keep=middle[1] // 3)  # the first third of the slice survives
    add("damaged_slice_mid_mp4", "H.264 MP4, a slice damaged mid-stream (concealed)", p, damaged=True)
    p = h264(d / "lost_packet_mid.mp4", 120)
    packets = video_packets(p)
    damage_packet(p, next(q for q in packets[len(packets) // 2:] if not q[3]), seed, keep=0)
    add("lost_packet_mid_mp4", "H.264 MP4, a packet mid-stream that does not decode", p, exact=False, damaged=True)
    p = h264(d / "_cut_faststart.mp4", 100, "-movflags", "+faststart")
    cut_at(p, int(p.stat().st_size * rng.uniform(0.3, 0.9)))
    add("cut_random_mp4", "H.264 MP4 (index first), cut at a random byte", p.rename(d / "cut_random.mp4"),
        damaged=True)
    p = h264(d / "cut_random.mkv", 100)
    cut_at(p, int(p.stat().st_size * rng.uniform(0.3, 0.9)))
    add("cut_random_mkv", "H.264 Matroska, cut at a random byte", p, damaged=True)
    p = h264(d / "cut_no_index.mp4", 100)
    cut_at(p, int(p.stat().st_size * rng.uniform(0.3, 0.9)))
    add("cut_no_index_mp4", "H.264 MP4 (index last), cut at a random byte", p, refusal="truncated:")

    # --- timestamps and GOPs
    source = h264(d / "_source.mp4", 100)
    for ext in ("mp4", "mov"):
        p = d / f"edit_list.{ext}"
        ffmpeg("-ss", "1.3", "-t", "1.5", "-i", source, "-c", "copy", p)
        add(f"edit_list_{ext}", f"H.264 {ext.upper()} with an edit list (stream-copied with -ss/-t)", p)
    source.unlink()
    add("negative_dts_mp4", "H.264 MP4, B-frame pyramid: the first DTS is negative", h264(d / "negative_dts.mp4"))
    add("open_gop_h264", "H.264 MP4, open GOP",
        h264(d / "open_gop.mp4", 100, "-x264-params", "open-gop=1:keyint=20:bframes=3"))
    add("open_gop_hevc", "HEVC MP4, open GOP (CRA with leading pictures)",
        encode(d / "open_gop_hevc.mp4", 60, ["-c:v", "libx265", "-preset", "ultrafast", "-tag:v", "hvc1",
                                              "-x265-params", "log-level=error:keyint=20:open-gop=1:bframes=3"]))
    p = d / "vfr_phone.mp4"
    times = np.cumsum(np.r_[0, rng.choice([1 / 30, 1 / 30, 1 / 30, 1 / 24, 1 / 15], 89)])
    encode_frames(p, (index_frame(i, SIZE) for i in range(90)), 30, times=times,
                  time_base=Fraction(1, 90000), rotation=90, gop=30)
    add("vfr_phone_mp4", "phone-like MP4: variable frame rate, 1/90000 time base, portrait (90 degrees), AAC",
        add_audio(p, d / "vfr_phone_audio.mp4"), display=SIZE[::-1], rotation=90)
    p.unlink()
    for degrees in (90, 180, 270):
        p = d / f"rotation_{degrees}.mp4"
        encode_frames(p, (index_frame(i, SIZE) for i in range(50)), FPS, rotation=degrees)
        size = SIZE[::-1] if degrees in (90, 270) else SIZE
        add(f"rotation_{degrees}", f"H.264 MP4 displayed turned {degrees} degrees", p, display=size, rotation=degrees)
    add("anamorphic", "H.264 MP4, anamorphic pixels (SAR 4:3)",
        h264(d / "anamorphic.mp4", 50, "-vf", "setsar=4/3"), display=(round(SIZE[0] * 4 / 3), SIZE[1]))
    add("interlaced_h264", "H.264 MP4, interlaced (top field first)",
        h264(d / "interlaced.mp4", 50, "-flags", "+ildct+ilme", "-top", "1"))
    add("interlaced_mpeg2", "MPEG-2 program stream, interlaced (as on DVDs)",
        encode(d / "interlaced.mpg", 50, ["-c:v", "mpeg2video", "-flags", "+ildct+ilme", "-top", "1", "-q:v", "3"]))
    add("h264_10bit", "H.264 High 10 MP4",
        h264(d / "h264_10bit.mp4", 50, "-pix_fmt", "yuv420p10le", "-profile:v", "high10"))
    add("hevc_10bit", "HEVC Main 10 MP4",
        encode(d / "hevc_10bit.mp4", 50, ["-c:v", "libx265", "-preset", "ultrafast", "-pix_fmt", "yuv420p10le",
                                          "-tag:v", "hvc1", "-x265-params", "log-level=error"]))

    # --- containers and codecs from the web and from cameras
    add("webm_vp8_no_duration", "VP8 WebM recorded live: no duration in the header",
        encode(d / "vp8_live.webm", 50, ["-c:v", "libvpx", "-deadline", "realtime", "-f", "webm"], to_pipe=True))
    add("webm_vp9_no_duration", "VP9 WebM recorded live: no duration in the header",
        encode(d / "vp9_live.webm", 50, ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8",
                                         "-f", "webm"], to_pipe=True))
    add("webm_av1_no_duration", "AV1 WebM recorded live: no duration in the header",
        encode(d / "av1_live.webm", 50, ["-c:v", "libsvtav1", "-preset", "12", "-svtav1-params", "lp=2",
                                         "-f", "webm"], to_pipe=True))
    add("avi_vp9", "VP9 inside AVI", encode(d / "vp9.avi", 50, ["-c:v", "libvpx-vp9", "-deadline", "realtime",
                                                                "-cpu-used", "8"]))
    add("ogg_theora", "Theora in Ogg (no frame count anywhere)",
        encode(d / "theora.ogv", 50, ["-c:v", "libtheora", "-q:v", "6"]))
    add("mpegts_h264", "H.264 in MPEG-TS", h264(d / "h264.ts", 75))
    p = encode(d / "_mjpeg.avi", 50, ["-c:v", "mjpeg", "-q:v", "4"])
    mjpeg = d / "mjpeg_pcm.avi"
    ffmpeg("-i", p, "-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:v", "copy", "-c:a", "pcm_s16le",
           "-shortest", mjpeg)
    p.unlink()
    add("avi_mjpeg_pcm", "Motion JPEG AVI with PCM audio (cameras)", mjpeg)

    # --- sizes
    for n in (1, 2, 10):
        add(f"frames_{n}", f"H.264 MP4 of {n} frame{'s' if n > 1 else ''}", h264(d / f"frames_{n}.mp4", n))
    add("tiny_64x48", "H.264 MP4 at 64x48", h264(d / "tiny_64x48.mp4", 50, size=(64, 48)), display=(64, 48))
    huge = d / "huge_4096.mp4"
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=4096x4096:r=25", "-frames:v", "5", "-c:v", "libx264",
           "-preset", "ultrafast", "-pix_fmt", "yuv420p", huge)
    add("huge_4096x4096", "H.264 MP4 at 4096x4096, 5 frames", huge, display=(4096, 4096), index_coded=False)

    # --- not videos, or not files
    add("audio_only", "AAC in MP4, no picture", make_audio_only(d, "audio_only.m4a"), refusal="no video stream",
        index_coded=False)
    add("no_streams", "MP4 with no tracks at all", _no_track_mp4(d / "no_streams.mp4"), refusal="no video stream",
        index_coded=False)
    empty = d / "empty.mp4"
    empty.write_bytes(b"")
    add("zero_length", "zero-length .mp4", empty, refusal="empty file", index_coded=False)
    folder = d / "a folder.mp4"
    folder.mkdir(exist_ok=True)
    add("directory", "a directory named .mp4", folder, refusal="is a directory", index_coded=False)
    junk = d / "random.mp4"
    junk.write_bytes(rng.integers(0, 256, 100_000, dtype=np.uint8).tobytes())
    add("random_bytes", "random bytes named .mp4", junk, refusal="not a video file", index_coded=False)
    text = d / "notes.mp4"
    text.write_text("Meeting notes, not a video.\n" * 40, encoding="utf-8")
    add("text_as_mp4", "a text file named .mp4", text, refusal="not a video file", index_coded=False)
    odd = d / "vidéos d'été" / "my clip – 日本 (1).mp4"
    odd.parent.mkdir(exist_ok=True)
    add("unicode_path", "H.264 MP4 on a path with spaces and non-ASCII characters", h264(odd, 50))
    return files


def cached_corpus(seed: int = 19) -> list[CorpusFile]:
    """:func:`make_corpus` from the tests' cache (cached.py): made only when this module,
    videos.py, PyAV or the FFmpeg on the PATH changed. The files are the cache's: a test
    must not change them (one that does is noticed, and the corpus made again next time)."""
    import sys

    import videos
    from cached import cached

    def make(folder: Path) -> None:
        files = make_corpus(folder / "corpus", seed)
        rows = [dict(asdict(f), path=f.path.relative_to(folder).as_posix()) for f in files]
        (folder / "corpus.json").write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")

    tools = [subprocess.run([shutil.which(tool), "-version"], capture_output=True, text=True).stdout
             for tool in ("ffmpeg", "ffprobe")]
    folder = cached("corpus", [sys.modules[__name__], videos], make, packages=("av", "numpy"),
                    arguments=(seed, *tools))
    rows = json.loads((folder / "corpus.json").read_text(encoding="utf-8"))
    return [CorpusFile(**dict(row, path=folder / row["path"], display=row["display"] and tuple(row["display"])))
            for row in rows]


def _ffprobe_or_none(path: Path) -> int | None:
    """ffprobe's decoded frame count; None where it cannot read the file at all."""
    try:
        return ffprobe_decoded_frames(path)
    except (subprocess.CalledProcessError, ValueError, IndexError):
        return None


def table(files: list[CorpusFile], outcomes: dict) -> str:
    """The corpus as a Markdown table: kind, FFmpeg's decoded count, ours, the outcome
    (``outcomes``: name -> supervised.Outcome)."""
    from videoreview.records import Analysis

    rows = ["| file | FFmpeg decodes | ours | outcome | s | MB over start |", "| --- | --- | --- | --- | --- | --- |"]
    for f in files:
        o = outcomes[f.name]
        ours = Analysis.load(o.analysis).video.frame_count if o.status == "ok" else "-"
        said = o.message.splitlines()[0].replace(f"{f.path}: ", "") if o.message else ""
        rows.append(f"| {f.kind} | {f.ffprobe_frames if f.ffprobe_frames is not None else '-'} | {ours} | "
                    f"{o.status}{': ' + said if said else ''} | {o.seconds:.1f} | {o.peak_mb - o.start_mb:.0f} |")
    return "\n".join(rows)
