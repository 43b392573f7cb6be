"""What a shot shows, named by an image-text model (SigLIP, SigLIP 2) from a vocabulary of
everyday things and scenes (resources/vocabulary/things.tsv: COCO's, ImageNet's, Open
Images', LVIS's and Places365's names in plain words).

Each name is asked about once per model as SigLIP's own zero-shot prompt, "a photo of a
parrot." (a hint that tells a word's senses apart goes in parentheses: "a photo of a bat
(animal)."); the text embeddings are kept on disk under
``$VIDEOREVIEW_HOME/vocabulary/<model version>/`` and reused. The frames the captions
stage already samples (1 a second) are embedded by the same model, and each frame's logit
for a name is ``cosine * logit_scale + logit_bias``, the two numbers the model was trained
with (image_text.py keeps them in logits.json).

When a name is seen: SigLIP is trained with a sigmoid loss on each image-text pair alone,
``-log sigmoid(z * logit)`` with z = 1 for a matching pair and -1 for every other, so
``sigmoid(logit)`` is the model's own probability that the text describes the image and a
positive logit (probability over 0.5) is where the model itself decides "a match". That is
the threshold (MATCH_LOGIT), not one set by eye; no other calibration is made, because
none could be checked here without the real weights. A shot's names are those that match
in at least half of its scored frames (MATCH_SHARE): a name the model gives only a glimpse
of a shot (a frame of a pan, a flash) is not what the shot shows, and in a one- or
two-frame shot the one frame's match suffices. Of those, the names that are general kinds
of another matched name (the WordNet hierarchy: "bird" where "parrot" matches) are dropped,
and the MAX_NAMES most probable on average over the shot's frames are kept, each scored
with that mean probability.
"""

from __future__ import annotations

import bisect
import hashlib
import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from ...errors import RecordError
from ...records import SHOT_CHANGE_KINDS, Analysis, ShotTag

PROMPT = "a photo of {article} {name}."  # SigLIP's zero-shot prompt (its model card's example: "a photo of 2 cats")
MATCH_LOGIT = 0.0  # a positive logit is the model's own "match" (sigmoid > 0.5)
MATCH_SHARE = 0.5  # ...in at least this share of a shot's scored frames makes the name the shot's
MAX_NAMES = 3  # names kept per shot, most probable first
TEXT_BATCH = 64  # prompts per run of the text tower
KINDS = ("thing", "scene", "style")
COLUMNS = ("name", "kind", "sources", "hint")


@dataclass(frozen=True)
class Vocabulary:
    """Names to ask the model about, with what each is (KINDS), the lists that give it and
    the hint that tells its sense apart ("animal" for "bat"), in the file's order."""

    names: tuple[str, ...]
    kinds: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    hints: tuple[str, ...] = ()

    def prompts(self, template: str = PROMPT) -> list[str]:
        hints = self.hints or ("",) * len(self.names)
        return [template.format(name=f"{name} ({hint})" if hint else name, article=article(name))
                for name, hint in zip(self.names, hints)]

    def digest(self, template: str = PROMPT) -> str:
        """What the text embeddings depend on: the prompts."""
        return hashlib.sha256("\n".join(self.prompts(template)).encode()).hexdigest()[:16]


def article(name: str) -> str:
    return "an" if name[:1] in "aeiou" else "a"


def vocabulary_path() -> Path:
    from ...paths import resources_dir

    return resources_dir() / "vocabulary" / "things.tsv"


def read_vocabulary(path: str | os.PathLike) -> Vocabulary:
    """The vocabulary in a TSV file (COLUMNS; lines starting with # are comments);
    RecordError naming the file and line where it is not one."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(path, f"the vocabulary cannot be read ({exc})") from None
    rows: list[list[str]] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != len(COLUMNS) or not fields[0].strip():
            raise RecordError(path, f"line {number}: expected {len(COLUMNS)} tab-separated fields "
                                    f"({', '.join(COLUMNS)}), got {line!r}")
        if fields[1] not in KINDS:
            raise RecordError(path, f"line {number}: kind {fields[1]!r} is not one of {', '.join(KINDS)}")
        if fields[0] in seen:
            raise RecordError(path, f"line {number}: {fields[0]!r} is listed twice")
        seen.add(fields[0])
        rows.append(fields)
    if not rows:
        raise RecordError(path, "the vocabulary has no names")
    return Vocabulary(*(tuple(column) for column in zip(*rows)))


@cache
def default_vocabulary() -> Vocabulary:
    return read_vocabulary(vocabulary_path())


@cache
def _kinds() -> dict[str, str]:
    vocabulary = default_vocabulary()
    return dict(zip(vocabulary.names, vocabulary.kinds))


def kind_of(name: str) -> str:
    """What a name of the app's vocabulary is (KINDS: "thing", "scene", "style"); "thing"
    for a name it does not hold."""
    return _kinds().get(name, "thing")


def logits(frames: np.ndarray, texts: np.ndarray, scale: float, bias: float) -> np.ndarray:
    """[frames, names]: SigLIP's logit of each unit-length frame vector against each text vector."""
    return (frames @ texts.T) * scale + bias


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # the same as 1 / (1 + exp(-x)), without overflow


