"""Transport controls under the video: stepping, play, speed, mute, overlay toggles.

The buttons call the Player directly, except the boundary and keyframe jumps, which only
emit signals: the window knows where the boundaries and keyframes are. The shortcuts in
the tooltips are bound by the main window.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QStyle, QToolBar, QToolButton, QWidget

from ...records import VideoInfo
from ...timecode import format_time
from .overlay_table import overlay_rows
from .player import Player

SPEEDS = (0.25, 0.5, 1.0, 1.5, 2.0, 4.0)


class TransportBar(QWidget):
    previousBoundary = Signal()
    nextBoundary = Signal()
    previousKeyframe = Signal()
    nextKeyframe = Signal()
    overlayToggled = Signal(str, bool)  # overlay name (overlay_table.py), shown

    def __init__(self, player: Player, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.player = player
        self._info: VideoInfo | None = None
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.setSpacing(2)

        def button(icon: QStyle.StandardPixmap, tip: str, slot, into=layout) -> QToolButton:
            b = QToolButton(self)
            b.setIcon(self.style().standardIcon(icon, None, self))
            b.setToolTip(tip)
            b.setAutoRaise(True)
            b.clicked.connect(slot)
            into.addWidget(b)
            return b

        sp = QStyle.StandardPixmap
        self.previous_boundary_button = button(sp.SP_MediaSkipBackward, "Previous boundary ( [ )",
                                               self.previousBoundary)
        self.previous_keyframe_button = button(sp.SP_MediaSeekBackward, "Previous keyframe (Shift+[ )",
                                               self.previousKeyframe)
        self.step_back_button = button(sp.SP_ArrowLeft, "Step back one frame (Left)", lambda: player.step(-1))
        self.play_button = button(sp.SP_MediaPlay, "", player.toggle_play)
        self.step_forward_button = button(sp.SP_ArrowRight, "Step forward one frame (Right)",
                                          lambda: player.step(1))
        self.next_keyframe_button = button(sp.SP_MediaSeekForward, "Next keyframe (Shift+] )", self.nextKeyframe)
        self.next_boundary_button = button(sp.SP_MediaSkipForward, "Next boundary ( ] )", self.nextBoundary)

        self.time_label = QLabel(self)
        self.time_label.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.time_label.setToolTip("Time of the frame shown / duration (minutes:seconds.frame), and its frame number")
        layout.addSpacing(8)
        layout.addWidget(self.time_label)
        layout.addStretch(1)

        # Speed, mute and the overlay toggles: what does not fit goes under the bar's »
        # button, so the row never holds the window wider than a small screen.
        tools = QToolBar(self)
        tools.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        layout.addWidget(tools)
        self.speed_box = QComboBox(self)
        for speed in SPEEDS:
            self.speed_box.addItem(f"{speed:g}×", speed)
        self.speed_box.setCurrentIndex(SPEEDS.index(1.0))
        self.speed_box.setToolTip("Playback speed (J / K / L shuttle: backward / stop / forward, again for faster)")
        self.speed_box.currentIndexChanged.connect(lambda i: player.set_rate(self.speed_box.itemData(i)))
        tools.addWidget(self.speed_box)

        self.mute_button = button(sp.SP_MediaVolume, "Mute", player.set_muted, into=tools)
        self.mute_button.setCheckable(True)
        tools.addSeparator()
        self.overlay_buttons: dict[str, QToolButton] = {}
        for row in overlay_rows():
            name = row.name
            b = QToolButton(self)
            b.setText(row.button)
            b.setCheckable(True)
            b.setChecked(True)
            b.setToolTip(f"Show {row.button.lower()} on the video ({row.key})")
            b.toggled.connect(lambda on, name=name: self.overlayToggled.emit(name, on))
            tools.addWidget(b)
            self.overlay_buttons[name] = b

        player.frameShown.connect(self._show_time)
        player.playingChanged.connect(self._show_playing)
        player.rateChanged.connect(self._show_rate)
        player.mutedChanged.connect(self._show_muted)
        player.videoChanged.connect(self._on_video_changed)
        self._show_playing(player.is_playing())
        self._show_muted(player.is_muted())
        self._on_video_changed(player.video_info())

    def set_overlay_checked(self, name: str, on: bool) -> None:
        """Show an overlay toggled elsewhere (a menu, a shortcut) without emitting overlayToggled."""
        button = self.overlay_buttons[name]
        button.blockSignals(True)
        button.setChecked(on)
        button.blockSignals(False)

    def _on_video_changed(self, info: VideoInfo | None) -> None:
        self._info = info
        for b in (self.previous_boundary_button, self.previous_keyframe_button, self.step_back_button,
                  self.play_button, self.step_forward_button, self.next_keyframe_button,
                  self.next_boundary_button, self.speed_box):
            b.setEnabled(info is not None)
        if info is None:
            self.time_label.setText("--:--.-- / --:--.--")
            self.time_label.setMinimumWidth(0)
            return
        # As wide as the longest text this video can show, so the row does not jump as frames change.
        self._show_time(info.frame_count, info.duration)
        self.time_label.setMinimumWidth(self.time_label.sizeHint().width())
        self._show_time(0, 0.0)

    def _show_time(self, frame: int, seconds: float) -> None:
        if self._info is None:
            return
        fps = self._info.fps
        self.time_label.setText(f"{format_time(seconds, fps)} / {format_time(self._info.duration, fps)}"
                                f"   frame {frame}")

    def _show_playing(self, playing: bool) -> None:
        icon = QStyle.StandardPixmap.SP_MediaPause if playing else QStyle.StandardPixmap.SP_MediaPlay
        self.play_button.setIcon(self.style().standardIcon(icon, None, self))
        self.play_button.setToolTip(f"{'Pause' if playing else 'Play'} (Space)")

    def _show_rate(self, rate: float) -> None:
        i = self.speed_box.findData(abs(rate))
        if i >= 0:
            self.speed_box.blockSignals(True)  # showing the player's rate must not set it again
            self.speed_box.setCurrentIndex(i)
            self.speed_box.blockSignals(False)

    def _show_muted(self, muted: bool) -> None:
        icon = QStyle.StandardPixmap.SP_MediaVolumeMuted if muted else QStyle.StandardPixmap.SP_MediaVolume
        self.mute_button.setIcon(self.style().standardIcon(icon, None, self))
        self.mute_button.setChecked(muted)
        self.mute_button.setToolTip("Unmute" if muted else "Mute")
