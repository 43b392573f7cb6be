"""The WordNet hierarchy above the ImageNet classes, and what it adds to the library."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from videoreview.engines.boundaries.features import imagenet_labels
from videoreview.library.units import labels_text
from videoreview.taxonomy import taxonomy

ROOT = Path(__file__).resolve().parents[1]


def test_every_class_has_its_kinds_up_to_the_root():
    tree = taxonomy()
    labels = imagenet_labels()
    assert all(tree.synsets(name) for name in labels)
    root = next(s for s, parents in tree.parents.items() if not parents)
    assert tree.names[root] == "entity"
    assert all(root in tree.ancestors(s) for name in labels for s in tree.synsets(name))
    assert tree.kinds("macaw") == ["parrot", "bird", "animal"]
    assert {"dog", "canine"} <= set(tree.kinds("golden retriever"))
    assert {"bird", "device"} <= set(tree.kinds("crane"))  # two classes share the name
    assert not set(tree.kinds("tabby")) & {"whole", "object", "organism", "entity"}


def test_the_labels_unit_names_the_kinds_of_the_sure_labels_only():
    text = labels_text((("macaw", 0.62), ("tabby", 0.05), ("lorikeet", 0.21)))
    assert text.startswith("macaw, tabby, lorikeet (")
    assert "parrot" in text and "bird" in text and "cat" not in text


@pytest.mark.skipif(not Path("/usr/share/wordnet/data.noun").exists(), reason="wordnet-base is not installed")
def test_the_resource_is_what_its_script_makes(tmp_path):
    out = tmp_path / "hierarchy.tsv"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "build-imagenet-hierarchy"), "/usr/share/wordnet",
                    str(out)], check=True, capture_output=True)
    assert out.read_bytes() == (ROOT / "resources" / "imagenet_hierarchy.tsv").read_bytes()
