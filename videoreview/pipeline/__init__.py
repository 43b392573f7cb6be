"""Runs engine stages over a video with progress, cancellation and a per-video cache."""

from .cache import StageCache, file_hash
from .cancel import CancelToken
from .runner import analyze
from .stages import DEFAULT_ENGINES, build_stages
from .stages.boundaries import BoundaryStage

__all__ = ["StageCache", "file_hash", "CancelToken", "analyze", "DEFAULT_ENGINES", "BoundaryStage", "build_stages"]
