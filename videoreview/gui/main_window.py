"""The main window: video with overlays, transport bar and timeline in the middle, side
panels around, the job queue in the status bar. It owns one VideoDocument per open
video; the analysis queue fills them from worker threads through signals (what each
signal does: work/queue_events.py). The note keys are in panels/note_marks.py, the
review edits in review.py; the layouts by task (Review, Library, Summaries) in
layouts.py, full screen and the floating picture in video/picture_modes.py, the
window's size kept between sessions in window_settings.py."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ..media import VIDEO_FILE_FILTER, find_videos
from . import recent
from .actions import build_menus
from .analysis_index import neighbour_time
from .captions_upgrade import CaptionsUpgrade
from .document import VideoDocument
from .layouts import Layouts, LayoutSwitcher
from .library_panel import LibraryPanel
from .panels.details_panel import DetailsPanel
from .panels.identities_panel import IdentitiesPanel
from .panels.note_marks import NoteMarks
from .panels.notes_panel import NotesPanel
from .panels.videos_panel import VideosPanel
from .review import ReviewEdits
from .summaries import SummaryPanel
from .theme import apply_theme, saved_overlay_style
from .timeline import Timeline
from .tour import TourLauncher
from .video.notice_bar import NoticeBar, OfferBar
from .video.picture_modes import PictureModes, over_the_picture
from .video.transport import TransportBar
from .video.video_view import VideoView
from .welcome import WelcomeView, app_icon
from .window_settings import restore_layout, save_layout, window_settings
from .work.background import wait_for_closed_threads
from .work.job_status import JobStatus
from .work.jobs import AnalysisQueue
from .work.library_client import LibraryClient
from .work.queue_events import QueueEvents
from .work.team_listener import listen_for
from .work.thumbnails import ThumbnailLoader


class MainWindow(QMainWindow):
    def __init__(self, engines: dict[str, str] | None = None) -> None:
        super().__init__()
        self.setWindowTitle("videoreview")
        self.setAcceptDrops(True)
        self.documents: dict[str, VideoDocument] = {}
        self.current: VideoDocument | None = None
        self._shown_before: VideoDocument | None = None
        self.last_notice = ""
        self.queue = AnalysisQueue(engines, self)  # None: the engines chosen (see choices.py)
        self.thumbnails: ThumbnailLoader | None = None
        self._opened_in_player: str | None = None
        self.tours = TourLauncher(self)
        self._seek_on_open: tuple[str, float] | None = None  # a library result opening at its moment
        self.library = LibraryClient(self)
        self.review = ReviewEdits(self)
        self._shown_once = False

        self.view = VideoView()
        self.player = self.view.player
        self.transport = TransportBar(self.player)
        self.timeline = Timeline()
        self.notice_label = NoticeBar()
        self.offer_bar = OfferBar()

        self.picture_box = QWidget()  # the picture and its transport bar (it may float: video/picture_modes.py)
        top_layout = QVBoxLayout(self.picture_box)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.setSpacing(0)
        top_layout.addWidget(over_the_picture(self.view, self.notice_label, self.offer_bar), 1)
        top_layout.addWidget(self.transport)
        self.splitter = QSplitter(Qt.Vertical)
        self.splitter.addWidget(self.picture_box)
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
        self.details = DetailsPanel(self.player.current_time)
        self.gallery = IdentitiesPanel()
        self.videos_dock = self._dock("Videos", self.videos, Qt.LeftDockWidgetArea)
        self.details_dock = self._dock("Details", self.details, Qt.RightDockWidgetArea)
        self.identities_dock = self._dock("Identities", self.gallery, Qt.RightDockWidgetArea)
        self.summary_panel = SummaryPanel()
        # At the bottom, the window's whole width: the summaries stand side by side.
        self.summaries_dock = self._dock("Summaries", self.summary_panel, Qt.BottomDockWidgetArea)
        self.library_panel = LibraryPanel(self.library, self.queue)
        self.library_dock = self._dock("Library", self.library_panel, Qt.LeftDockWidgetArea)
        self.notes_panel = NotesPanel(self.view.drawing, self.player.current_frame)
        self.notes_dock = self._dock("Notes", self.notes_panel, Qt.RightDockWidgetArea)
        self.tabifyDockWidget(self.details_dock, self.notes_dock)  # a tab beside Details, not a third row
        self.details_dock.raise_()
        self.note_marks = NoteMarks(self)

        self.job_status = JobStatus(self.queue)
        self.statusBar().addPermanentWidget(self.job_status)
        self.layouts = Layouts(self)
        self.picture_modes = PictureModes(self)

        self.menus = build_menus(self, self.docks())
        self.layout_switcher = LayoutSwitcher(self.layouts)
        self.menuBar().setCornerWidget(self.layout_switcher, Qt.TopRightCorner)
        self.picture_modes.floatingChanged.connect(self.menus.floating.setChecked)
        self._connect()
        self.upgrade = CaptionsUpgrade(self, self.offer_bar)  # after QueueEvents: it sees the document done
        self._restore_settings()
        self.team_listener = None
        self.listen_to_library()
        self.show_document(None)
        QTimer.singleShot(0, self.library_panel.resume)  # once the window is up

    # -- construction ---------------------------------------------------------------------
    def docks(self) -> list[QDockWidget]:
        return [self.videos_dock, self.library_dock, self.details_dock, self.identities_dock, self.notes_dock,
                self.summaries_dock]

    def _dock(self, title: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock-{title.lower()}")  # saveState needs names
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _connect(self) -> None:
        self.queue_events = QueueEvents(self.queue, self, self.videos, self.library_panel, self.tours)
        self.job_status.cancelRequested.connect(self.cancel_current)
        self.player.frameShown.connect(self._on_frame_shown)
        self.player.error.connect(self.notice)
        self.view.faceClicked.connect(lambda face: face.identity and self.select("faces", face.identity))
        self.view.objectsShownChanged.connect(lambda on: self._show_overlay_checked("objects", on))
        self.view.faceMenuRequested.connect(lambda face, pos: self.review.face_menu(face).popup(pos))
        self.timeline.seekRequested.connect(self.player.seek)
        self.timeline.selected.connect(self.select)
        self.timeline.boundaryDragged.connect(self.review.move_boundary)
        self.timeline.thumbnailsWanted.connect(self._request_thumbnails)
        self.transport.previousBoundary.connect(lambda: self.jump("boundaries", -1))
        self.transport.nextBoundary.connect(lambda: self.jump("boundaries", 1))
        self.transport.previousKeyframe.connect(lambda: self.jump("keyframes", -1))
        self.transport.nextKeyframe.connect(lambda: self.jump("keyframes", 1))
        self.transport.overlayToggled.connect(lambda name, on: self.menus.overlays[name].setChecked(on))
        self.welcome.openRequested.connect(self.open_dialog)
        self.welcome.sampleRequested.connect(self.open_sample)
        self.welcome.recentRequested.connect(lambda path: self.open_paths([path]))
        self.videos.picked.connect(lambda path: self.show_document(self.documents.get(path)))
        self.gallery.picked.connect(lambda pid: self.select("faces", pid))
        self.summary_panel.editRequested.connect(self.review.apply_edit)
        self.summary_panel.seekRequested.connect(self.player.seek)
        self.summary_panel.message.connect(self.say)
        self.summary_panel.problem.connect(self.notice)
        lp = self.library_panel
        lp.openRequested.connect(self.open_at)
        lp.analyseRequested.connect(lambda path: self.queue.enqueue(path))
        lp.problem.connect(self.notice)
        lp.message.connect(self.say)
        self.library.error.connect(self.notice)
        self.details.editRequested.connect(self.review.apply_edit)
        self.notes_panel.editRequested.connect(self.review.apply_edit)
        self.notes_panel.seekRequested.connect(self.player.seek)
        self.notes_panel.noteSelected.connect(lambda note_id: self.select("note", note_id))
        self.notes_panel.message.connect(self.say)
        self.notes_panel.problem.connect(self.notice)
        self.details.selectRequested.connect(lambda kind, key: self.select(kind or None, key))

    def listen_to_library(self) -> None:
        """With a team library chosen, others' notes and corrections reach the open videos."""
        if self.team_listener is not None:
            self.team_listener.stop()
        self.team_listener = listen_for(self)

    # -- opening videos ---------------------------------------------------------------------
    def open_paths(self, paths: list[str]) -> list[str]:
        """Queue the videos among ``paths`` for analysis and show the first; returns the
        messages about anything that is not a video (shown to the user too)."""
        videos, refused = find_videos(paths, named_files="videos")
        problems = [f"{path}: {why}" for path, why in refused]
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
        document.saved.connect(lambda analysis: self.library_panel.index_later(path, analysis.content_hash))
        document.undo_stack.indexChanged.connect(self.review.update_undo_actions)
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

    def focus_search(self, this_video: bool) -> None:
        self.library_dock.show()
        self.library_dock.raise_()
        self.library_panel.focus_search(this_video)

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
        if not window_settings().value("tour/seen", False, type=bool):
            self.tours.pending = True  # the first sample is followed by the tour
        self.open_paths([str(path)])
        self.tours.start_when_ready()

    def start_tour(self) -> None:
        """The tour of the timeline, on the video shown (once analysed), else on the sample."""
        self.tours.pending = True
        if self.current is None:
            self.open_sample()
        else:
            self.tours.start_when_ready()

    def _add_recent(self, path: str) -> None:
        recent.remember(path)
        self._fill_recent_menu()

    def _fill_recent_menu(self) -> None:
        self.menus.recent.clear()
        for path in recent.recent_files():
            action = self.menus.recent.addAction(os.path.basename(path), lambda p=path: self.open_paths([p]))
            action.setToolTip(path)
        self.menus.recent.setEnabled(bool(self.menus.recent.actions()))
        self.welcome.set_recent(recent.recent_files())

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
        self.note_marks.clear()
        self.player.close()
        self.details.show_item(None, None)
        self.summary_panel.set_document(document)
        self._on_document_changed(document)
        self.review.update_undo_actions()

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
        self.notes_panel.set_analysis(analysis)
        wanted = self.gallery.set_analysis(analysis)
        if self.thumbnails is not None:  # (strip thumbnails: the timeline asks through thumbnailsWanted)
            for key, frame, box in wanted:
                self.thumbnails.request_crop(key, frame, box)

    def _request_thumbnails(self, frames) -> None:
        if self.thumbnails is not None and frames:
            self.thumbnails.request(list(frames))

    def _on_frame_shown(self, frame: int, seconds: float) -> None:
        self.timeline.set_position(seconds)

    # -- closing, cancelling, analysing again ----------------------------------------------
    def close_document(self, document: VideoDocument) -> None:
        self.documents.pop(document.path, None)
        self.videos.remove_video(document.path)
        if self.current is document:
            remaining = list(self.documents.values())
            back = self._shown_before if self._shown_before in remaining else None
            self.show_document(back or (remaining[-1] if remaining else None))
        document.deleteLater()

    def escape(self) -> None:
        """Esc: out of full screen, else cancel the analysis."""
        if self.picture_modes.full_screen():
            self.picture_modes.leave_full_screen()
        else:
            self.cancel_current()

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
        """Seek to the previous / next boundary or keyframe from the frame shown."""
        analysis = self.current.analysis if self.current else None
        if analysis is None:
            return
        target = neighbour_time([item.time for item in getattr(analysis, what)], self.player.current_time(),
                                analysis.video.fps, direction)
        if target is not None:
            self.player.seek(target)

    def seek_last(self) -> None:
        if self.current and self.current.analysis:
            self.player.seek_frame(self.current.analysis.video.frame_count - 1)

    def change_rate(self, factor: float) -> None:
        self.player.set_rate(max(0.25, min(4.0, self.player.rate() * factor)))

    def set_overlay(self, name: str, on: bool) -> None:
        self.view.set_overlay_visible(name, on)
        self.transport.set_overlay_checked(name, on)
        window_settings().setValue(f"overlay/{name}", on)

    def _show_overlay_checked(self, name: str, on: bool) -> None:
        """The menu and the bar show an overlay's state, changed by the view itself."""
        action = self.menus.overlays[name]
        action.blockSignals(True)
        action.setChecked(on)
        action.blockSignals(False)
        self.transport.set_overlay_checked(name, on)

    def set_theme(self, theme: str) -> None:
        window_settings().setValue("theme", theme)
        apply_theme(QApplication.instance(), theme)
        self.menus.themes[theme].setChecked(True)

    def select(self, kind: str | None, key) -> None:
        self.timeline.set_selection(kind, key)
        if kind == "note":  # notes have their own panel
            self.details.show_item(None, None)
            self.notes_panel.select(key)
            self.show_notes()
            return
        self.details.show_item(kind, key)
        if kind is not None:
            self.details_dock.raise_()

    # -- notes ------------------------------------------------------------------------------
    def show_notes(self) -> None:
        self.notes_dock.show()
        self.notes_dock.raise_()

    # -- messages, help, settings ------------------------------------------------------------
    def say(self, message: str) -> None:
        """A short message in the status bar, for a few seconds."""
        self.statusBar().showMessage(message, 5000)

    def notice(self, message: str) -> None:
        """A problem the user should see, without a modal box that stops everything."""
        self.last_notice = message
        self.notice_label.show_message(message)
        self.statusBar().showMessage(message.splitlines()[0], 10000)

    def show_models(self) -> None:
        """The model catalog and the engine choices (they apply from the next analysis)."""
        from .dialogs.models_dialog import ModelsDialog

        dialog = ModelsDialog(self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.models_dialog = dialog
        dialog.open()

    def show_settings(self) -> None:
        from .dialogs.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.settings_dialog = dialog
        dialog.open()

    def _restore_settings(self) -> None:
        restore_layout(self)
        s = window_settings()
        for name, action in self.menus.overlays.items():
            if name == "objects" and not s.contains("overlay/objects"):  # not chosen yet: by the picture's size
                self.view.set_objects_auto()
                self._show_overlay_checked(name, self.view.overlay_visible(name))
                continue
            action.setChecked(s.value(f"overlay/{name}", True, type=bool))
            self.set_overlay(name, action.isChecked())
        self._fill_recent_menu()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            if self.layouts.on_default:  # laid out for the size it had before it was shown
                QTimer.singleShot(0, self.layouts.apply_default)

    def closeEvent(self, event) -> None:
        if self.team_listener is not None:
            self.team_listener.stop()
        self.picture_modes.set_floating(False)
        self.picture_modes.leave_full_screen()
        save_layout(self)
        self.queue.shutdown()
        self.upgrade.shutdown()
        self.summary_panel.shutdown()
        self.library_panel.shutdown()
        self.library.shutdown()
        if self.thumbnails is not None:
            self.thumbnails.close()
        self.player.close()  # its frame loader too
        wait_for_closed_threads()
        super().closeEvent(event)
