"""Frame-accurate playback of one video on top of QMediaPlayer.

QMediaPlayer thinks in milliseconds and reports a position that lags the picture; a
reviewer thinks in frames. :class:`Player` keeps the frame actually shown (from the video
sink's frame timestamps), turns frame requests into seeks to the middle of the frame (a
seek to a frame's exact start time shows the frame before it), coalesces seeks issued
faster than the decoder serves them, and adds NLE-style J/K/L shuttle including reverse
play, which QMediaPlayer cannot do.

Everything is driven by signals: nothing here waits for the decoder.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, QUrl, Signal
from PySide6.QtMultimedia import QAudioOutput, QMediaPlayer, QVideoFrame

from ..records import VideoInfo

MIN_RATE, MAX_RATE = 0.25, 4.0
# A seek whose frame has not come after this long no longer holds back the next one
# (a seek past the end, or a decoder that gave up, delivers nothing).
SEEK_TIMEOUT_MS = 1000
# Reverse shuttle redraws at most this often: more would only queue seeks.
REVERSE_MAX_FPS = 60

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
    playingChanged = Signal(bool)  # forward play or reverse shuttle started / stopped
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
        self._loaded = False
        self._shown_frame = -1
        self._shown_time = 0.0
        self._speed = 1.0
        self._playing = False
        # Seek coalescing: one seek in flight at a time; newer targets replace each other.
        self._awaiting: int | None = None  # frame of the seek in flight
        self._pending: int | None = None  # the latest target asked for meanwhile
        self._seek_timer = QTimer(self, singleShot=True, interval=SEEK_TIMEOUT_MS)
        self._seek_timer.timeout.connect(self._seek_served)
        self._reverse_timer = QTimer(self)
        self._reverse_timer.timeout.connect(self._reverse_tick)
        self._reverse_anchor = (0, 0.0)  # (frame, monotonic seconds) reverse play counts from

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
        self._awaiting = 0  # the first frame, shown by the pause below, acts as a seek to 0
        self._seek_timer.start()
        self._player.setSource(QUrl.fromLocalFile(os.fspath(path)))
        self._player.setPlaybackRate(self._speed)
        self._player.pause()
        self.videoChanged.emit(info)

    def close(self) -> None:
        was_open = self._info is not None
        self._stop_reverse()
        self._seek_timer.stop()
        self._info = None
        self._loaded = False
        self._awaiting = self._pending = None
        self._shown_frame, self._shown_time = -1, 0.0
        self._player.stop()
        self._player.setSource(QUrl())
        self._sync_playing()
        if was_open:
            self.videoChanged.emit(None)

    def video_info(self) -> VideoInfo | None:
        return self._info

    # ---------------------------------------------------------------- playback

    def play(self) -> None:
        if self._info is None:
            return
        self._stop_reverse()
        if self._latest_target() >= self._last_frame():
            self._request_frame(0)  # play at the end starts over
        self._player.setPlaybackRate(self._speed)
        self._player.play()

    def pause(self) -> None:
        self._stop_reverse()
        if self._info is not None:
            self._player.pause()

    def toggle_play(self) -> None:
        if self.is_playing():
            self.pause()
        else:
            self.play()

    def is_playing(self) -> bool:
        return self._playing

    def rate(self) -> float:
        return -self._speed if self._reverse_timer.isActive() else self._speed

    def set_rate(self, rate: float) -> None:
        """Speed, 0.25x to 4x, in whichever direction it plays now."""
        speed = min(MAX_RATE, max(MIN_RATE, abs(rate)))
        if speed == self._speed:
            return
        self._speed = speed
        self._player.setPlaybackRate(speed)
        if self._reverse_timer.isActive():
            self._start_reverse()  # restart the clock from here at the new speed
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
            if self._player.playbackState() == QMediaPlayer.PlaybackState.PlayingState:
                self.set_rate(self._speed * 2)
            else:
                self._stop_reverse()
                self.set_rate(1.0)
                self.play()
        elif key == "J":
            if self._reverse_timer.isActive():
                self.set_rate(self._speed * 2)
            elif self._info is not None:
                self.set_rate(1.0)
                self._player.pause()
                self._start_reverse()
        else:
            raise ValueError(f"shuttle key must be J, K or L, not {key!r}")

    # ------------------------------------------------------------------ seeking

    def seek(self, seconds: float) -> None:
        """Show the frame on screen at ``seconds``."""
        if self._info is not None:
            self.seek_frame(math.floor(seconds * self._info.fps + 1e-6))

    def seek_frame(self, n: int) -> None:
        """Show frame ``n`` (clamped to the video). Play state is kept; reverse shuttle stops."""
        if self._info is None:
            return
        if self._reverse_timer.isActive():
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
        """The frame the screen ends on once the seeks asked for have been served."""
        return self._latest_target()

    def current_time(self) -> float:
        """Start time in seconds of the frame on screen."""
        return self._shown_time

    # ---------------------------------------------------------------- internals

    def _last_frame(self) -> int:
        return max(0, self._info.frame_count - 1) if self._info else 0

    def _latest_target(self) -> int:
        """The frame the screen will end on once the seeks asked for have been served."""
        if self._pending is not None:
            return self._pending
        if self._awaiting is not None:
            return self._awaiting
        return max(0, self._shown_frame)

    def _request_frame(self, n: int, *, again: bool = False) -> None:
        """Seek to frame ``n``; ``again`` even when it is the frame last shown."""
        n = min(self._last_frame(), max(0, int(n)))
        if self._awaiting is not None:
            self._pending = n  # issued when the frame in flight arrives
            return
        paused = self._player.playbackState() != QMediaPlayer.PlaybackState.PlayingState
        if paused and n == self._shown_frame and not again:
            return
        self._issue_seek(n)

    def _issue_seek(self, n: int) -> None:
        self._awaiting = n
        self._seek_timer.start()
        # The middle of the frame: its exact start time shows the frame before.
        self._player.setPosition(round((n + 0.5) / self._info.fps * 1000))

    def _seek_served(self) -> None:
        self._seek_timer.stop()
        self._awaiting = None
        if self._pending is not None:
            target, self._pending = self._pending, None
            self._issue_seek(target)

    def _on_video_frame(self, frame: QVideoFrame) -> None:
        # Frames of the previous source can still be queued while the new one loads, and
        # the end of the stream sends an empty frame.
        if self._info is None or not self._loaded or not frame.isValid() or frame.startTime() < 0:
            return
        # Qt already counts startTime from the first frame, also when the container starts
        # later than 0 (checked with a 2.5 s offset in MKV and with MPEG-TS).
        seconds = frame.startTime() / 1e6
        index = min(self._last_frame(), max(0, round(seconds * self._info.fps)))
        self._shown_frame, self._shown_time = index, seconds
        if self._awaiting is not None:
            self._seek_served()
        self.frameShown.emit(index, seconds)

    def _on_status(self, status: QMediaPlayer.MediaStatus) -> None:
        if self._info is None:
            return
        if status == QMediaPlayer.MediaStatus.LoadedMedia and not self._loaded:
            if not self._player.hasVideo():
                self._fail("it has no video stream")
                return
            self._loaded = True
            duration = self._info.duration or self._player.duration() / 1000
            self.durationKnown.emit(duration)
        elif status == QMediaPlayer.MediaStatus.EndOfMedia:
            # Qt stops and clears the picture at the end; a reviewer wants the last frame.
            self._player.pause()
            self._request_frame(self._last_frame(), again=True)

    def _on_error(self, error: QMediaPlayer.Error, message: str) -> None:
        if error != QMediaPlayer.Error.NoError and self._info is not None:
            reason = _ERROR_REASONS.get(error, "playback failed")
            self._fail(f"{reason} (Qt: {message})")

    def _fail(self, reason: str) -> None:
        name = Path(self._path).name
        self.close()
        self.error.emit(f"Cannot play {name}: {reason}.")

    def _sync_playing(self) -> None:
        playing = (self._reverse_timer.isActive()
                   or self._player.playbackState() == QMediaPlayer.PlaybackState.PlayingState)
        if playing != self._playing:
            self._playing = playing
            self.playingChanged.emit(playing)

    # Reverse shuttle: seek backward on a timer, as far as the clock says; the seek
    # coalescing drops the frames the decoder cannot keep up with.

    def _start_reverse(self) -> None:
        was_reversing = self._reverse_timer.isActive()
        self._reverse_anchor = (self._latest_target(), time.monotonic())
        frames_per_second = self._info.fps * self._speed
        self._reverse_timer.start(max(round(1000 / REVERSE_MAX_FPS), round(1000 / frames_per_second)))
        if not was_reversing:
            self.rateChanged.emit(self.rate())
        self._sync_playing()

    def _stop_reverse(self) -> None:
        if self._reverse_timer.isActive():
            self._reverse_timer.stop()
            self.rateChanged.emit(self.rate())
            self._sync_playing()

    def _reverse_tick(self) -> None:
        start_frame, start_time = self._reverse_anchor
        target = start_frame - math.floor((time.monotonic() - start_time) * self._info.fps * self._speed)
        if target <= 0:
            target = 0
            self._stop_reverse()
        self._request_frame(target)