def shot_names(shot_logits: np.ndarray, names: Sequence[str], limit: int = MAX_NAMES) -> list[tuple[str, float]]:
    """(name, mean probability) of the names one shot shows, most probable first, from the
    logits of its scored frames ([frames, names]): see the module's docstring."""
    if shot_logits.size == 0:
        return []
    matched = (shot_logits > MATCH_LOGIT).mean(axis=0) >= MATCH_SHARE
    mean = sigmoid(shot_logits).mean(axis=0)
    found = sorted(((names[i], float(mean[i])) for i in np.flatnonzero(matched)), key=lambda item: -item[1])
    general = kinds_of_others([name for name, _ in found])
    return [(name, round(p, 4)) for name, p in found if name not in general][:limit]


def kinds_of_others(names: Sequence[str]) -> set[str]:
    """The names among ``names`` that another of them is a kind of in the WordNet hierarchy
    the app ships ("bird" of "parrot"); a name it does not hold is a kind of nothing."""
    from ...taxonomy import taxonomy

    tax = taxonomy()
    above: set[str] = set()  # every synset some name's synset is a kind of (itself left out)
    for name in names:
        for synset in tax.synsets(name):
            above |= tax.ancestors(synset) - {synset}
    return {name for name in names if (synsets := set(tax.synsets(name))) and synsets <= above}


def shot_spans(analysis: Analysis) -> list[tuple[float, float, int]]:
    """(start, end, first frame) of each shot, in order: from each cut or gradual transition
    to the next (the captions stage's shots)."""
    cuts = sorted({b.frame: b.time for b in analysis.boundaries if b.kind in SHOT_CHANGE_KINDS and b.frame > 0}.items())
    starts = [(0, 0.0), *cuts]
    ends = [t for _, t in cuts] + [analysis.video.duration]
    return [(start, max(start, end), frame) for (frame, start), end in zip(starts, ends)]


class ShotNamer:
    """An image-text engine (engines/embeddings, ``ImageTextEngine``) naming what shots
    show from ``vocabulary`` (default: resources/vocabulary/things.tsv)."""

    def __init__(self, encoder, vocabulary: Vocabulary | None = None, template: str = PROMPT) -> None:
        self.encoder = encoder
        self.vocabulary = vocabulary if vocabulary is not None else default_vocabulary()
        self.template = template
        self._texts: np.ndarray | None = None

    @property
    def tag(self) -> str:
        """The model as shot tags name it: "siglip:NAME@version"."""
        return f"{self.encoder.name}@{self.encoder.version}"

    def embed_frames(self, frames: Sequence[np.ndarray]) -> np.ndarray:
        """Unit-length vectors of RGB uint8 frames, float32 [n, dim]."""
        return self.encoder.embed_images(frames)

    def cache_path(self) -> Path:
        from ...paths import data_dir

        return data_dir() / "vocabulary" / self.encoder.version / f"{self.vocabulary.digest(self.template)}.npy"

    def text_embeddings(self) -> np.ndarray:
        """The vocabulary's prompts embedded, [names, dim]: made once per model and
        vocabulary, then read from disk (cache_path)."""
        if self._texts is not None:
            return self._texts
        path = self.cache_path()
        texts = _read_array(path, len(self.vocabulary.names))
        if texts is None:
            prompts = self.vocabulary.prompts(self.template)
            texts = np.concatenate([self.encoder.embed_texts(prompts[i:i + TEXT_BATCH])
                                    for i in range(0, len(prompts), TEXT_BATCH)]).astype(np.float32)
            _write_array(path, texts)
        self._texts = texts
        return texts

    def logits(self, frames: np.ndarray) -> np.ndarray:
        return logits(frames, self.text_embeddings(), self.encoder.logit_scale, self.encoder.logit_bias)

    def shot_tags(self, analysis: Analysis, frames: Sequence[int], vectors: np.ndarray) -> tuple[ShotTag, ...]:
        """The names each shot of ``analysis`` shows, from the vectors of its sampled
        ``frames`` (frame indices, in order), as shot tags in time order."""
        if not len(frames):
            return ()
        spans = shot_spans(analysis)
        firsts = [frame for _, _, frame in spans]
        by_shot: dict[int, list[int]] = {}
        for row, frame in enumerate(frames):
            by_shot.setdefault(bisect.bisect_right(firsts, frame) - 1, []).append(row)
        all_logits = self.logits(np.asarray(vectors, np.float32))
        tags = []
        for shot, rows in sorted(by_shot.items()):
            start, end, first = spans[shot]
            tags += [ShotTag(start=start, end=end, frame=first, name=name, score=score, engine=self.tag)
                     for name, score in shot_names(all_logits[rows], self.vocabulary.names)]
        return tuple(tags)


def keep_edited_tags(tags: Sequence[ShotTag], previous: Sequence[ShotTag]) -> tuple[ShotTag, ...]:
    """The model's tags with a reviewer's (``edited``) kept: an edited tag replaces the
    model's tag of the same name in the same shot (its first frame)."""
    edited = [t for t in previous if t.edited]
    taken = {(t.frame, t.name) for t in edited}
    return tuple(sorted([*edited, *(t for t in tags if (t.frame, t.name) not in taken)],
                        key=lambda t: (t.start, -t.score)))


def _read_array(path: Path, rows: int) -> np.ndarray | None:
    """The array saved at ``path`` with ``rows`` rows, or None (not made yet, or damaged: made again)."""
    try:
        array = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None
    return array if array.ndim == 2 and array.shape[0] == rows else None


def _write_array(path: Path, array: np.ndarray) -> None:
    from ...records import write_atomic

    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    write_atomic(path, buffer.getvalue())
