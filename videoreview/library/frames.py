"""Frame search: each caption unit also gets the image-text embedding (SigLIP) of the frame
its caption was made from, so a query finds what the frames show even where no caption
says it. The frame ranking joins the text and caption-vector rankings in the same RRF.

Frames are decoded straight to the model's input size (square, or the NaFlex grid of the
video's aspect ratio), a batch at a time.
"""

from __future__ import annotations

import sys

import numpy as np

from ..errors import VideoReviewError
from ..media import open_video
from ..records import Analysis
from ..timecode import nearest_frame

# SigLIP's own match probability (sigmoid of the scaled cosine plus bias) below which a
# frame is not a match. SigLIP gives unrelated pairs about 1e-5 and described ones 0.1 and
# more; the threshold is a decision, not tuned on a labelled library (none was at hand).
MIN_PROBABILITY = 1e-3


class FrameEmbedder:
    """An ImageTextEncoder for the library: frames of a video in, unit vectors out."""

    def __init__(self, encoder, name: str = "") -> None:
        self.encoder = encoder
        self.name = name  # as chosen (a catalog name or folder)
        self.model = encoder.version  # stored with each vector: a new model's are not mixed in

    def embed_frames(self, analysis: Analysis, times: list[float]) -> np.ndarray | None:
        """Embeddings of the frames at ``times`` of the analysed video; None (said on
        stderr) when the video cannot be decoded now: the text is indexed anyway."""
        info = analysis.video
        indices = [nearest_frame(t, info.fps, info.frame_count) for t in times]
        size = self.encoder.input_size(info.width, info.height)
        try:
            with open_video(info.path) as source:
                frames = source.frames_at_indices(indices, size=size).frames
        except (VideoReviewError, OSError, IndexError) as exc:
            print(f"videoreview: frame search: {info.path}: not indexed ({exc})", file=sys.stderr)
            return None
        return self.encoder.embed_images(list(frames))

    def embed_query(self, text: str) -> np.ndarray:
        return self.encoder.embed_texts([text])[0]

    def probabilities(self, scores: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-(scores * self.encoder.logit_scale + self.encoder.logit_bias)))


def chosen_frame_embedder(current: FrameEmbedder | None = None) -> FrameEmbedder | None:
    """The image-text model chosen (see choices.py) as a FrameEmbedder (``current`` when
    it is that model already); None when frame search is off, or (said on stderr) when
    the model will not load."""
    from ..choices import choose
    from ..engines import registry
    from ..errors import ModelError

    chosen = choose()  # a model that is missing or too big is "none" here, and said by the analysis
    name = chosen.names["image-text"]
    if current is not None and current.name == name:
        return current
    try:
        encoder = registry.create("image-text", name, chosen.device)
    except ModelError as exc:
        print(f"videoreview: frame search is off: {exc}", file=sys.stderr)
        return None
    return None if encoder is None else FrameEmbedder(encoder, name)
