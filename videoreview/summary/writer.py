"""A VLM as a summary writer: ViSIL's summary prompt (F.4) on the video's sampled frames
followed by the summary's keyframes.

``load_writer("builtin" | MODEL)`` gives the writer that ``builder.build`` takes
(None for the builtin one) and a function that frees the model after the job.
"""

from __future__ import annotations

from collections.abc import Callable

from ..records import Analysis, Keyframe
from .compare import frame_reader, video_frame_indices


class VLMWriter:
    """Writes with a loaded VisionLanguageModel (or a model server's ServerModel); frames are
    decoded from ``video_path``."""

    def __init__(self, model, video_path: str):
        self.model = model
        self.name = model.label  # as the captions engine and the scorer name it
        self.read_frames = frame_reader(video_path)
        self._video_frames: list | None = None  # decoded once for all the summaries of the job

    def __call__(self, analysis: Analysis, keyframes: list[Keyframe]) -> str:
        from ..engines.scoring.vlm import write_summary

        if self._video_frames is None:
            self._video_frames = self.read_frames(video_frame_indices(analysis))
        shown = self.read_frames([kf.frame for kf in keyframes]) if keyframes else []
        return write_summary(self.model, self._video_frames, shown)


def load_writer(spec: str, video_path: str, device: str = "auto") -> tuple[VLMWriter | None, Callable[[], None]]:
    """The writer named by ``spec`` (see engines.registry: "builtin", a catalog model or a
    VLM folder) and its release; None for the builtin writer (the builder's own text).
    Raises ModelError naming the folder when it holds no usable model."""
    from ..engines import registry

    engine = registry.create("summaries", spec, device)
    if engine is None:
        return None, lambda: None
    writer = VLMWriter(engine.model, video_path)

    def release() -> None:
        writer.model = None
        engine.release()

    return writer, release
