"""Errors a user sees. Each names the file and the problem in one line."""

from __future__ import annotations

import os


class VideoReviewError(Exception):
    """Base for errors that are reported to the user as one line."""


class PathError(VideoReviewError):
    """A problem with one file or folder: "PATH: reason"."""

    def __init__(self, path: str | os.PathLike, reason: str):
        self.path = os.fspath(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class MediaError(PathError):
    """A file that cannot be used as a video: not found, not a video, truncated, ..."""


class RecordError(VideoReviewError):
    """An Analysis (or other record file) that cannot be read."""

    def __init__(self, path: str | os.PathLike | None, reason: str):
        self.path = os.fspath(path) if path is not None else None
        self.reason = reason
        super().__init__(f"{self.path}: {reason}" if self.path else reason)


class Cancelled(VideoReviewError):
    """Raised inside a job when its cancellation token was set."""

    def __init__(self) -> None:
        super().__init__("cancelled")


class ModelError(PathError):
    """A model folder that videoreview will not load: missing, unsupported, unsafe, incomplete."""


class LibraryError(PathError):
    """The library's database or index cannot be used: locked, read-only, damaged, too new."""
