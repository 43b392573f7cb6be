"""PyAV decoding: the fallback that works on anything FFmpeg can read.

Frames are matched to indices by their pts (never by counting), so a frame that fails to
decode cannot shift the ones after it. Random access seeks to the keyframe before the
wanted frame and decodes forward; a seek that lands too late is retried further back.

``hardware="cuda"``: decode 8-bit 4:2:0 video on NVDEC where FFmpeg's decoder for the
codec has it, the frames left on the GPU for gpu_frames.py (FFmpeg decodes in software
what NVDEC cannot); where the device will not start at all, ``hardware_note`` says why
and the file is decoded in software. Only a whole-file pass reads this way.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from ..errors import MediaError
from .probe import StreamIndex, decode_packets, open_container, set_threads

# Scaling: bicubic matches what decord's filter graph does, so both backends give the
# same pixels; threads=1 because sws slice threads fight the decoder threads (3x slower).
_INTERPOLATION = "BICUBIC"


def to_rgb(frame, size: tuple[int, int], rotation: int, reformatter=None) -> np.ndarray:
    """An av.VideoFrame as RGB uint8 [H, W, 3] at display ``size`` (w, h), rotated for display.
    Pass the same ``reformatter`` for a run of frames: it keeps its scaler set up."""
    w, h = size
    if rotation in (90, 270):
        w, h = h, w  # scale the stored frame, then turn it
    kw = dict(width=w, height=h, format="rgb24", interpolation=_INTERPOLATION, threads=1)
    rgb = reformatter.reformat(frame, **kw) if reformatter is not None else frame.reformat(**kw)
    arr = rgb.to_ndarray()
    if rotation:
        arr = np.rot90(arr, k=-(rotation // 90))  # np.rot90 turns counter-clockwise for k > 0
    return arr


class PyAVReader:
    name = "pyav"

    def __init__(self, index: StreamIndex, hardware: str | None = None):
        self._index = index
        self.hardware = hardware  # "cuda": NVDEC; None once it would not start
        self.hardware_note: str | None = None
        self._container = None
        self._stream = None
        self._next = None  # index of the frame the decoder will give next, or None if unknown
        self._frames = None  # the live decode generator
        self._pts_to_index = {int(p): i for i, p in enumerate(index.pts)}
        self._key_before = index.keyframe_before()
        self._reformatter = None
        self._wanted_pts: int | None = None  # the frame being decoded towards

    # -- plumbing

    def _open(self) -> None:
        self.close()
        self._container = self._open_on_device() if self.hardware else None
        if self._container is None:
            self._container = open_container(self._index.path, 1)
        self._stream = self._container.streams[self._index.stream_index]
        set_threads(self._stream.codec_context)
        self._frames = None
        self._next = 0

    def prepare(self) -> None:
        """Open the file now, so that ``hardware`` says whether NVDEC decodes it."""
        if self._container is None:
            self._open()

    def _open_on_device(self):
        """The container with NVDEC set up, or None (and ``hardware_note``) where it will not
        start; then open_container opens it as usual (and names any fault of the file)."""
        import av
        from av.codec.hwaccel import HWAccel

        try:
            hwaccel = HWAccel(self.hardware, allow_software_fallback=True, is_hw_owned=True)
            container = av.open(self._index.path, metadata_errors="replace", hwaccel=hwaccel)
        except (av.error.FFmpegError, OSError, ValueError) as exc:  # no GPU, a driver without NVDEC
            self.hardware_note = f"{self.hardware} decoding would not start ({type(exc).__name__}: {exc})"
            self.hardware = None
            return None
        pixels = container.streams[self._index.stream_index].codec_context.pix_fmt
        if pixels not in ("yuv420p", "yuvj420p"):  # 10-bit, 4:2:2, 4:4:4: in software, as before
            container.close()
            self.hardware = None
            return None
        return container

    def close(self) -> None:
        self._frames = None
        if self._container is not None:
            try:
                self._container.close()
            finally:
                self._container = None
                self._stream = None

    def _packets(self):
        """The stream's packets from the current position on. Those shown before the frame
        being decoded towards are decoded only if other frames refer to them: nothing
        shows them, and skipping the rest (most B-frames) makes a seek into a long GOP
        about a third quicker. A whole-file pass wants every frame and skips none."""
        context = self._stream.codec_context
        for packet in self._container.demux(self._stream):
            wanted = self._wanted_pts
            early = wanted is not None and packet.pts is not None and packet.pts < wanted
            context.skip_frame = "NONREF" if early else "DEFAULT"
            yield packet

    def _decoded(self):
        """Decoded frames from the current position on, with their index (None if unknown)."""
        frames = decode_packets(self._stream, self._packets())
        if not self._index.seekable:
            # No timestamps in the file: frames are counted from the start (always reopened).
            yield from enumerate(frames)
            return
        lookup = self._pts_to_index.get
        for frame in frames:
            yield (lookup(frame.pts) if frame.pts is not None else None), frame

    def _seek_to(self, key: int) -> None:
        import av

        if key == 0 or not self._index.seekable or self._container is None:
            self._open()  # reopening is exact for every format
        if key > 0 and self._index.seekable:
            try:
                # Seek by the keyframe's pts: lands on it whether the demuxer compares pts
                # (mov) or dts (dts <= pts). Its dts would land one GOP early in mov.
                self._container.seek(int(self._index.pts[key]), backward=True, stream=self._stream)
            except av.error.FFmpegError:
                self._open()  # cannot seek: decode from the start
        self._frames = self._decoded()
        self._next = None

    def _position(self, target: int, key: int) -> None:
        """Seek so that the decoder's next frame is at or before ``target``."""
        tries = 0
        while True:
            self._seek_to(key)
            gen = self._frames
            first = None
            for idx, frame in gen:
                if idx is not None:
                    first = (idx, frame)
                    break
            if first is None:
                if key == 0:
                    raise MediaError(self._index.path, f"frame {target} could not be decoded")
                key = 0
                continue
            if first[0] > target and key > 0:
                # The seek landed after the target (inexact seeking): go one keyframe
                # further back, then to the start.
                tries += 1
                key = int(self._key_before[key - 1]) if tries < 2 else 0
                continue
            self._frames = _prepend(first, gen)
            self._next = first[0]
            return

    # -- reading

    def read(self, targets: Sequence[int], size: tuple[int, int]) -> Iterator[tuple[int, np.ndarray]]:
        """(index, RGB frame at ``size``) for each of ``targets``, as ``read_frames`` has them."""
        from av.video.reformatter import VideoReformatter

        if self._reformatter is None:
            self._reformatter = VideoReformatter()
        last = arr = None
        for index, frame in self.read_frames(targets):
            if frame is not last:  # a stand-in frame is converted once
                last, arr = frame, to_rgb(frame, size, self._index.rotation, self._reformatter)
            yield index, arr

    def read_frames(self, targets: Sequence[int]) -> Iterator[tuple[int, object]]:
        """(index, decoded av.VideoFrame) for each of ``targets`` (sorted, unique), in order:
        always the index asked for, so a stage gets exactly the frames it asked for. A listed
        frame that does not decode (damage mid-stream) has the next one that does stand
        in for it, and past the last one that decodes, that last one (as a player holds
        it); the probe drops such frames at the end of the index already."""
        k = 0
        while k < len(targets):
            target = int(targets[k])
            key = int(self._key_before[target])
            self._wanted_pts = int(self._index.pts[target]) if self._index.seekable else None
            if self._frames is None or self._next is None or target < self._next or key > self._next:
                self._position(target, key)
            got = self._decode_to(target)
            if got is None:  # the stream ended right where the last read stopped
                self._position(target, key)
                got = self._decode_to(target)
            idx, frame = got
            while k < len(targets) and (int(targets[k]) <= idx or self._frames is None):
                yield int(targets[k]), frame
                k += 1

    def _decode_to(self, target: int):
        """(index, av frame) of the first decoded frame at or after ``target``; at the end
        of the stream the last one decoded on the way (None if none was)."""
        last = None
        for idx, frame in self._frames:
            if idx is None:
                continue
            self._next = idx + 1
            last = idx, frame
            if idx >= target:
                return last
        self._frames = None
        self._next = None
        return last


def _prepend(item, it):
    yield item
    yield from it
