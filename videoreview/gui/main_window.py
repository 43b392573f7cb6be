"""The main window: video with overlays, transport bar and timeline in the middle, side
panels around, the job queue in the status bar. It owns one VideoDocument per open
video; the analysis queue fills them from worker threads through signals."""

from __future__ import annotations

import bisect
import os
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (QApplication, QDockWidget, QFileDialog, QHBoxLayout, QInputDialog, QLabel, QMainWindow,
                               QMenu, QProgressBar, QSplitter, QStackedWidget, QToolButton, QVBoxLayout, QWidget)

from .. import __version__
from ..media import VIDEO_EXTENSIONS, VIDEO_FILE_FILTER
from ..pipeline import edits, identities
from ..records import Analysis
from .document import VideoDocument
from .jobs import AnalysisQueue, JobProgress
from .library_client import LibraryClient
from .library_panel import LibraryPanel
from .panels import DetailsPanel, IdentitiesPanel, VideosPanel, identity_label
from .summary_panel import SummaryPanel
from .theme import THEMES, apply_theme, saved_overlay_style, saved_theme, settings
from .thumbnails import ThumbnailLoader, wait_for_closed_loaders
from .timeline import Timeline
from .transport import TransportBar
from .video_view import VideoView
from .welcome import WelcomeView, app_icon

MAX_RECENT = 10
REINDEX_DELAY_MS = 1500  # edits come in bursts: the library takes the last state


def collect_videos(paths: list[str]) -> tuple[list[str], list[str]]:
    """Video files among ``paths`` (folders searched recursively) and one message per
    thing that is not a video."""
    found, problems = [], []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            inside = sorted(str(p) for p in path.rglob("*") if p.is_file() and p.suffix.lower() in VIDEO_EXTENSIONS)
            found += inside
            if not inside:
                problems.append(f"{path}: no video files in this folder")
        elif not path.exists():
            problems.append(f"{path}: file not found")
        elif path.suffix.lower() not in VIDEO_EXTENSIONS:
            problems.append(f"{path}: not a video file (unknown type {path.suffix or 'without an extension'})")
        else:
            found.append(str(path))
    return list(dict.fromkeys(os.path.abspath(p) for p in found)), problems


