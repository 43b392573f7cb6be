"""The window's note keys: I and O mark the range the next note covers (the timeline shows
it), N opens the Notes panel's composer at the playhead (over the marked range if there
is one), D makes the paused frame a canvas for a note's drawing."""

from __future__ import annotations


class NoteMarks:
    def __init__(self, window) -> None:
        self.window = window
        self.marks: list[int | None] = [None, None]  # in and out frames marked with I and O

    def _analysed(self) -> bool:
        current = self.window.current
        return current is not None and current.analysis is not None

    def mark(self, which: int) -> None:
        """I (0) and O (1): the frame on screen starts or ends the range the next note covers."""
        if not self._analysed():
            return
        self.marks[which] = self.window.player.current_frame()
        self._show()

    def clear(self) -> None:
        self.marks = [None, None]
        self._show()

    def _show(self) -> None:
        frames = [f for f in self.marks if f is not None]
        fps = self.window.current.analysis.video.fps if self._analysed() else 25.0
        self.window.timeline.set_marks((min(frames) / fps, (max(frames) + 1) / fps) if frames else None)

    def add_note(self) -> None:
        """N: the Notes panel's composer at the playhead, over the marked range if there is one."""
        if not self._analysed():
            return
        window = self.window
        here = window.player.current_frame()
        marked = [f for f in self.marks if f is not None]
        if len(marked) == 1:
            marked.append(here)  # only I (or O): the range runs to the playhead
        start, end = (min(marked), max(marked)) if marked else (here, here)
        window.player.pause()
        window.show_notes()
        window.notes_panel.compose(start, end if end != start else None)
        self.clear()

    def draw_on_frame(self) -> None:
        """D: the paused frame becomes a canvas for a note's drawing (D again: done)."""
        if not self._analysed():
            return
        self.window.player.pause()
        self.window.show_notes()
        self.window.notes_panel.draw_button.toggle()
