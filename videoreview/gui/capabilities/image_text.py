"""The shot tags (what an image-text model names in each shot), in the window: their row
is the Objects track's top (timeline/tracks/objects.py draws it, so this view has no track
of its own) and a tag's page in the Details panel. A selection is (the shot's first frame,
the name)."""

from __future__ import annotations

from ..capability_view import CapabilityView
from ..panels.details_page import DetailsPage


class ShotTagPage(DetailsPage):
    """A name of a shot: how probable, by which model, and the shot's other names; no controls."""

    def record(self, analysis, key):
        return next((t for t in analysis.shot_tags if (t.frame, t.name) == key), None)

    def show(self, tag) -> None:
        panel = self.panel
        panel.title.setText(f"<b>{tag.name[:1].upper() + tag.name[1:]}</b> in the shot "
                            f"{panel.time_text(tag.start)} – {panel.time_text(tag.end)}")
        others = sorted((t for t in panel.analysis.shot_tags if t.frame == tag.frame and t is not tag),
                        key=lambda t: -t.score)
        also = f"\nAlso named in this shot: {', '.join(f'{t.name} ({t.score:.2f})' for t in others)}" if others else ""
        panel.info.setText(f"Shot tag, probability {tag.score:.2f}: the model's own that the name describes the "
                           f"picture, averaged over the shot's frames\nnamed by {tag.engine or 'unknown engine'}{also}")


VIEW = CapabilityView(key="image-text", page=ShotTagPage)