class JobStatus(QWidget):
    """Status-bar view of the analysis queue: current video and stage, progress, ETA, cancel."""

    cancelRequested = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.label = QLabel("Idle")
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setMaximumWidth(220)
        self.bar.setTextVisible(False)
        self.cancel = QToolButton()
        self.cancel.setText("Cancel")
        self.cancel.setToolTip("Cancel the running analysis (Esc)")
        self.cancel.clicked.connect(self.cancelRequested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel)
        self.set_idle()

    def set_idle(self) -> None:
        self.label.setText("Idle")
        self.bar.hide()
        self.cancel.hide()

    def show_progress(self, progress: JobProgress, queued: int) -> None:
        eta = f", {_duration(progress.eta)} left" if progress.eta is not None else ""
        stage_eta = f" ({_duration(progress.stage_eta)})" if progress.stage_eta is not None else ""
        more = f" · {queued} queued" if queued else ""
        self.label.setText(f"{os.path.basename(progress.path)}: {progress.stage} "
                           f"{progress.stage_fraction:.0%}{stage_eta}{eta}{more}")
        self.bar.setValue(round(progress.fraction * 1000))
        self.bar.show()
        self.cancel.show()


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds // 60}m {seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class MainWindow(QMainWindow):
    def __init__(self, engines: dict[str, str] | None = None) -> None:
        super().__init__()
        self.setWindowTitle("videoreview")
        self.setAcceptDrops(True)
        self.documents: dict[str, VideoDocument] = {}
        self.current: VideoDocument | None = None
        self._shown_before: VideoDocument | None = None
        self.last_notice = ""
        self.queue = AnalysisQueue(engines, self)  # None: the engines chosen in the preferences
        self._engine_notices: set[str] = set()
        self.thumbnails: ThumbnailLoader | None = None
        self._opened_in_player: str | None = None
        self._tour_pending = False  # start the tour once the current video is analysed
        self.tour = None
        self._seek_on_open: tuple[str, float] | None = None  # a library result opening at its moment
        self._to_reindex: dict[str, str] = {}  # path -> content hash of an edited, saved analysis
        self._reindex_timer = QTimer(self, singleShot=True, interval=REINDEX_DELAY_MS, timeout=self._reindex)
        self.library = LibraryClient(self)

        self.view = VideoView()
        self.player = self.view.player
        self.transport = TransportBar(self.player)
        self.timeline = Timeline()
        self.notice_label = QLabel()
        self.notice_label.setWordWrap(True)
        self.notice_label.setStyleSheet("background: #7a2f2f; color: white; padding: 6px 10px;")
        self.notice_label.hide()
        self._notice_timer = QTimer(self, singleShot=True, interval=10000, timeout=self.notice_label.hide)

        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.setSpacing(0)
        top_layout.addWidget(self.notice_label)
        top_layout.addWidget(self.view, 1)
        top_layout.addWidget(self.transport)
        self.splitter = QSplitter(Qt.Vertical)
        self.splitter.addWidget(top)
        self.splitter.addWidget(self.timeline)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        # With no video open, the welcome view takes the middle.
        self.welcome = WelcomeView()
        self.middle = QStackedWidget()
        self.middle.addWidget(self.welcome)
        self.middle.addWidget(self.splitter)
        self.setCentralWidget(self.middle)
        self.setWindowIcon(app_icon())
        self.view.set_style(saved_overlay_style())

        self.videos = VideosPanel()
        self.details = DetailsPanel()
        self.gallery = IdentitiesPanel()
        self.videos_dock = self._dock("Videos", self.videos, Qt.LeftDockWidgetArea)
        self.details_dock = self._dock("Details", self.details, Qt.RightDockWidgetArea)
        self.identities_dock = self._dock("Identities", self.gallery, Qt.RightDockWidgetArea)
        self.summary_panel = SummaryPanel()
        # At the bottom, the window's whole width: the summaries stand side by side.
        self.summaries_dock = self._dock("Summaries", self.summary_panel, Qt.BottomDockWidgetArea)
        self.library_panel = LibraryPanel(self.library, self.queue)
        self.library_dock = self._dock("Library", self.library_panel, Qt.LeftDockWidgetArea)

        self.job_status = JobStatus()
        self.statusBar().addPermanentWidget(self.job_status)

        self._build_actions()
        self._connect()
        self._restore_settings()
        self.show_document(None)
        QTimer.singleShot(0, self.library_panel.resume)  # once the window is up

    # -- construction ---------------------------------------------------------------------
    def _dock(self, title: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock-{title.lower()}")  # saveState needs names
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _action(self, menu, text: str, slot, shortcut=None, checkable: bool = False, checked: bool = False) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            sequences = []
            for s in shortcut if isinstance(shortcut, list) else [shortcut]:
                # A standard key (Undo, Redo, ...) has several bindings on most platforms.
                sequences += QKeySequence.keyBindings(s) if isinstance(s, QKeySequence.StandardKey) else [QKeySequence(s)]
            action.setShortcuts(sequences)
        action.setCheckable(checkable)
        if checkable:
            action.setChecked(checked)
            action.toggled.connect(slot)
        else:
            action.triggered.connect(slot)
        menu.addAction(action)
        self.addAction(action)  # shortcuts work wherever the focus is in the window
        return action

    def _build_actions(self) -> None:
        bar = self.menuBar()
        file = bar.addMenu("&File")
        self._action(file, "&Open…", self.open_dialog, QKeySequence.Open)
        self.recent_menu = file.addMenu("Open &Recent")
        file.addSeparator()
        self._action(file, "Add &folder to the library…", self.library_panel.ask_folder, "Ctrl+Shift+O")
        self._action(file, "Add files to the &library…", self.library_panel.ask_files)
        file.addSeparator()
        self._action(file, "&Quit", self.close, QKeySequence.Quit)

        edit = bar.addMenu("&Edit")
        self.undo_action = self._action(edit, "&Undo", self.undo, QKeySequence.Undo)
        self.redo_action = self._action(edit, "&Redo", self.redo, QKeySequence.Redo)
        edit.addSeparator()
        self._action(edit, "Add &boundary at playhead", self.add_boundary_at_playhead, "B")
        self._action(edit, "&Delete selected boundary", self.delete_selected_boundary, QKeySequence.Delete)
        self._action(edit, "&Edit selected…", self.edit_selected, "F2")
        edit.addSeparator()
        self._action(edit, "&Find in this video…", lambda: self._focus_search(True), QKeySequence.Find)
        self._action(edit, "&Search the library…", lambda: self._focus_search(False), "Ctrl+Shift+F")
        self._action(edit, "Next &match", lambda: self.library_panel.jump(1), "F3")
        self._action(edit, "Previous matc&h", lambda: self.library_panel.jump(-1), "Shift+F3")
        edit.addSeparator()
        self._action(edit, "Se&ttings…", self.show_settings, QKeySequence.Preferences)

        play = bar.addMenu("&Playback")
        self._action(play, "Play / pause", self.player.toggle_play, "Space")
        self._action(play, "Next frame", lambda: self.player.step(1), "Right")
        self._action(play, "Previous frame", lambda: self.player.step(-1), "Left")
        self._action(play, "Forward 5 s", lambda: self.player.seek(self.player.current_time() + 5), "Shift+Right")
        self._action(play, "Back 5 s", lambda: self.player.seek(self.player.current_time() - 5), "Shift+Left")
        self._action(play, "Shuttle back (J)", lambda: self.player.shuttle("J"), "J")
        self._action(play, "Shuttle stop (K)", lambda: self.player.shuttle("K"), "K")
        self._action(play, "Shuttle forward (L)", lambda: self.player.shuttle("L"), "L")
        self._action(play, "First frame", lambda: self.player.seek_frame(0), "Home")
        self._action(play, "Last frame", self._seek_last, "End")
        play.addSeparator()
        self._action(play, "Previous boundary", lambda: self.jump("boundaries", -1), "[")
        self._action(play, "Next boundary", lambda: self.jump("boundaries", 1), "]")
        self._action(play, "Previous keyframe", lambda: self.jump("keyframes", -1), ["{", "PgUp"])
        self._action(play, "Next keyframe", lambda: self.jump("keyframes", 1), ["}", "PgDown"])
        play.addSeparator()
        self._action(play, "Slower", lambda: self._change_rate(0.5), "-")
        self._action(play, "Faster", lambda: self._change_rate(2.0), ["+", "="])
        self._action(play, "Normal speed", lambda: self.player.set_rate(1.0), "Backspace")
        self.mute_action = self._action(play, "Mute", self.player.set_muted, "M", checkable=True)

        view = bar.addMenu("&View")
        self.overlay_actions = {}
        for n, (name, label) in enumerate((("captions", "Caption overlay"), ("boundaries", "Boundary overlay"),
                                           ("faces", "Face boxes"))):
            self.overlay_actions[name] = self._action(
                view, label, lambda on, _name=name: self.set_overlay(_name, on), f"Alt+{n + 1}",
                checkable=True, checked=True)
        view.addSeparator()
        self._action(view, "Zoom timeline in", self.timeline.zoom_in, "Ctrl+=")
        self._action(view, "Zoom timeline out", self.timeline.zoom_out, "Ctrl+-")
        self._action(view, "Fit timeline", self.timeline.zoom_to_fit, "Ctrl+0")
        theme_menu = view.addMenu("&Theme")
        group = QActionGroup(self)
        self.theme_actions = {}
        for theme in THEMES:
            action = theme_menu.addAction(theme.capitalize(), lambda _theme=theme: self.set_theme(_theme))
            action.setCheckable(True)
            action.setChecked(theme == saved_theme())
            group.addAction(action)
            self.theme_actions[theme] = action
        view.addSeparator()
        for dock in (self.videos_dock, self.library_dock, self.details_dock, self.identities_dock,
                     self.summaries_dock):
            view.addAction(dock.toggleViewAction())

        analysis = bar.addMenu("&Analysis")
        self._action(analysis, "&Cancel analysis", self.cancel_current, "Esc")
        self._action(analysis, "&Re-analyse this video", self.reanalyse_current, "Ctrl+R")
        analysis.addSeparator()
        self._action(analysis, "&Models…", self.show_models)

        help_menu = bar.addMenu("&Help")
        self._action(help_menu, "&Tour of the timeline", self.start_tour)
        self._action(help_menu, "&Keyboard shortcuts", self.show_shortcuts, "?")
        self._action(help_menu, "&About videoreview", self.show_about)

    def _connect(self) -> None:
        q = self.queue
        q.progress.connect(self._on_progress)
        q.partial.connect(self._on_partial)
        q.finished.connect(self._on_finished)
        q.failed.connect(self._on_failed)
        # Every analysed video goes into the library (a failure is noted there if it is catalogued).
        q.finished.connect(lambda path, analysis: self.library_panel.index(path, analysis.content_hash))
        q.failed.connect(self.library_panel.analysis_failed)
        q.cancelled.connect(self._on_cancelled)
        q.notice.connect(self._engine_notice)
        q.queueChanged.connect(self._on_queue_changed)
        self.job_status.cancelRequested.connect(self.cancel_current)
        self.player.frameShown.connect(self._on_frame_shown)
        self.player.error.connect(self.notice)
        self.view.faceClicked.connect(lambda face: face.identity and self.select("identity", face.identity))
        self.view.faceMenuRequested.connect(lambda face, pos: self.face_menu(face).popup(pos))
        self.timeline.seekRequested.connect(self.player.seek)
        self.timeline.selected.connect(self.select)
        self.timeline.boundaryDragged.connect(self.move_boundary)
        self.timeline.thumbnailsWanted.connect(self._request_thumbnails)
        self.transport.previousBoundary.connect(lambda: self.jump("boundaries", -1))
        self.transport.nextBoundary.connect(lambda: self.jump("boundaries", 1))
        self.transport.previousKeyframe.connect(lambda: self.jump("keyframes", -1))
        self.transport.nextKeyframe.connect(lambda: self.jump("keyframes", 1))
        self.transport.overlayToggled.connect(lambda name, on: self.overlay_actions[name].setChecked(on))
        self.welcome.openRequested.connect(self.open_dialog)
        self.welcome.sampleRequested.connect(self.open_sample)
        self.welcome.recentRequested.connect(lambda path: self.open_paths([path]))
        self.videos.picked.connect(lambda path: self.show_document(self.documents.get(path)))
        self.gallery.picked.connect(lambda pid: self.select("identity", pid))
        self.summary_panel.editRequested.connect(self.apply_edit)
        self.summary_panel.seekRequested.connect(self.player.seek)
        self.summary_panel.message.connect(lambda text: self.statusBar().showMessage(text, 5000))
        self.summary_panel.problem.connect(self.notice)
        lp = self.library_panel
        lp.openRequested.connect(self.open_at)
        lp.analyseRequested.connect(lambda path: self.queue.enqueue(path))
        lp.problem.connect(self.notice)
        lp.message.connect(lambda text: self.statusBar().showMessage(text, 5000))
        self.library.error.connect(self.notice)
        d = self.details
        d.captionEdited.connect(lambda frame, text: self.apply_edit(
            "Edit caption", lambda a: edits.edit_caption(a, frame, text)))
        d.boundaryCaptionEdited.connect(lambda frame, s, b, a: self.apply_edit(
            "Edit boundary caption", lambda an: edits.edit_boundary_caption(an, frame, s, b, a)))
        d.boundaryKindChanged.connect(lambda frame, kind: self.apply_edit(
            "Change boundary kind", lambda a: edits.set_boundary_kind(a, frame, kind)))
        d.boundaryDeleted.connect(self.delete_boundary)
        d.boundaryMovedToPlayhead.connect(lambda frame: self.move_boundary(frame, self.player.current_time()))
        d.identityRenamed.connect(self.rename_identity)
        d.identityMerged.connect(self.merge_identities)
        d.trackSplit.connect(lambda track: self._identity_edit("Split track", lambda a: identities.split(a, track)))
        d.trackNotAFace.connect(lambda track: self._identity_edit("Not a face", lambda a: identities.not_a_face(a, track)))

    # -- opening videos ---------------------------------------------------------------------
    def open_paths(self, paths: list[str]) -> list[str]:
        """Queue the videos among ``paths`` for analysis and show the first; returns the
        messages about anything that is not a video (shown to the user too)."""
        videos, problems = collect_videos(paths)
        if problems:
            self.notice("\n".join(problems))
        first = None
        for path in videos:
            document = self.documents.get(path)
            if document is None:
                document = self._new_document(path)
                self.queue.enqueue(path, front=True)  # before the library's queue
            first = first or document
            self._add_recent(path)
        if first is not None and first is not self.current:
            self.show_document(first)
        return problems

    def _new_document(self, path: str) -> VideoDocument:
        document = VideoDocument(path, self)  # status "queued"
        self.documents[path] = document
        document.changed.connect(lambda analysis, d=document: self._on_document_changed(d))
        document.statusChanged.connect(lambda status, d=document: self.videos.update_video(d.path, status, d.message))
        document.saveFailed.connect(self.notice)
        document.saved.connect(lambda analysis, d=document: self._reindex_later(d.path, analysis.content_hash))
        document.undo_stack.indexChanged.connect(self._update_undo_actions)
        self.videos.update_video(path, document.status)
        return document

    def open_at(self, path: str, seconds: float) -> None:
        """Open a video (a library result) and, with ``seconds`` >= 0, show that moment
        once the player has it."""
        document = self.documents.get(path)
        if document is not None and document is self.current and self._opened_in_player == path:
            if seconds >= 0:
                self.player.seek(seconds)
            return
        self._seek_on_open = (path, seconds) if seconds >= 0 else None
        if document is None:
            self.open_paths([path])
        else:
            self.show_document(document)

    def _focus_search(self, this_video: bool) -> None:
        self.library_dock.show()
        self.library_dock.raise_()
        self.library_panel.focus_search(this_video)

    def _reindex_later(self, path: str, content_hash: str) -> None:
        self._to_reindex[path] = content_hash
        self._reindex_timer.start()

    def _reindex(self) -> None:
        for path, content_hash in self._to_reindex.items():
            self.library_panel.index(path, content_hash)
        self._to_reindex.clear()

    def open_dialog(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open videos", "", f"{VIDEO_FILE_FILTER};;All files (*)")
        if paths:
            self.open_paths(paths)

    def open_sample(self) -> None:
        """The sample clip, made on the spot the first time (about a second), opened and
        analysed like any video."""
        from ..media.sample import write_sample
        from ..paths import data_dir

        try:
            path = write_sample(data_dir() / "sample")
        except (OSError, RuntimeError, ValueError) as exc:  # a full disk, an encoder missing in a build
            self.notice(f"Could not make the sample clip: {exc}")
            return
        if not settings().value("tour/seen", False, type=bool):
            self._tour_pending = True  # the first sample is followed by the tour
        self.open_paths([str(path)])
        self._start_tour_when_ready()

    def start_tour(self) -> None:
        """The tour of the timeline, on the video shown (once analysed), else on the sample."""
        self._tour_pending = True
        if self.current is None:
            self.open_sample()
        else:
            self._start_tour_when_ready()

    def _start_tour_when_ready(self) -> None:
        if not self._tour_pending or self.current is None or self.current.status != "done" or self.tour:
            return
        from .tour import Tour, window_steps

        self._tour_pending = False
        self.tour = Tour(self, window_steps(self))
        self.tour.ended.connect(self._tour_ended)
        self.tour.start()

    def _tour_ended(self, completed: bool) -> None:
        self.tour = None
        settings().setValue("tour/seen", True)

    def _add_recent(self, path: str) -> None:
        recent = [p for p in self.recent_files() if p != path]
        s = settings()
        s.setValue("recent", [path] + recent[:MAX_RECENT - 1])
        self._fill_recent_menu()

    def recent_files(self) -> list[str]:
        value = settings().value("recent", [])
        return [value] if isinstance(value, str) else list(value or [])

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        for path in self.recent_files():
            action = self.recent_menu.addAction(os.path.basename(path), lambda p=path: self.open_paths([p]))
            action.setToolTip(path)
        self.recent_menu.setEnabled(bool(self.recent_menu.actions()))
        self.welcome.set_recent(self.recent_files())

    # -- drag and drop ----------------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dragMoveEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        urls = event.mimeData().urls()
        local = [u.toLocalFile() for u in urls if u.isLocalFile()]
        remote = [u.toString() for u in urls if not u.isLocalFile()]
        if remote:
            self.notice("\n".join(f"{u}: not a local file (download it first)" for u in remote))
        if local:
            self.open_paths(local)
        event.acceptProposedAction()

    # -- the current document -------------------------------------------------------------
    def show_document(self, document: VideoDocument | None) -> None:
        if document is not self.current:
            self._shown_before = self.current  # to go back to if this one turns out not to be a video
        self.current = document
        self.middle.setCurrentWidget(self.splitter if document else self.welcome)
        self.videos.set_current(document.path if document else None)
        self.library_panel.set_current_video(document.path if document else None)
        self.setWindowTitle(f"{os.path.basename(document.path)} — videoreview" if document else "videoreview")
        if self.thumbnails is not None:
            self.thumbnails.close()
            self.thumbnails = None
        self._opened_in_player = None
        self.player.close()
        self.details.show_item(None, None)
        self.summary_panel.set_document(document)
        self._on_document_changed(document)
        self._update_undo_actions()

    def _on_document_changed(self, document: VideoDocument | None) -> None:
        if document is not self.current:
            return
        analysis = document.analysis if document else None
        if analysis is not None and self._opened_in_player != document.path:
            self._opened_in_player = document.path
            self.player.open(document.path, analysis.video)
            if self._seek_on_open is not None and self._seek_on_open[0] == document.path:
                self.player.seek(self._seek_on_open[1])
                self._seek_on_open = None
            self.thumbnails = ThumbnailLoader(document.path, self)
            self.thumbnails.ready.connect(self.timeline.set_thumbnail)
            self.thumbnails.cropReady.connect(self.gallery.set_crop)
        self.view.set_analysis(analysis)
        self.timeline.set_analysis(analysis)
        self.details.set_analysis(analysis)
        wanted = self.gallery.set_analysis(analysis)
        if self.thumbnails is not None:  # (strip thumbnails: the timeline asks through thumbnailsWanted)
            for key, frame, box in wanted:
                self.thumbnails.request_crop(key, frame, box)

    def _request_thumbnails(self, frames) -> None:
        if self.thumbnails is not None and frames:
            self.thumbnails.request(list(frames))

    def _on_frame_shown(self, frame: int, seconds: float) -> None:
        self.timeline.set_position(seconds)

    # -- analysis queue -------------------------------------------------------------------
    def _on_progress(self, progress: JobProgress) -> None:
        self.job_status.show_progress(progress, len(self.queue.pending))
        document = self.documents.get(progress.path)
        if document is not None:
            if document.status != "analysing":
                document.set_status("analysing")
            self.videos.update_video(progress.path, "analysing", f"{progress.fraction:.0%}")

    def _on_partial(self, path: str, analysis: Analysis) -> None:
        document = self.documents.get(path)
        if document is not None:
            document.show_partial(analysis)

    def _on_finished(self, path: str, analysis: Analysis) -> None:
        document = self.documents.get(path)
        if document is not None:
            document.finish(analysis)
            self.statusBar().showMessage(f"{os.path.basename(path)}: analysis done", 5000)
            if document is self.current:
                self._start_tour_when_ready()

    def _on_failed(self, path: str, message: str) -> None:
        """Not a usable video: it leaves the window as it was before it was dropped."""
        self.notice(message)
        document = self.documents.get(path)
        if document is None:
            return
        document.abandon("failed", message)
        if document.analysis is None:  # nothing was there before it
            self._close_document(document)

    def _on_cancelled(self, path: str) -> None:
        document = self.documents.get(path)
        if document is None:
            return
        document.abandon("cancelled")
        if document.analysis is None:
            self.statusBar().showMessage(f"{os.path.basename(path)}: analysis cancelled", 5000)

    def _close_document(self, document: VideoDocument) -> None:
        self.documents.pop(document.path, None)
        self.videos.remove_video(document.path)
        if self.current is document:
            remaining = list(self.documents.values())
            back = self._shown_before if self._shown_before in remaining else None
            self.show_document(back or (remaining[-1] if remaining else None))
        document.deleteLater()

    def _on_queue_changed(self) -> None:
        if self.queue.is_idle():
            self.job_status.set_idle()

    def cancel_current(self) -> None:
        if self.current is not None and self.current.busy:
            self.queue.cancel(self.current.path)
        elif self.queue.current is not None:
            self.queue.cancel(self.queue.current.path)

    def reanalyse_current(self) -> None:
        document = self.current
        if document is None or document.busy:
            return
        document.set_status("queued")
        self.queue.enqueue(document.path, previous=document.analysis)

    # -- navigation -----------------------------------------------------------------------
    def jump(self, what: str, direction: int) -> None:
        """Seek to the previous / next boundary or keyframe from the frame shown. By time,
        not frame index: in a variable-frame-rate file the two do not map by the mean fps."""
        analysis = self.current.analysis if self.current else None
        if analysis is None:
            return
        times = sorted(item.time for item in getattr(analysis, what))
        here, half_frame = self.player.current_time(), 0.5 / analysis.video.fps
        if direction > 0:
            i = bisect.bisect_right(times, here + half_frame)
            target = times[i] if i < len(times) else None
        else:
            i = bisect.bisect_left(times, here - half_frame)
            target = times[i - 1] if i > 0 else None
        if target is not None:
            self.player.seek(target)

    def _seek_last(self) -> None:
        if self.current and self.current.analysis:
            self.player.seek_frame(self.current.analysis.video.frame_count - 1)

    def _change_rate(self, factor: float) -> None:
        self.player.set_rate(max(0.25, min(4.0, self.player.rate() * factor)))

    def set_overlay(self, name: str, on: bool) -> None:
        self.view.set_overlay_visible(name, on)
        self.transport.set_overlay_checked(name, on)
        settings().setValue(f"overlay/{name}", on)

    def set_theme(self, theme: str) -> None:
        settings().setValue("theme", theme)
        apply_theme(QApplication.instance(), theme)
        self.theme_actions[theme].setChecked(True)

    def select(self, kind: str | None, key) -> None:
        self.timeline.set_selection(kind, key)
        self.details.show_item(kind, key)
        if kind is not None:
            self.details_dock.raise_()

    # -- review edits -----------------------------------------------------------------------
    def apply_edit(self, text: str, change) -> bool:
        if self.current is None:
            return False
        problem = self.current.edit(text, change)
        if problem:
            self.notice(problem)
            return False
        self.statusBar().showMessage(f"{text} (Ctrl+Z to undo)", 4000)
        return True

    def _identity_edit(self, text: str, make_edit) -> bool:
        return self.apply_edit(text, lambda a: identities.apply_identity_edit(a, make_edit(a)))

    def rename_identity(self, pid: str, name: str) -> bool:
        return self._identity_edit(f"Rename {pid}", lambda a: identities.rename(a, pid, name or None))

    def merge_identities(self, pid: str, other: str) -> bool:
        return self._identity_edit(f"Merge {other} into {pid}", lambda a: identities.merge(a, pid, other))

    def face_menu(self, face) -> QMenu:
        """Corrections for the face under the mouse: the quickest way to fix a wrong identity."""
        menu = QMenu(self)
        menu.setAttribute(Qt.WA_DeleteOnClose)
        analysis = self.current.analysis if self.current else None
        pid = face.identity
        if pid is not None and analysis is not None:
            menu.addAction(f"Rename {pid}…", lambda: self._ask_name(pid))
            same = menu.addMenu("Same person as")
            for other in analysis.identities:
                if other.id != pid:
                    same.addAction(identity_label(other), lambda o=other.id: self.merge_identities(o, pid))
            same.setEnabled(bool(same.actions()))
            menu.addAction("Someone else (split this track off)", lambda: self._identity_edit(
                "Split track", lambda a: identities.split(a, face.track)))
        menu.addAction("Not a face", lambda: self._identity_edit(
            "Not a face", lambda a: identities.not_a_face(a, face.track)))
        return menu

    def _ask_name(self, pid: str) -> None:
        record = self.details.record("identity", pid)
        name, ok = QInputDialog.getText(self, "Rename identity", f"Name for {pid}", text=record.name or "" if record else "")
        if ok:
            self.rename_identity(pid, name.strip())

    def add_boundary_at_playhead(self) -> bool:
        seconds = self.player.current_time()
        done = self.apply_edit("Add boundary", lambda a: edits.add_boundary(a, seconds))
        if done:
            self.select("boundary", edits.frame_at(self.current.analysis, seconds))
        return done

    def move_boundary(self, frame: int, seconds: float) -> bool:
        done = self.apply_edit("Move boundary", lambda a: edits.move_boundary(a, frame, seconds))
        if done:
            self.select("boundary", edits.frame_at(self.current.analysis, seconds))
        return done

    def delete_boundary(self, frame: int) -> bool:
        done = self.apply_edit("Delete boundary", lambda a: edits.delete_boundary(a, frame))
        if done:
            self.select(None, None)
        return done

    def delete_selected_boundary(self) -> None:
        if self.details.kind == "boundary":
            self.delete_boundary(self.details.key)

    def edit_selected(self) -> None:
        kind, key = self.details.kind, self.details.key
        if kind == "caption":
            record = self.details.record(kind, key)
            text, ok = QInputDialog.getMultiLineText(self, "Edit caption", f"Caption at {self.details.time_text(record.time)}",
                                                     record.text)
            if ok:
                self.apply_edit("Edit caption", lambda a: edits.edit_caption(a, key, text))
        elif kind == "identity":
            self._ask_name(key)

    def undo(self) -> None:
        if self.current is not None:
            self.current.undo_stack.undo()

    def redo(self) -> None:
        if self.current is not None:
            self.current.undo_stack.redo()

    def _update_undo_actions(self) -> None:
        stack = self.current.undo_stack if self.current else None
        for action, can, text, verb in ((self.undo_action, stack and stack.canUndo(), stack and stack.undoText(), "Undo"),
                                        (self.redo_action, stack and stack.canRedo(), stack and stack.redoText(), "Redo")):
            action.setEnabled(bool(can))
            action.setText(f"&{verb} {text}" if can and text else f"&{verb}")

    # -- messages, help, settings ------------------------------------------------------------
    def notice(self, message: str) -> None:
        """A problem the user should see, without a modal box that stops everything."""
        self.last_notice = message
        self.notice_label.setText(message)
        self.notice_label.show()
        self._notice_timer.start()
        self.statusBar().showMessage(message.splitlines()[0], 10000)

    def _engine_notice(self, message: str) -> None:
        """A chosen model that cannot be used: said once a session, not for every video."""
        if message not in self._engine_notices:
            self._engine_notices.add(message)
            self.notice(message)

    def show_models(self) -> None:
        """The model catalog and the engine choices (they apply from the next analysis)."""
        from .models_dialog import ModelsDialog

        dialog = ModelsDialog(self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.models_dialog = dialog
        dialog.open()

    def show_settings(self) -> None:
        from .settings_dialog import SettingsDialog

        dialog = SettingsDialog(self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.settings_dialog = dialog
        dialog.open()

    def move_library(self, folder: str) -> str:
        """Use the library in ``folder`` (copying the current one there if it has none);
        returns the line to show."""
        from ..errors import LibraryError
        from ..library.location import change_location

        try:
            message = change_location(folder)
        except LibraryError as exc:
            return str(exc)
        self.library.restart()  # the library process opens the catalog where it now is
        self.library_panel.refresh()
        return message

    def show_shortcuts(self) -> None:
        rows = [(a.text().replace("&", ""), a.shortcut().toString(QKeySequence.NativeText))
                for a in self.actions() if not a.shortcut().isEmpty()]
        text = "<table>" + "".join(f"<tr><td><b>{k}</b>&nbsp;&nbsp;</td><td>{t}</td></tr>" for t, k in rows) + "</table>"
        self._message("Keyboard shortcuts", text)

    def show_about(self) -> None:
        """The versions of the app, Qt (the one running), torch and the chosen engines."""
        from html import escape

        from PySide6.QtCore import qVersion

        from ..about import versions

        rows = [(what, qVersion() if what == "Qt" else value) for what, value in versions()]
        if self.queue.engines:  # engines given on the command line win over the choices
            rows.append(("Engines given", ", ".join(f"{k}={v}" for k, v in self.queue.engines.items())))
        table = "".join(f"<tr><td>{escape(w)}&nbsp;&nbsp;</td><td>{escape(v)}</td></tr>" for w, v in rows)
        self._message("About videoreview", f"<b>videoreview {__version__}</b><br>Review video with local models."
                                           f"<table>{table}</table>")

    def _message(self, title: str, html: str) -> None:
        from PySide6.QtWidgets import QMessageBox

        box = QMessageBox(self)
        box.setWindowTitle(title)
        box.setText(html)
        box.setAttribute(Qt.WA_DeleteOnClose)
        box.open()  # not exec(): the window keeps running

    def _restore_settings(self) -> None:
        s = settings()
        geometry, state = s.value("window/geometry"), s.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1500, 950)
        if state is not None:
            self.restoreState(state)
        else:  # first run: a narrow list of videos, room for the video itself
            self.resizeDocks([self.videos_dock, self.details_dock], [300, 340], Qt.Horizontal)
            self.resizeDocks([self.videos_dock, self.library_dock], [140, 600], Qt.Vertical)
            self.resizeDocks([self.summaries_dock], [360], Qt.Vertical)
        splitter = s.value("window/splitter")
        if splitter is not None:
            self.splitter.restoreState(splitter)
        for name, action in self.overlay_actions.items():
            action.setChecked(s.value(f"overlay/{name}", True, type=bool))
            self.set_overlay(name, action.isChecked())
        self._fill_recent_menu()

    def closeEvent(self, event) -> None:
        s = settings()
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.setValue("window/splitter", self.splitter.saveState())
        s.sync()
        self._reindex()
        self.queue.shutdown()
        self.summary_panel.shutdown()
        self.library_panel.shutdown()
        self.library.shutdown()
        if self.thumbnails is not None:
            self.thumbnails.close()
        self.player.close()  # its frame loader too
        wait_for_closed_loaders()
        super().closeEvent(event)
