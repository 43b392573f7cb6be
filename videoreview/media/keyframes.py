"""The frames a quick first look at a whole video sees, and a FrameSource that shows only them.

A window wants the whole video's timeline early, at a coarse level, before the analysis
has read every frame (pipeline/coarse.py). The cheapest frames to look at are keyframes:
decoding one needs no other frame, so a seek to it decodes that frame alone. Encoders put
them at fixed intervals (x264: at most 250 frames apart by default) and at most scene cuts
(x264's scenecut), so a look at a keyframe is often a look at the first frame of a shot.

Which frames are keyframes comes from the FrameSource's own index (media/probe.py: the
demuxer's flag of every packet, checked against the decoder at the last keyframe): it is
already there when the source opens, costs no decoding at all (decoding with FFmpeg's
``skip_frame = "NONKEY"`` would still read and decode every keyframe to learn the same),
and its frame numbers and times are the source's by construction. A file whose flags
were found wrong has frame 0 as its only keyframe, as its random access has it.

``look_indices`` thins the keyframes to one each ``GAP`` seconds at most (a 3-minute video:
40 looks at most; a long one at most ``MOST``, further apart), then, where keyframes are
too sparse (a stretch between looks longer than ``SPARSE`` gaps: a 10-second GOP, a file
with one keyframe), adds looks by seeking, evenly spaced. A seek decodes from the keyframe
before it, so such looks cost more: on a file with one keyframe the looks together decode
it once from start to end (the decoder goes forward from look to look without seeking).

``LookSource`` is a FrameSource seen only at those frames: ``sample_indices`` gives the
looks whatever the rate asked, so a stage's frame reader (media/shared_pass.py) made with
it reads the looks and nothing else; ``batches_for`` decodes the frames the readers want
(the looks, and what else they ask for, such as the frame after each look) with the
source's own reader.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .source import FrameSource

GAP = 4.5  # seconds between two looks at least: 40 looks in a 3-minute video
MOST = 120  # looks at most (a 9-minute video or longer: further apart than GAP)
# A stretch between looks longer than this many gaps gets looks by seeking. Not for x264's
# default GOP (250 frames: 10.4 s at 24 fps): a look seeking into it decodes from its keyframe,
# and at 1.5 gaps the looks at a 3-minute 720p clip with 10 s GOPs decoded the whole file
# (21 s more for the window's analysis on a busy 2-core machine); a look every 10 s is coarse enough.
SPARSE = 2.5


def keyframe_indices(source: FrameSource) -> np.ndarray:
    """Indices of the source's keyframes (int64, sorted), frame 0 always among them (a
    file starts decoding there)."""
    keys = np.flatnonzero(source._index.keyframe)  # the demuxer's flags, as the source's reader seeks by them
    return np.union1d([0], keys).astype(np.int64)


def look_gap(duration: float, gap: float | None = None, most: int | None = None) -> float:
    """Seconds between two looks at a video of ``duration`` seconds (``gap`` and ``most``:
    GAP and MOST unless given)."""
    return max(GAP if gap is None else gap, duration / max(1, MOST if most is None else most))


def look_indices(source: FrameSource, gap: float | None = None, most: int | None = None) -> np.ndarray:
    """The frames to look at (int64, sorted, unique): keyframes at least ``look_gap``
    apart, the first at frame 0, and frames reached by seeking where no keyframe comes
    for more than ``SPARSE`` gaps (between two looks, and from the last look to the end)."""
    times = source.timestamps
    duration = source.info.duration
    step = look_gap(duration, gap, most)
    taken = [0]
    for key in keyframe_indices(source)[1:]:
        if times[key] - times[taken[-1]] >= step - 1e-6:
            taken.append(int(key))
    chosen = list(taken)
    edges = [float(times[k]) for k in taken] + [duration]
    for start, end in zip(edges, edges[1:]):
        if end - start > SPARSE * step:
            count = round((end - start) / step) - 1  # looks added between: about one a step
            between = start + (end - start) * np.arange(1, count + 1) / (count + 1)
            chosen.extend(int(i) for i in source.index_at(between))
    return np.unique(np.asarray(chosen, np.int64))


class LookSource:
    """A FrameSource seen only at ``looks`` (sorted frame indices): what a stage's reader
    made with it samples, whatever its rate. Reads through ``source``, which stays open
    and is not closed here."""

    def __init__(self, source: FrameSource, looks: Sequence[int]) -> None:
        self.source = source
        self.looks = np.unique(np.asarray(looks, np.int64))
        if not len(self.looks):
            raise ValueError("a LookSource needs one look at least")
        self.info = source.info
        self.path = source.path
        self.timestamps = source.timestamps
        self.start_time = source.start_time

    def __len__(self) -> int:
        return self.info.frame_count

    @property
    def mean_rate(self) -> float:
        """Looks a second over the whole video: a stage's results say this as their rate
        (an object seen at a look lasts about one look's share of the video)."""
        return len(self.looks) / max(self.info.duration, 1e-6)

    def sample_indices(self, rate: float) -> np.ndarray:
        """The looks, at any ``rate``: a reader made with this source reads only them."""
        return self.looks.copy()

    def index_at(self, times) -> np.ndarray:
        return self.source.index_at(times)

    def frames_at_indices(self, indices, size: tuple[int, int] | None = None):
        return self.source.frames_at_indices(indices, size)

    def batches_for(self, wants):
        """As FrameSource.batches_for: the frames each want lists, decoded once each (a
        keyframe look by a seek that decodes it alone; the frame after a look goes on
        from there without seeking)."""
        return self.source.batches_for(wants)
