"""One EfficientNet-Lite0 pass per sampled frame for the boundaries and the captions.

Both stages read their frames in the runner's one decoding pass (media/shared_pass.py),
each reader getting batches of its own. The boundary reader samples 5 frames a second at
``LONG_SIDE`` pixels for its event features; the captions stage samples 1 a second (a
subset: k s is 5k / 5 s) and wants, for each, the whole picture's appearance feature
(keyframes) and ImageNet probabilities (its "whole" view) at the same size. Where both
readers are made for the same pass, the boundary reader hands the features and
probabilities of those frames over through a ``Handover``, and the captions run the
network only on their square crops. The boundary reader settles a sample a few seconds
after decoding it (sampled.py waits for the transitions around it), so the captions
reader keeps its samples until their values are handed over; every value is settled by
the end of the pass.

Readers join by the FrameSource they are made with, before the pass starts (the runner
makes every reader of a pass, then reads): a reader made when the other has already
taken frames, or alone, finds no partner and works alone, as do both where either
stage's result comes from the cache or is off. Alone, the captions run the network on
the same pixels: the decoder scales their samples to the shared size too (the reader's
``side``, media/shared_pass.py). At 160 px the classifier is that sensitive to how a
picture was scaled (OpenCV's area filter from the captions' 224 px frame against the
decoder's bicubic one from the full frame moved a sample's probabilities by 0.05-0.2 in
total variation on real clips) that anything but the same pixels would make the captions
depend on whether the boundaries ran in the same pass.
"""

from __future__ import annotations

import weakref

import numpy as np

from ...media import scaled_size

LONG_SIDE = 160  # the long side of the shared view: the boundary reader's decode size


class Handover:
    """Features and probabilities of sampled frames, from the boundary reader (the
    producer) to the captions reader (the consumer) of one pass."""

    def __init__(self) -> None:
        self.producer = False  # a boundary reader joined
        self.consumer = False  # a captions reader joined
        self.started = False  # a member took frames: nobody joins any more
        self.offered: frozenset[int] = frozenset()  # frames the producer samples at the shared size
        self.wanted: frozenset[int] = frozenset()  # frames the consumer wants
        self.ready: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # frame -> (feature, probabilities)
        self.finished = False  # the producer's result() ran: nothing more comes

    @property
    def linked(self) -> bool:
        return self.producer and self.consumer

    def expects(self, frame: int) -> bool:
        """Whether the consumer should wait for ``frame``'s values from the producer."""
        return self.linked and not self.finished and frame in self.offered

    def give(self, frame: int, feature: np.ndarray, probabilities: np.ndarray) -> None:
        if frame in self.wanted:
            self.ready[frame] = (feature, probabilities)

    def take(self, frame: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The values handed over for ``frame`` (each is taken once), or None."""
        return self.ready.pop(frame, None)


_WAITING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # source -> Handover not yet started


def join(source, *, offers=None, wants=None) -> Handover:
    """The Handover of the pass a reader is being made for: the producer ``offers`` the
    frames it samples at the shared size, the consumer ``wants`` its sampled frames."""
    handover = _WAITING.get(source)
    role = "producer" if offers is not None else "consumer"
    if handover is None or handover.started or getattr(handover, role):
        handover = Handover()
        _WAITING[source] = handover
    setattr(handover, role, True)
    if offers is not None:
        handover.offered = frozenset(np.asarray(offers).tolist())
    else:
        handover.wanted = frozenset(np.asarray(wants).tolist())
    return handover


def start(handover: Handover) -> None:
    """A member took its first frames: the pass has begun and no reader joins it now."""
    handover.started = True


def shared_size(width: int, height: int) -> tuple[int, int]:
    """(width, height) of the shared view of a video of that size."""
    return scaled_size(width, height, LONG_SIDE)
