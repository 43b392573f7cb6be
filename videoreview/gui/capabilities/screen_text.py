"""The text read on screen, in the window: its track (a block per span, for as long as it
stays on screen) and a span's page in the Details panel. A selection is the span's place
in the Analysis's list."""

from __future__ import annotations

from ..capability_view import CapabilityView
from ..panels.details_page import DetailsPage
from ..timeline.tracks.blocks import ScreenTextTrack


class ScreenTextPage(DetailsPage):
    """What was read, when, how sure; no controls."""

    def record(self, analysis, key):
        spans = analysis.screen_text
        return spans[key] if isinstance(key, int) and 0 <= key < len(spans) else None

    def show(self, span) -> None:
        panel = self.panel
        panel.title.setText(f"<b>On-screen text</b> {panel.time_text(span.start)} – {panel.time_text(span.end)}")
        panel.info.setText(f"“{span.text}”\nread {panel.by(span.engine, 'screen-text')}, confidence {span.score:.2f}")


VIEW = CapabilityView(key="screen-text", tracks=(ScreenTextTrack,), row=60, page=ScreenTextPage)
