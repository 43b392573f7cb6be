"""Frame search in the library with an image-text model: a tiny SigLIP (and a tiny SigLIP 2
NaFlex, which sees each frame at the video's aspect ratio) taught to match
solid red / blue / green frames with "a red frame", ... (tests/tiny_siglip.py), exported
to ONNX and run as users run it. The clip is analysed by the fake engines (fake_engines.py),
whose builtin-style captions never name the colours, so only the frames can find the blue shot."""

from __future__ import annotations

import os
import shutil

import pytest

import tiny_siglip
from fake_engines import ENGINES
from tiny_vlm import colour_clip
from videoreview.engines.embeddings.image_text import ImageTextEncoder
from videoreview.library.catalog import Catalog
from videoreview.library.frames import FrameEmbedder
from videoreview.library.search import Searcher
from videoreview.pipeline import StageCache, analyze

BLUE = (2.0, 4.0)  # colour_clip(seconds=2): red 0-2 s, blue 2-4 s, green 4-6 s


@pytest.fixture(scope="module", params=["siglip", "siglip2"])
def model(tmp_path_factory, request):
    build = tiny_siglip.build_naflex if request.param == "siglip2" else tiny_siglip.build
    return tiny_siglip.teach(build(tmp_path_factory.mktemp(request.param) / "taught"))


@pytest.fixture()
def clip_analysis(tmp_path, home):
    clip = colour_clip(tmp_path / "colours.mp4", seconds=2)
    return analyze(clip, ENGINES, cache=StageCache(tmp_path / "cache"))


class Counting(FrameEmbedder):
    def __init__(self, encoder) -> None:
        super().__init__(encoder)
        self.decoded: list[float] = []

    def embed_frames(self, analysis, times):
        self.decoded += times
        return super().embed_frames(analysis, times)


def test_a_query_finds_the_frames_that_show_it(model, clip_analysis, tmp_path, capsys):
    assert not any("blue" in c.text.lower() for c in clip_analysis.captions)
    frames = Counting(ImageTextEncoder(model))
    with Catalog(tmp_path / "library.sqlite3") as catalog:
        video_id, _ = catalog.add_video(clip_analysis.video.path, clip_analysis.content_hash)
        catalog.index_analysis(video_id, clip_analysis, frames=frames)
        captions = [c.time for c in clip_analysis.captions]
        assert frames.decoded == pytest.approx(captions)
        moments = Searcher(catalog, frames=frames).search("a blue frame", top=3)
        assert moments and all(BLUE[0] <= m.start < BLUE[1] and m.kind == "caption" for m in moments[:2])
        assert Searcher(catalog).search("a blue frame") == []  # the words alone find nothing
        # Filters apply to the frame ranking too: the green shot in this video only.
        green = Searcher(catalog, frames=frames).search("a green frame", top=1, video_id=video_id)
        assert green[0].start >= 4.0

        # Indexed again (an edit saved, say): the frames already embedded are kept, not decoded again.
        frames.decoded.clear()
        catalog.index_analysis(video_id, clip_analysis, frames=frames)
        assert frames.decoded == []
        assert len(catalog.frame_embeddings(frames.model)[0]) == len(captions)

        # A file that has gone: the text is indexed, the frames are said to be left out.
        gone = tmp_path / "gone.mp4"
        shutil.copy(clip_analysis.video.path, gone)
        moved = clip_analysis.__class__.from_dict({**clip_analysis.to_dict(),
                                                   "video": {**clip_analysis.video.to_dict(), "path": str(gone)}})
        other_id, _ = catalog.add_video(gone)
        os.remove(gone)
        assert catalog.index_analysis(other_id, moved, frames=frames) > 0
        assert f"{gone}: not indexed" in capsys.readouterr().err
        assert len(catalog.frame_embeddings(frames.model)[0]) == len(captions)


@pytest.mark.parametrize("model", ["siglip"], indirect=True)  # about choosing, not the family
def test_the_chosen_model_is_what_the_library_process_loads(model, home, tmp_path, monkeypatch):
    from huggingface_hub import constants

    from videoreview.library.service import LibraryService

    revision = "cd" * 20
    snapshot = tmp_path / "hub" / "models--example--tiny-siglip" / "snapshots" / revision
    shutil.copytree(model, snapshot)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    (home / "models").mkdir(exist_ok=True)
    (home / "models" / "tiny-siglip.toml").write_text(
        f'name = "tiny-siglip"\nfamily = "siglip"\ntasks = ["image-text"]\nrepo = "example/tiny-siglip"\n'
        f'revision = "{revision}"\nlicense = "apache-2.0"\n')
    service = LibraryService(embedder=object())
    assert service.frames is None  # frame search is off until chosen
    (home / "engines.json").write_text('{"image-text": "tiny-siglip"}')  # chosen while it runs
    frames = service.frames
    assert frames is not None and frames.encoder.path == snapshot
    assert service.frames is frames  # loaded once
    (home / "engines.json").write_text('{"image-text": "none"}')
    assert service.frames is None
