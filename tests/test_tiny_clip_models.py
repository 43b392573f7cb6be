"""A short clip loads only the models its analysis runs: every ONNX Runtime session that the
default pipeline opens on a 10-frame clip is run, and TransNetV2 (whose cascade asks for no
window on a clip without a cut) is never opened. In a fresh process: this one's engines may
hold models other tests loaded."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from videos import make_long_video

pytestmark = pytest.mark.models

WATCH = """
import json, sys
import onnxruntime
from videoreview.pipeline import StageCache, analyze

opened, ran = [], set()

class Watched(onnxruntime.InferenceSession):  # the real session, its path noted
    def __init__(self, path, *args, **kwargs):
        super().__init__(path, *args, **kwargs)
        self.watched = str(path)
        opened.append(self.watched)

    def run(self, *args, **kwargs):
        ran.add(self.watched)
        return super().run(*args, **kwargs)

onnxruntime.InferenceSession = Watched
analysis = analyze(sys.argv[1], None, cache=StageCache(sys.argv[2]), use_cache=False)
print(json.dumps({"frames": analysis.video.frame_count, "opened": opened, "ran": sorted(ran)}))
"""


def test_a_ten_frame_clip_loads_no_model_it_does_not_run(tmp_path):
    clip = tmp_path / "ten.mp4"
    make_long_video(clip, 10 / 25)
    out = subprocess.run([sys.executable, "-c", WATCH, str(clip), str(tmp_path / "cache")],
                         check=True, capture_output=True, text=True)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["frames"] == 10
    assert seen["opened"], "no model was opened at all"
    assert [p for p in seen["opened"] if p not in seen["ran"]] == []
    assert not any("transnet" in p for p in seen["opened"])
