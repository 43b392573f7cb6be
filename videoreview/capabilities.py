"""The capabilities, by key: the one list. engines/registry.py gives each its label,
engines and place in an analysis (and checks it has a row for each); the model catalog
accepts a model for these (a model's ``tasks``), and for the parts of a capability a
model can serve on its own."""

from __future__ import annotations

# In the order the user sees them (Settings, --version).
KEYS = ("captions", "summaries", "scoring", "image-text", "faces", "objects", "poses", "speech", "screen-text",
        "boundaries")
# A model that captions boundaries alone, one that embeds text (the scorer's MiniLM).
PARTS = ("boundary-captions", "text-embedding")
