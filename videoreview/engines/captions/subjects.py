"""What a shot shows, said at the level the classifier is sure of.

The ImageNet classifier's labels flicker from one sampled frame to the next ("Egyptian
cat", then "tiger cat", then "lynx") and are often sure of the wrong thing. So a
subject is decided over a window of samples in the same shot, not per frame; over the
WordNet hierarchy above the classes, not per class (a category's probability at a frame
is the sum of its classes': "domestic cat" = Egyptian cat + tabby + tiger cat + ...);
and in two views of each frame, three square crops at the classifier's own scale and
the whole picture at once, which must agree (a classifier sure and wrong about a
picture is seldom wrong the same way about its crops). The subject is the most specific
category sure on average over the window and present at most of its frames in both
views; when none is, nothing is said.

    subject_word([[("macaw", 0.2), ("lorikeet", 0.2), ("sulphur-crested cockatoo", 0.2)]] * 3) -> "parrot"

The thresholds are calibrated on the caption evaluation set (tests/caption_set.py,
benchmarks/caption_sense.py --sweep), not set by eye.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache

from ...taxonomy import TOO_GENERAL, taxonomy

# Calibrated on the evaluation set (benchmarks/caption_sense.py --sweep 0.1 ... 0.6 --specific
# 0.15 ... 0.7): the most subjects named with no false label. A category needs more than a
# class because its probability sums many classes' small, noisy ones.
SURE = 0.4  # a category's mean probability over the window at which it is said
SPECIFIC = 0.25  # ...the same for an ImageNet class itself
PRESENT = 0.5  # ...and, as a share of that, the probability it has at (most of) the window's frames
PRESENT_SHARE = 0.6  # the share of the window's frames where it must be present

# Categories true of too many things to be worth a caption ("a device", "a structure").
TOO_VAGUE = frozenset({
    "device", "instrument", "equipment", "container", "structure", "gear", "relation", "fluid", "liquid",
    "machine", "support", "rack", "vessel", "covering", "surface", "area", "system", "material", "food",
    "clothing", "garment", "game", "game equipment", "measuring instrument", "mechanism", "toiletry",
    "electronic equipment", "mechanical device", "wheeled vehicle", "domestic animal", "animal", "commodity",
    "way", "sheet", "establishment", "place of business", "building",
})
# The word a person uses for a category whose WordNet name is stiffer.
PLAIN_WORDS = {"domestic cat": "cat", "motor vehicle": "vehicle", "minibike": "motorbike",
               "wading bird": "bird", "bird of prey": "bird"}


@cache
def _categories(class_name: str) -> tuple[str, ...]:
    """The sayable categories (synset ids) a class belongs to, itself included."""
    tax = taxonomy()
    found: set[str] = set()
    for synset in tax.synsets(class_name):
        found |= {s for s in tax.ancestors(synset) if tax.names[s] not in TOO_GENERAL | TOO_VAGUE}
    return tuple(sorted(found))


@cache
def _classes() -> frozenset[str]:
    """The synsets of the classifier's own classes (the leaves the categories sum)."""
    from ..boundaries.features import imagenet_labels

    return frozenset(s for name in imagenet_labels() for s in taxonomy().synsets(name))


@cache
def _depth(synset: str) -> int:
    parents = taxonomy().parents.get(synset, ())
    return 1 + max((_depth(p) for p in parents), default=-1)


@lru_cache(maxsize=4096)  # each frame is in several overlapping windows
def _category_items(labels: tuple[tuple[str, float], ...]) -> tuple[tuple[str, float], ...]:
    """One frame's classifier labels as probabilities of the categories above them."""
    out: dict[str, float] = {}
    for name, p in labels:
        for synset in _categories(name):
            out[synset] = out.get(synset, 0.0) + p
    return tuple(out.items())


def sure_categories(window: Sequence[Sequence[tuple[str, float]]], sure: float, specific: float) -> dict[str, float]:
    """Categories sure over ``window`` (each frame's labels) with their mean probability:
    mean >= ``sure`` (``specific`` for a class itself) and >= PRESENT of that at
    PRESENT_SHARE of the frames."""
    totals: dict[str, float] = {}
    present: dict[str, int] = {}
    classes = _classes()
    for labels in window:
        for synset, p in _category_items(tuple(labels)):
            totals[synset] = totals.get(synset, 0.0) + p
            bar = specific if synset in classes else sure
            present[synset] = present.get(synset, 0) + (p >= PRESENT * bar)
    n = max(1, len(window))
    return {s: total / n for s, total in totals.items()
            if total / n >= (specific if s in classes else sure) and present[s] >= PRESENT_SHARE * n}


def subject_word(crops: Sequence[Sequence[tuple[str, float]]], whole: Sequence[Sequence[tuple[str, float]]] = (),
                 sure: float | None = None, specific: float | None = None) -> str | None:
    """The most specific category sure over a window of frames in both views, the
    classifier's labels of square crops and of the whole picture (either alone when the
    other is missing), as a word; None when there is none."""
    sure = SURE if sure is None else sure
    specific = SPECIFIC if specific is None else specific
    found = sure_categories(crops, sure, specific)
    if any(whole):
        agreed = sure_categories(whole, sure, specific)
        found = {s: min(p, agreed[s]) for s, p in found.items() if s in agreed}
    if not found:
        return None
    best = max(found, key=lambda s: (_depth(s), found[s]))
    word = taxonomy().names[best]
    return PLAIN_WORDS.get(word, word)


BROAD_KINDS = frozenset({"animal", "vehicle", "food", "furniture", "device", "container", "structure", "clothing"})


def same_kind(label: str, subject: str | None) -> bool:
    """Whether a detector's label and the classifier's subject are things of one broad kind
    (a "dog" and a "tabby": animals), so that one of them is wrong or both say the same."""
    if not subject:
        return False
    kinds = taxonomy().kinds
    return bool(set(kinds(label)) & set(kinds(subject)) & BROAD_KINDS) or label == subject


def is_clothing(word: str) -> bool:
    """Whether a subject word is something worn ("suit", "necktie"): said as worn by a person."""
    return any(kind in ("clothing", "garment", "neckwear", "headdress") for kind in taxonomy().kinds(word))
