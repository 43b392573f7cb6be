"""Frame-accurate playback of one video: QMediaPlayer plays, our own decoder shows paused frames.

A reviewer thinks in frames, and the frames must be the ones the analysis saw. QMediaPlayer
thinks in milliseconds and its seeks are not exact on every file: variable frame rate,
edit lists, MPEG-TS and program streams, all-intra AVI, and it stops at a damaged packet or
has no decoder for some codecs (AV1 without hardware). So a paused frame (open, seek,
step, pause, reverse shuttle) is decoded by the same decoder as the analysis, on a thread
(:class:`~videoreview.gui.work.thumbnails.ThumbnailLoader`), and shown over the video item
(``stillChanged``); frame ``n`` is shown at the time the timeline gives it. While playing,
QMediaPlayer's frames are shown and mapped to indices by the file's real frame times.
Where QMediaPlayer cannot play the file (it failed, or played nothing), playing steps
through our decoded frames on a clock instead, as J (reverse shuttle) always does.

Everything is driven by signals: nothing here waits for a decoder.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, QThread, QTimer, QUrl, Signal
from PySide6.QtGui import QImage
from PySide6.QtMultimedia import QAudioOutput, QMediaPlayer, QVideoFrame

from ...records import VideoInfo
from ..work.thumbnails import ThumbnailLoader
from . import gil_free_calls

MIN_RATE, MAX_RATE = 0.25, 4.0
# A paused frame that has not come after this long is no longer waited for (the
# decoder gave up on the file); the next request goes ahead.
SEEK_TIMEOUT_MS = 1000
# Shuttle on our own frames (J, or playing a file QMediaPlayer cannot) redraws at most
# this often: more would only queue decodes.
SHUTTLE_MAX_FPS = 60
# Paused frames are decoded at the video's size, up to this height (a 4K frame is shown
# in a window a fraction of its size).
STILL_MAX_HEIGHT = 1080

_ERROR_REASONS = {
    QMediaPlayer.Error.FormatError: "it is not a video format or codec that can be played",
    QMediaPlayer.Error.ResourceError: "the file could not be read",
    QMediaPlayer.Error.AccessDeniedError: "access to the file was denied",
    QMediaPlayer.Error.NetworkError: "a network error interrupted it",
}


class Player(QObject):
    """One video at a time, addressed by frame index.

    ``rate()`` is signed: negative while J shuttles backward."""

    frameShown = Signal(int, float)  # frame index, its time in seconds: each frame displayed
    stillChanged = Signal(object)  # QImage of the paused frame to show, or None while QMediaPlayer's show
    playingChanged = Signal(bool)  # playing or shuttling started / stopped
    rateChanged = Signal(float)
    mutedChanged = Signal(bool)
    durationKnown = Signal(float)  # seconds, once the opened video has loaded
    videoChanged = Signal(object)  # the VideoInfo opened, or None once closed or failed
    error = Signal(str)  # one sentence naming the file and what is wrong

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._player = QMediaPlayer(self)
        self._audio = QAudioOutput(self)  # with no audio device it stays silent, nothing fails
        self._player.setAudioOutput(self._audio)
        self._sink = None
        self._info: VideoInfo | None = None
        self._path = ""
        self._stills: ThumbnailLoader | None = None  # our decoder, for paused frames
        self._times: np.ndarray | None = None  # each frame's time, once the decoder has the file
        self._loaded = False
        self._qt_failed = ""  # why QMediaPlayer cannot play this file ("" while it can)
        self._qt_frames: int | None = None  # frames QMediaPlayer showed since play(); None: not asked to play
        self._still_shown = False
        self._shown_frame = -1
        self._shown_time = 0.0
        self._speed = 1.0
        self._playing = False
        self._awaiting: int | None = None  # the paused frame asked for and not shown yet
        self._deferred: float | None = None  # a seek in seconds waiting for the frame times
        self._seek_timer = QTimer(self, singleShot=True, interval=SEEK_TIMEOUT_MS)
        self._seek_timer.timeout.connect(self._give_up_waiting)
        self._shuttle_timer = QTimer(self)
        self._shuttle_timer.timeout.connect(self._shuttle_tick)
        self._shuttle_dir = 0  # +1 forward, -1 backward while the shuttle timer runs
        self._shuttle_anchor = (0, 0.0)  # (frame, monotonic seconds) the shuttle counts from

        self._player.mediaStatusChanged.connect(self._on_status)
        self._player.playbackStateChanged.connect(self._sync_playing)
        self._player.errorOccurred.connect(self._on_error)
        self._audio.mutedChanged.connect(self.mutedChanged)

    # ----------------------------------------------------------------- opening

    def set_video_output(self, item) -> None:
        """Show the video in ``item`` (a QGraphicsVideoItem); its sink tells which frame is shown."""
        if self._sink is not None:
            self._sink.videoFrameChanged.disconnect(self._on_video_frame)
        self._player.setVideoOutput(item)
        self._sink = item.videoSink()
        self._sink.videoFrameChanged.connect(self._on_video_frame)

    def open(self, path: str, info: VideoInfo) -> None:
        """Load ``path`` paused on its first frame; ``info`` is what the probe found."""
        self.close()
        if not os.path.isfile(path):
            self.error.emit(f"Cannot play {Path(path).name}: file not found ({path}).")
            return
        self._info, self._path = info, path
        # A small cache: 16 stills of a 1080p video are 100 MB.
        self._stills = ThumbnailLoader(path, self, cache_size=16, priority=QThread.Priority.NormalPriority)
        self._stills.ready.connect(self._on_still)
        self._stills.opened.connect(self._on_times)
        self._stills.failed.connect(self._on_stills_failed)
        self._request_frame(0, again=True)
        gil_free_calls.set_source(self._player, QUrl.fromLocalFile(os.fspath(path)))
        self._player.setPlaybackRate(self._speed)
        self._player.pause()
        self.videoChanged.emit(info)

    def close(self) -> None:
        was_open = self._info is not None
        self._stop_shuttle()
        self._seek_timer.stop()
        if self._stills is not None:
            self._stills.close()
            self._stills = None
        self._info, self._times = None, None
        self._loaded, self._qt_failed, self._qt_frames = False, "", None
        self._awaiting = self._deferred = None
        self._shown_frame, self._shown_time = -1, 0.0
        gil_free_calls.stop(self._player)  # see gil_free_calls.py: a plain stop() could deadlock
        gil_free_calls.set_source(self._player, QUrl())
        self._show_still(None)
        self._sync_playing()
        if was_open:
            self.videoChanged.emit(None)

    def video_info(self) -> VideoInfo | None:
        return self._info

    # ---------------------------------------------------------------- playback

    def play(self) -> None:
        if self._info is None:
            return
        self._stop_shuttle()
        if self._latest_target() >= self._last_frame():
            self._request_frame(0)  # play at the end starts over
        if self._qt_failed:
            self._start_shuttle(+1)
            return
        self._player.setPosition(self._position_ms(self._latest_target()))
        self._player.setPlaybackRate(self._speed)
        self._qt_frames = 0
        self._player.play()

    def pause(self) -> None:
        self._stop_shuttle()
        self._qt_frames = None
        if self._info is not None and self._qt_playing():
            self._player.pause()
            self._request_frame(self._shown_frame, again=True)  # our decoder's picture of it

    def toggle_play(self) -> None:
        if self.is_playing():
            self.pause()
        else:
            self.play()

    def is_playing(self) -> bool:
        return self._playing

    def rate(self) -> float:
        return -self._speed if self._shuttle_dir < 0 else self._speed

    def set_rate(self, rate: float) -> None:
        """Speed, 0.25x to 4x, in whichever direction it plays now."""
        speed = min(MAX_RATE, max(MIN_RATE, abs(rate)))
        if speed == self._speed:
            return
        self._speed = speed
        self._player.setPlaybackRate(speed)
        if self._shuttle_dir:
            self._start_shuttle(self._shuttle_dir)  # restart the clock from here at the new speed
        self.rateChanged.emit(self.rate())

    def set_muted(self, muted: bool) -> None:
        self._audio.setMuted(muted)

    def is_muted(self) -> bool:
        return self._audio.isMuted()

    def shuttle(self, key: str) -> None:
        """J/K/L: L plays forward, again for 2x then 4x; K pauses at 1x; J plays backward
        likewise."""
        key = key.upper()
        if key == "K":
            self.pause()
            self.set_rate(1.0)
        elif key == "L":
            if self.is_playing() and self.rate() > 0:
                self.set_rate(self._speed * 2)
            else:
                self._stop_shuttle()
                self.set_rate(1.0)
                self.play()
        elif key == "J":
            if self._shuttle_dir < 0:
                self.set_rate(self._speed * 2)
            elif self._info is not None:
                self.pause()
                self.set_rate(1.0)
                self._start_shuttle(-1)
        else:
            raise ValueError(f"shuttle key must be J, K or L, not {key!r}")

    # ------------------------------------------------------------------ seeking

    def seek(self, seconds: float) -> None:
        """Show the frame on screen at ``seconds`` (as soon as the file's frame times are
        known: until then frames are only known by index)."""
        if self._info is None:
            return
        if self._times is None and self._stills is not None:
            self._deferred = seconds
        else:
            self.seek_frame(self._index_at(seconds))

    def settled(self) -> bool:
        """True when the frame last asked for is the one on screen."""
        return self._awaiting is None and self._deferred is None and self._shown_frame >= 0

    def seek_frame(self, n: int) -> None:
        """Show frame ``n`` (clamped to the video). Play state is kept; shuttling stops."""
        if self._info is None:
            return
        if self._shuttle_dir:
            self.pause()
        self._request_frame(n)

    def step(self, frames: int) -> None:
        """Pause and move ``frames`` frames from the frame shown (or about to be)."""
        if self._info is None:
            return
        self.pause()
        self._request_frame(self._latest_target() + frames)

    def current_frame(self) -> int:
        """Index of the frame on screen (-1 before the first one)."""
        return self._shown_frame

    def target_frame(self) -> int:
        """The frame the screen ends on once the frames asked for have been shown."""
        return self._latest_target()

    def current_time(self) -> float:
        """Start time in seconds of the frame on screen."""
        return self._shown_time

    # ---------------------------------------------------------------- internals

    def _last_frame(self) -> int:
        return max(0, self._info.frame_count - 1) if self._info else 0

    def _latest_target(self) -> int:
        return self._awaiting if self._awaiting is not None else max(0, self._shown_frame)

    def _qt_playing(self) -> bool:
        return self._player.playbackState() == QMediaPlayer.PlaybackState.PlayingState

    def _time_of(self, n: int) -> float:
        """Start time of frame ``n``: the file's own, once our decoder has the file."""
        if self._times is not None and len(self._times):
            return float(self._times[min(n, len(self._times) - 1)])
        return n / self._info.fps

    def _index_at(self, seconds: float, slack: float = 1e-6) -> int:
        """The frame on screen at ``seconds`` (the last one starting at or before it,
        give or take ``slack`` seconds)."""
        if self._times is not None and len(self._times):
            index = int(np.searchsorted(self._times, seconds + slack, side="right")) - 1
        else:
            index = math.floor((seconds + slack) * self._info.fps)
        return min(self._last_frame(), max(0, index))

    def _position_ms(self, n: int) -> int:
        """Where QMediaPlayer shows frame ``n``: the middle of it (its exact start time
        shows the frame before)."""
        start = self._time_of(n)
        end = self._time_of(n + 1) if n < self._last_frame() else start + 1 / self._info.fps
        return round((start + end) / 2 * 1000)

    def _request_frame(self, n: int, *, again: bool = False) -> None:
        """Show frame ``n``; ``again`` even when it is the frame shown."""
        n = min(self._last_frame(), max(0, int(n)))
        if self._qt_playing():
            self._player.setPosition(self._position_ms(n))  # it plays on from there
            return
        if n == self._latest_target() and self._shown_frame >= 0 and not again:
            return
        self._awaiting = n
        self._seek_timer.start()
        height = min(self._info.height, STILL_MAX_HEIGHT)
        self._stills.request([n], height)  # newest request first; a cached frame comes at once

    def _on_still(self, frame: int, image: QImage) -> None:
        # A frame asked for earlier can come after a newer request: it shows on the way
        # (as a drag passes it), never after the frame asked for last.
        if self._info is None or self._awaiting is None or self._qt_playing():
            return
        if frame == self._awaiting:
            self._awaiting = None
            self._seek_timer.stop()
        self._show_still(image)
        self._show(frame, self._time_of(frame))

    def _show(self, frame: int, seconds: float) -> None:
        self._shown_frame, self._shown_time = frame, seconds
        self.frameShown.emit(frame, seconds)

    def _show_still(self, image: QImage | None) -> None:
        if image is not None or self._still_shown:
            self._still_shown = image is not None
            self.stillChanged.emit(image)

    def _give_up_waiting(self) -> None:
        self._awaiting = None

    def _on_times(self, times: np.ndarray) -> None:
        self._times = times
        if self._deferred is not None:
            seconds, self._deferred = self._deferred, None
            self.seek(seconds)
        if self._qt_failed and not self._loaded:
            self._loaded_now()  # QMediaPlayer could not open it; our decoder can

    def _on_stills_failed(self, message: str) -> None:
        self._fail(self._qt_failed or message)

    def _on_video_frame(self, frame: QVideoFrame) -> None:
        # Paused, our decoder's frame is shown. Frames of the previous source can still be
        # queued while the new one loads, and the end of the stream sends an empty frame.
        if (self._info is None or not self._loaded or not self._qt_playing() or not frame.isValid()
                or frame.startTime() < 0):
            return
        # Qt counts startTime from the first frame, also when the container starts later than 0.
        seconds = frame.startTime() / 1e6
        self._qt_frames = (self._qt_frames or 0) + 1
        self._awaiting = None
        self._show_still(None)
        index = self._index_at(seconds, slack=0.5 / self._info.fps)  # Qt's clock may be a little off ours
        self._show(index, self._time_of(index))

    def _on_status(self, status: QMediaPlayer.MediaStatus) -> None:
        if self._info is None:
            return
        if status == QMediaPlayer.MediaStatus.LoadedMedia and not self._loaded:
            if not self._player.hasVideo():
                self._fail("it has no video stream")
                return
            self._loaded_now()
        elif status == QMediaPlayer.MediaStatus.EndOfMedia and self._qt_frames is not None:
            played, self._qt_frames = self._qt_frames, None
            self._player.pause()
            if not played:  # it played nothing: no decoder for this codec
                self._qt_failed = "QMediaPlayer showed no frame"
                self._start_shuttle(+1)
            else:  # Qt clears the picture at the end; a reviewer wants the last frame
                self._request_frame(self._last_frame(), again=True)

    def _loaded_now(self) -> None:
        self._loaded = True
        self.durationKnown.emit(self._info.duration or self._player.duration() / 1000)

    def _on_error(self, error: QMediaPlayer.Error, message: str) -> None:
        if error == QMediaPlayer.Error.NoError or self._info is None:
            return
        self._qt_failed = f"{_ERROR_REASONS.get(error, 'playback failed')} (Qt: {message})"
        if not self._loaded:
            if self._times is not None:
                self._loaded_now()  # our decoder has it: paused frames and our own playing
            return  # else the decoder's answer decides (_on_times or _on_stills_failed)
        # Mid-file (a damaged packet): play on with our decoder from the frame shown.
        if self._qt_frames is not None:
            self._qt_frames = None
            self._player.pause()  # it may go on after an error, but only we play now
            self._start_shuttle(+1)
        else:
            self._request_frame(self._shown_frame, again=True)

    def _fail(self, reason: str) -> None:
        name = Path(self._path).name
        self.close()
        self.error.emit(f"Cannot play {name}: {reason}.")

    def _sync_playing(self) -> None:
        playing = bool(self._shuttle_dir) or self._qt_playing()
        if playing != self._playing:
            self._playing = playing
            self.playingChanged.emit(playing)

    # Shuttle on our own frames: the frame the clock says is asked for on a timer; the
    # newest request overtakes older ones, so frames the decoder cannot keep up with drop.

    def _start_shuttle(self, direction: int) -> None:
        was = self._shuttle_dir
        self._shuttle_dir = direction
        self._shuttle_anchor = (self._latest_target(), time.monotonic())
        frames_per_second = self._info.fps * self._speed
        self._shuttle_timer.start(max(round(1000 / SHUTTLE_MAX_FPS), round(1000 / frames_per_second)))
        if was != direction:
            self.rateChanged.emit(self.rate())
        self._sync_playing()

    def _stop_shuttle(self) -> None:
        if self._shuttle_dir:
            self._shuttle_timer.stop()
            self._shuttle_dir = 0
            self.rateChanged.emit(self.rate())
            self._sync_playing()

    def _shuttle_tick(self) -> None:
        start_frame, start_time = self._shuttle_anchor
        elapsed = (time.monotonic() - start_time) * self._speed * self._shuttle_dir
        target = self._index_at(self._time_of(start_frame) + elapsed)
        if (target <= 0 and self._shuttle_dir < 0) or (target >= self._last_frame() and self._shuttle_dir > 0):
            self._stop_shuttle()
        self._request_frame(target)
