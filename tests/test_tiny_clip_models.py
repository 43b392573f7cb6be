"""A short clip loads only the models its analysis runs: every ONNX Runtime session that the
default pipeline opens on a 10-frame clip is run, and TransNetV2 (whose cascade asks for no
window on a clip without a cut) is never opened."""

from __future__ import annotations

import onnxruntime
import pytest

from videoreview.pipeline import StageCache, analyze
from videos import make_long_video

pytestmark = pytest.mark.models


def test_a_ten_frame_clip_loads_no_model_it_does_not_run(tmp_path, monkeypatch):
    opened, ran = [], set()

    class Watched(onnxruntime.InferenceSession):  # the real session, its path noted
        def __init__(self, path, *args, **kwargs):
            super().__init__(path, *args, **kwargs)
            self.watched = str(path)
            opened.append(self.watched)

        def run(self, *args, **kwargs):
            ran.add(self.watched)
            return super().run(*args, **kwargs)

    monkeypatch.setattr(onnxruntime, "InferenceSession", Watched)
    clip = tmp_path / "ten.mp4"
    make_long_video(clip, 10 / 25)
    analysis = analyze(str(clip), None, cache=StageCache(tmp_path / "cache"), use_cache=False)
    assert analysis.video.frame_count == 10
    assert opened, "no model was opened at all"
    assert [p for p in opened if p not in ran] == []
    assert not any("transnet" in p for p in opened)
