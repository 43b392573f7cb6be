"""The frames a coarse first look sees (media/keyframes.py), on generated files whose keyframes
are known: forced at chosen times, one keyframe only, every frame one (MJPEG), and a
variable frame rate. Frames carry their own index (videos.py), so each check reads back
which frame the decoder really gave for each look."""

from __future__ import annotations

import numpy as np
import pytest

from videoreview.media import open_video
from videoreview.media.keyframes import GAP, SPARSE, LookSource, keyframe_indices, look_gap, look_indices
from videos import ffmpeg, make_index_video, make_vfr_video, read_index

FPS = 25


def codes(view, indices, size=(160, 90)) -> list[int]:
    """The index each frame of ``indices`` carries, as decoded through ``view``."""
    got = []
    for _, batch in view.batches_for([(np.asarray(indices), size, 8)]):
        got += [read_index(frame) for frame in batch.frames]
    return got


def nonkey_decoded(path, source) -> list[int]:
    """The frames FFmpeg decodes when told to skip all but keyframes, as the source's indices:
    an independent list of the file's keyframes."""
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        stream.codec_context.skip_frame = "NONKEY"
        pts = [frame.pts for frame in container.decode(stream)]
    return sorted(int(np.searchsorted(source._index.pts, p)) for p in pts)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("keyframes")


@pytest.fixture(scope="module")
def forced(folder):
    """8 s at 25 fps, keyframes forced at 0, 1.32, 4.0 and 4.6 s and nowhere else."""
    plain = make_index_video(folder, "plain.mp4", frames=8 * FPS, fps=FPS, gop=10_000)
    path = folder / "forced.mp4"
    ffmpeg("-i", plain.path, "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-g", "10000",
           "-sc_threshold", "0", "-force_key_frames", "0,1.32,4.0,4.6", path)
    return path


@pytest.fixture(scope="module")
def one_key(folder):
    """20 s at 25 fps with a keyframe at the start only."""
    plain = make_index_video(folder, "plain20.mp4", frames=20 * FPS, fps=FPS, gop=10_000)
    path = folder / "one key.mp4"
    ffmpeg("-i", plain.path, "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-g", "10000",
           "-sc_threshold", "0", path)
    return path


def test_the_keyframes_are_those_ffmpeg_decodes_when_skipping_the_rest(forced):
    with open_video(forced, backend="pyav") as source:
        keys = keyframe_indices(source)
        assert keys.tolist() == [0, 33, 100, 115]
        assert keys.tolist() == nonkey_decoded(forced, source)
        assert codes(LookSource(source, keys), keys) == keys.tolist()


def test_looks_take_keyframes_a_gap_apart_and_seek_where_they_are_sparse(forced):
    with open_video(forced, backend="pyav") as source:
        looks = look_indices(source, gap=1.0)
        # keyframes 0, 1.32 and 4.0 s (4.6 s is too near); 1.32 -> 4.0 s is more than SPARSE
        # gaps: two looks by seeking between; 4.0 s -> the end (8 s): three
        wanted = [0, 33, *source.index_at([1.32 + 2.68 / 3, 1.32 + 2 * 2.68 / 3]), 100,
                  *source.index_at([5.0, 6.0, 7.0])]
        assert looks.tolist() == sorted(int(i) for i in wanted)
        assert codes(LookSource(source, looks), looks) == looks.tolist()


def test_a_file_with_one_keyframe_is_looked_at_by_seeking_evenly(one_key):
    with open_video(one_key, backend="pyav") as source:
        assert keyframe_indices(source).tolist() == [0] == nonkey_decoded(one_key, source)
        looks = look_indices(source)
        times = source.timestamps[looks]
        assert len(looks) == round(20 / GAP)  # frame 0, then evenly to the end
        assert np.allclose(np.diff(times), 20 / len(looks), atol=1 / FPS)
        assert codes(LookSource(source, looks), looks) == looks.tolist()
        assert len(look_indices(source, gap=1.0, most=5)) == 5  # a long video: MOST looks, further apart


def test_an_mjpeg_file_is_all_keyframes_and_only_thinned(folder):
    video = make_index_video(folder, "all keys.avi", frames=10 * FPS, fps=FPS, codec="mjpeg", pix_fmt="yuvj420p",
                             options={})
    with open_video(video.path, backend="pyav") as source:
        assert len(keyframe_indices(source)) == video.frame_count
        looks = look_indices(source, gap=1.5)
        gaps = np.diff(source.timestamps[looks])
        assert looks[0] == 0 and np.all(gaps >= 1.5 - 1e-6) and np.all(gaps <= 1.5 + 1 / FPS)
        assert codes(LookSource(source, looks), looks) == looks.tolist()


def test_looks_at_a_variable_frame_rate_are_the_sources_frames_and_times(folder):
    video = make_vfr_video(folder, "vfr.mkv")  # 1/30 s apart, then 1/10 s, then 1/30 s: keyframes every 25 frames
    with open_video(video.path, backend="pyav") as source:
        keys = keyframe_indices(source)
        assert keys.tolist() == nonkey_decoded(video.path, source) == list(range(0, video.frame_count, 25))
        looks = look_indices(source, gap=0.6)
        assert set(keys[np.diff(source.timestamps[keys], prepend=-1) >= 0.6]) <= set(looks.tolist())
        assert np.allclose(source.timestamps[looks], video.times[looks], atol=1e-3)
        view = LookSource(source, looks)
        assert codes(view, looks) == looks.tolist()
        # a look by seeking shows the frame on screen at its time: none of the looks lies
        # more than SPARSE gaps from the next (or from the end)
        edges = np.append(source.timestamps[looks], video.duration)
        assert np.all(np.diff(edges) <= SPARSE * 0.6 + 0.1)


def test_a_reader_made_with_a_look_source_reads_the_looks_and_what_it_asks_beside(forced):
    with open_video(forced, backend="pyav") as source:
        view = LookSource(source, [0, 33, 100, 150])
        assert view.sample_indices(5.0).tolist() == view.sample_indices(0.5).tolist() == [0, 33, 100, 150]
        assert view.mean_rate == pytest.approx(4 / 8.0)
        after = view.looks + 1  # as the captions reader wants, for motion
        got: dict[int, list[int]] = {0: [], 1: []}
        for number, batch in view.batches_for([(view.looks, (160, 90), 3), (after, (96, 54), 8)]):
            assert batch.frames.shape[1:3] == ((90, 160) if number == 0 else (54, 96))
            assert np.allclose(batch.times, source.timestamps[batch.indices])
            got[number] += [read_index(f) for f in batch.frames]
        assert got == {0: [0, 33, 100, 150], 1: [1, 34, 101, 151]}


def test_the_gap_grows_for_long_videos_only():
    assert look_gap(180.0) == GAP and 180.0 / look_gap(180.0) == 40
    assert look_gap(3600.0) == pytest.approx(30.0)
