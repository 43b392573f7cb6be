"""What people do, in the window: the People track (a bar per person track, cut into
status spans) and a person's page in the Details panel (their statuses, span by span).
A selection is (the person track's id, the index of its status span or None)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QWidget

from ..capability_view import CapabilityView
from ..colors import status_color, swatch
from ..labels import identity_label
from ..panels.details_page import DetailsPage, find, page_layout
from ..timeline.tracks.people import PeopleTrack


class PersonPage(DetailsPage):
    def build(self) -> QWidget:
        page = QWidget()
        self.statuses = QListWidget()
        self.statuses.setMaximumHeight(140)
        self.statuses.setToolTip("What this person does, span by span")
        # A row picked here selects its span, on the timeline too.
        self.statuses.itemClicked.connect(lambda item: self.panel.selectRequested.emit("poses",
                                                                                       item.data(Qt.UserRole)))
        layout = page_layout(page)
        layout.addWidget(QLabel("Statuses"))
        layout.addWidget(self.statuses)
        return page

    def record(self, analysis, key):
        """The person track by its id; the key's second half is the span shown."""
        if not isinstance(key, tuple) or len(key) != 2:
            return None
        track_id, k = key
        track = find(analysis.poses, "id", track_id)
        return track if track is not None and (k is None or 0 <= k < len(track.statuses)) else None

    def show(self, track) -> None:
        panel = self.panel
        k = panel.key[1]
        names = {identity.id: identity.name for identity in panel.analysis.identities}
        who = identity_label(track.identity, names.get(track.identity)) if track.identity else "Person"
        if k is None:
            panel.title.setText(f"<b>{who}</b> {panel.time_text(track.start)} – {panel.time_text(track.end)}")
        else:
            span = track.statuses[k]
            panel.title.setText(f"<b>{who}</b> {span.status} {panel.time_text(span.start)} – "
                                f"{panel.time_text(span.end)}")
        named = "named by their face" if track.identity else "no face named them"
        engine = track.engine or panel.analysis.engines.get("poses", "")
        panel.info.setText(f"Seen {panel.time_text(track.start)} – {panel.time_text(track.end)} in {track.samples} "
                           f"samples, mean score {track.score:.2f}, {named}\n"
                           f"found {panel.by(engine, 'poses')}")
        self.statuses.clear()
        for j, span in enumerate(track.statuses):
            item = QListWidgetItem(f"{span.status}: {panel.time_text(span.start)} – {panel.time_text(span.end)}")
            item.setData(Qt.UserRole, (track.id, j))
            item.setIcon(swatch(status_color(span.status)))  # as the People track colours it
            self.statuses.addItem(item)
        if k is not None:
            self.statuses.setCurrentRow(k)


VIEW = CapabilityView(key="poses", tracks=(PeopleTrack,), row=80, page=PersonPage)
