"""Frames decoded on NVDEC are converted and scaled by torch on the GPU (media/gpu_frames.py).
This machine has no GPU: the conversion runs here on the CPU, on the planes NVDEC would
give (taken from software decoding), against what PyAV's swscale makes of the same
frames; the whole-file pass's grouping runs on the real decoder with the conversion on the
CPU; and a pass asked to decode on CUDA falls back to software decoding, saying why."""

from __future__ import annotations

import subprocess

import av
import numpy as np
import pytest

from videoreview.media import gpu_frames, open_video
from videoreview.media._pyav import PyAVReader
from videoreview.media._pyav import to_rgb as swscale_rgb


def clip(folder, name: str, *args: str):
    path = folder / name
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25", "-t", "0.4",
                    *args, str(path)], check=True)
    return path


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    folder = tmp_path_factory.mktemp("colour")
    return {
        "BT.601, limited": clip(folder, "plain.mp4", "-pix_fmt", "yuv420p", "-c:v", "libx264"),
        "BT.709, limited": clip(folder, "bt709.mp4", "-pix_fmt", "yuv420p", "-colorspace", "bt709",
                                "-color_primaries", "bt709", "-color_trc", "bt709", "-c:v", "libx264"),
        "JPEG range (MJPEG)": clip(folder, "full.avi", "-pix_fmt", "yuvj420p", "-c:v", "mjpeg"),
        "full range (H.264)": clip(folder, "fullx.mp4", "-pix_fmt", "yuv420p", "-color_range", "pc", "-c:v", "libx264"),
    }


@pytest.mark.parametrize("kind", ["BT.601, limited", "BT.709, limited", "JPEG range (MJPEG)", "full range (H.264)"])
@pytest.mark.parametrize("size", [(640, 360), (160, 90), (48, 27)])
def test_the_gpu_conversion_gives_what_swscale_gives(clips, kind, size):
    with av.open(str(clips[kind])) as container:
        frames = [f for _, f in zip(range(4), container.decode(video=0))]
    luma, chroma = gpu_frames.stacked_planes(frames, "cpu")
    full_range, bt709 = gpu_frames.colour(frames[0])
    ours = gpu_frames.to_rgb(luma, chroma, 640, 360, [size], full_range, bt709)[size].astype(np.int16)
    theirs = np.stack([swscale_rgb(f, size, 0) for f in frames]).astype(np.int16)
    assert ours.shape == theirs.shape == (4, size[1], size[0], 3)
    difference = np.abs(ours - theirs)
    if size == (640, 360):  # the conversion alone: the colours as swscale makes them
        assert difference.mean() < 1.0 and np.percentile(difference, 99) <= 3, (kind, difference.mean())
    else:  # and the scaling: other filters, which differ at the test picture's sharp edges
        assert difference.mean() < 6.0 and np.median(difference) <= 3, (kind, size, difference.mean())


def test_large_frames_are_converted_a_few_at_a_time_with_the_same_result(clips, monkeypatch):
    with av.open(str(clips["BT.601, limited"])) as container:
        frames = [f for _, f in zip(range(5), container.decode(video=0))]
    luma, chroma = gpu_frames.stacked_planes(frames, "cpu")
    whole = gpu_frames.to_rgb(luma, chroma, 640, 360, [(160, 90), (48, 27)], False, False)
    monkeypatch.setattr(gpu_frames, "PIXELS", 2 * 640 * 360)  # two frames at a time
    parts = gpu_frames.to_rgb(luma, chroma, 640, 360, [(160, 90), (48, 27)], False, False)
    assert all(np.array_equal(whole[size], parts[size]) and len(parts[size]) == 5 for size in whole)


@pytest.fixture
def as_if_nvdec(monkeypatch):
    """A reader asked for CUDA keeps asking (``hardware`` stays "cuda") while its frames
    come from software decoding: the GPU path's grouping and conversion, on the CPU."""
    monkeypatch.setattr(PyAVReader, "_open_on_device", lambda self: None)


def on_gpu(source) -> None:
    source._pass = PyAVReader(source._index, "cuda")
    source._gpu = "cpu"


@pytest.mark.parametrize("name", ["cuts_video", "rotated_video"])
def test_a_pass_grouped_for_the_gpu_gives_the_frames_and_batches_a_pass_gives(name, request, as_if_nvdec):
    video = request.getfixturevalue(name)
    with open_video(video.path) as plain:
        count = plain.info.frame_count
        wants = [(np.arange(0, count, 2), (48, 27), 60), (np.arange(0, count, 5), (160, 90), 16)]
        expected = list(plain.batches_for(wants))
    with open_video(video.path) as source:
        on_gpu(source)
        got = list(source.batches_for(wants))
        assert source.decoded_on == "cuda"
    assert [(n, b.indices.tolist()) for n, b in got] == [(n, b.indices.tolist()) for n, b in expected]
    for (_, ours), (_, theirs) in zip(got, expected):
        assert ours.frames.shape == theirs.frames.shape
        assert np.abs(ours.frames.astype(np.int16) - theirs.frames).mean() < 6.0


def test_a_pass_asked_to_decode_on_cuda_without_a_gpu_decodes_in_software_and_says_why(cuts_video):
    wants = [(np.arange(0, 100, 3), (160, 90), 16)]
    with open_video(cuts_video.path) as plain:
        expected = list(plain.batches_for(wants))
    with open_video(cuts_video.path, hardware="cuda") as source:
        got = list(source.batches_for(wants))
        assert source.decoded_on == "cpu" and source.hardware_note.startswith("cuda decoding would not start (")
    assert len(got) == len(expected)
    assert all(np.array_equal(a.frames, b.frames) for (_, a), (_, b) in zip(got, expected))


def test_decoding_on_the_gpu_is_turned_off_where_its_first_frame_comes_out_wrong(cuts_video, monkeypatch,
                                                                                 as_if_nvdec):
    with open_video(cuts_video.path) as source:
        on_gpu(source)
        source._check_gpu_frames()
        assert source._pass.hardware == "cuda" and source.hardware_note is None  # right: kept
        real = gpu_frames.to_rgb
        monkeypatch.setattr(gpu_frames, "to_rgb", lambda *args: {k: v // 4 for k, v in real(*args).items()})
        source._check_gpu_frames()
        assert source._pass.hardware is None and source.decoded_on == "cpu"
        assert "decoding on the GPU failed its check (its first frame differs from software decoding by" in \
            source.hardware_note
