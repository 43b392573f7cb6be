"""Run in Datumaro's own virtualenv (scripts/setup-readers): read an export as Datumaro does
and print what it read as JSON, for the tests to compare with what was written.

    python datumaro_read.py FORMAT PATH   ->  {"labels": [...], "items": [{"id", "frame",
        "annotations": [{"type", "label", "bbox", "points", "attributes", "id", "group"}]}]}
"""

import json
import sys

from datumaro.components.annotation import AnnotationType
from datumaro.components.dataset import Dataset


def main(fmt: str, path: str) -> None:
    dataset = Dataset.import_from(path, fmt)
    labels = dataset.categories().get(AnnotationType.label)
    names = [label.name for label in labels] if labels is not None else []
    items = []
    for item in dataset:
        found = []
        for ann in item.annotations:
            entry = {"type": ann.type.name, "label": names[ann.label] if getattr(ann, "label", None) is not None
                     else None, "attributes": {k: v for k, v in ann.attributes.items()}, "id": ann.id,
                     "group": ann.group}
            if ann.type == AnnotationType.bbox:
                entry["bbox"] = list(ann.get_bbox())
            if hasattr(ann, "points") and ann.type != AnnotationType.bbox:
                entry["points"] = list(ann.points)
                entry["visibility"] = [int(v) for v in getattr(ann, "visibility", [])]
            found.append(entry)
        frame = item.attributes.get("frame")
        items.append({"id": item.id, "subset": item.subset, "frame": frame, "annotations": found,
                      "image": getattr(getattr(item, "media", None), "path", None)})
    json.dump({"labels": names, "items": items}, sys.stdout, default=str)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
