"""The VLM summary writer (ViSIL's prompt F.4) on a tiny Qwen2-VL with random weights and
a real generated clip: the model is shown the video's sampled frames, then the summary's
keyframes, in order, with the prompt for that number of keyframes; its reply becomes the
summary's text under the model's name. Bad model folders get one clear error."""

from __future__ import annotations

import pytest

from videoreview.engines.captions.vlm import Request, VisionLanguageModel
from videoreview.engines.scoring.protocol import summary_prompt
from videoreview.engines.scoring.vlm import SUMMARY_TOKENS
from videoreview.errors import ModelError
from videoreview.records import Analysis, Keyframe, VideoInfo
from videoreview.summary import builder
from videoreview.summary.compare import VIDEO_FRAMES, frame_reader, video_frame_indices
from videoreview.summary.writer import load_writer
from videos import make_cuts_video


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    return make_cuts_video(tmp_path_factory.mktemp("writer"))


@pytest.fixture(scope="module")
def analysis(clip):
    """The clip with a keyframe in each of its four shots (and no other analysis: the
    writer needs none)."""
    video = VideoInfo(str(clip.path), duration=clip.frame_count / clip.fps, fps=clip.fps,
                      frame_count=clip.frame_count, width=clip.size[0], height=clip.size[1])
    return Analysis(video, keyframes=tuple(Keyframe(f / clip.fps, f) for f in (10, 60, 120, 200)))


def test_the_model_sees_the_video_then_the_keyframes_with_prompt_f4(untrained, clip, analysis):
    writer, release = load_writer(str(untrained), str(clip.path))
    try:
        summary = builder.build(analysis, "keyframes+text", 2, writer)
        keyframes = builder.choose_keyframes(analysis, 2)
        read = frame_reader(str(clip.path))
        video = video_frame_indices(analysis)
        assert len(video) == VIDEO_FRAMES
        model = VisionLanguageModel(untrained, device="cpu")
        request = Request(read(video) + read([k.frame for k in keyframes]), summary_prompt(VIDEO_FRAMES, 2),
                          SUMMARY_TOKENS)
        reply = model.generate([request])[0].strip()
        assert reply  # a random model still says something: the test would not tell otherwise
        assert summary.engine == writer.name == f"qwen2_vl:{untrained.name}"
        assert summary.text == builder.with_placeholders(reply, 2)
        assert summary.keyframe_frames == tuple(k.frame for k in keyframes)
        assert "[KEYFRAME1]" in summary.text and "[KEYFRAME2]" in summary.text
        text_only = builder.build(analysis, "text", writer=writer)
        no_keyframes = model.generate([Request(read(video), summary_prompt(VIDEO_FRAMES, 0), SUMMARY_TOKENS)])[0]
        assert text_only.text == builder.with_placeholders(no_keyframes.strip(), 0)
    finally:
        release()
    assert writer.model is None  # released: the model can be freed


def test_builtin_needs_no_model(clip):
    writer, release = load_writer("builtin", str(clip.path))
    assert writer is None
    release()


@pytest.mark.parametrize("make", ["empty folder", "missing", "pickle only"])
def test_a_folder_without_a_usable_model_is_refused_by_name(tmp_path, clip, make):
    folder = tmp_path / "model"
    if make != "missing":
        folder.mkdir()
    if make == "pickle only":
        (folder / "config.json").write_text('{"model_type": "qwen2_vl"}')
        (folder / "pytorch_model.bin").write_bytes(b"not loaded")
    with pytest.raises(ModelError) as caught:
        load_writer(str(folder), str(clip.path))
    assert str(folder) in str(caught.value)
