"""The WordNet hierarchy above the ImageNet classes (resources/imagenet_hierarchy.tsv, made by
scripts/build-imagenet-hierarchy from WordNet 3.0): what a class is a kind of, so that an
unsure species can be said as a sure category ("macaw" -> "parrot" -> "bird") and a search
for "bird" finds a frame the classifier called "macaw".
"""

from __future__ import annotations

from functools import cache

# Categories too broad or too technical to say or to search by: every class is one, or
# the word is WordNet's own ("whole", "instrumentality", "placental", "diapsid").
TOO_GENERAL = frozenset({
    "entity", "physical entity", "object", "whole", "artifact", "living thing", "organism", "instrumentality",
    "chordate", "vertebrate", "placental", "diapsid", "commodity", "consumer goods", "covering", "conveyance",
    "matter", "solid", "substance", "abstraction", "self-propelled vehicle", "protective covering",
    "implement", "invertebrate", "arthropod", "craniate", "eutherian mammal", "mammalian", "part",
})


class Taxonomy:
    def __init__(self, lines: list[str]) -> None:
        self.names: dict[str, str] = {}  # synset id -> its first lemma
        self.lemmas: dict[str, tuple[str, ...]] = {}  # synset id -> all its lemmas
        self.parents: dict[str, tuple[str, ...]] = {}
        for line in lines:
            if line.startswith("#") or not line.strip():
                continue
            synset, lemmas, parents = line.rstrip("\n").split("\t")
            self.lemmas[synset] = tuple(lemmas.split(","))
            self.names[synset] = self.lemmas[synset][0]
            self.parents[synset] = tuple(p for p in parents.split(",") if p)
        self._by_name: dict[str, list[str]] = {}
        for synset, name in self.names.items():
            self._by_name.setdefault(name, []).append(synset)
        self._ancestors: dict[str, frozenset[str]] = {}

    def ancestors(self, synset: str) -> frozenset[str]:
        """The synset and everything it is a kind of, up to the root."""
        if synset not in self._ancestors:
            found = {synset}
            for parent in self.parents.get(synset, ()):
                found |= self.ancestors(parent)
            self._ancestors[synset] = frozenset(found)
        return self._ancestors[synset]

    def synsets(self, name: str) -> list[str]:
        """The synsets a class name stands for (a few names are two classes: "crane" the
        bird and the machine)."""
        return self._by_name.get(name, [])

    def kinds(self, name: str) -> list[str]:
        """What a class name is a kind of, nearest first, without the categories too broad
        or too technical to say: "macaw" -> ["parrot", "bird", "animal"]."""
        out: list[str] = []
        for synset in self.synsets(name):
            for ancestor in sorted(self.ancestors(synset) - {synset}, key=lambda s: -self._depth(s)):
                word = self.names[ancestor]
                if word not in TOO_GENERAL and word != name and word not in out:
                    out.append(word)
        return out

    def synset_kinds(self, synsets: tuple[str, ...] | list[str]) -> list[str]:
        """The names of ``synsets`` and of everything they are kinds of, nearest first,
        without the categories too broad or too technical to say: ("n02958343",) (the car)
        -> ["car", "motor vehicle", "wheeled vehicle", "vehicle", "container"]."""
        found: set[str] = set()
        for synset in synsets:
            found |= self.ancestors(synset)
        out: list[str] = []
        for synset in sorted(found, key=lambda s: (-self._depth(s), s)):
            word = self.names[synset]
            if word not in TOO_GENERAL and word not in out:
                out.append(word)
        return out

    def _depth(self, synset: str) -> int:
        parents = self.parents.get(synset, ())
        return 1 + max((self._depth(p) for p in parents), default=-1)


@cache
def taxonomy() -> Taxonomy:
    from .paths import resources_dir

    return Taxonomy((resources_dir() / "imagenet_hierarchy.tsv").read_text(encoding="utf-8").splitlines())
