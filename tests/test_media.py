"""videoreview.media on real files with real decoders (no mocks).

Ground truth comes from the generators (tests/videos.py), from frames that carry their
own index (videos.read_index), and from the ffmpeg/ffprobe command-line tools as an
independent FFmpeg build.
"""

from __future__ import annotations

import os

import cv2
import numpy as np
import pytest

import videos as V
from videoreview.errors import MediaError
from videoreview.media import VIDEO_EXTENSIONS, FrameBatch, open_video, probe, save_thumbnail, thumbnail

BACKENDS = ("decord", "pyav")


ffprobe_decoded_frames = V.ffprobe_decoded_frames  # the ffprobe CLI's count: independent of our code


def unrotate(frame: np.ndarray, rotation: int) -> np.ndarray:
    """Undo a clockwise display rotation (np.rot90 turns counter-clockwise)."""
    return np.rot90(frame, k=rotation // 90)


def indices_of(batch: FrameBatch, rotation: int = 0) -> list[int]:
    return [V.read_index(unrotate(f, rotation)) for f in batch.frames]


def all_batches(src, **kw) -> FrameBatch:
    parts = list(src.iter_batches(**kw))
    return FrameBatch(np.concatenate([b.indices for b in parts]), np.concatenate([b.times for b in parts]),
                      np.concatenate([b.frames for b in parts]))


# ----------------------------------------------------------------------------- probe


def test_video_extensions():
    for ext in (".mp4", ".mkv", ".avi", ".mov", ".webm", ".m4v", ".mpg", ".mpeg", ".wmv", ".flv", ".ts", ".3gp",
                ".ogv"):
        assert ext in VIDEO_EXTENSIONS
    assert all(e.startswith(".") and e == e.lower() for e in VIDEO_EXTENSIONS)


@pytest.mark.parametrize("name", ["index_video", "index_mkv", "index_ts", "avi_bframes", "cuts_video",
                                  "crossfade_video", "event_video"])
def test_probe_constant_rate(name, request):
    v = request.getfixturevalue(name)
    info = probe(v.path)
    assert info.frame_count == v.frame_count == ffprobe_decoded_frames(v.path)
    assert info.fps == pytest.approx(v.fps, rel=1e-6)
    assert info.duration == pytest.approx(v.duration, abs=1e-3)
    assert (info.width, info.height) == v.size
    assert info.rotation == 0 and not info.variable_frame_rate and not info.has_audio
    assert info.codec == v.codec
    assert info.size_bytes == v.path.stat().st_size
    assert info.path == os.fspath(v.path)


def test_probe_container_and_header(index_video, index_mkv, index_ts):
    a, b, c = probe(index_video.path), probe(index_mkv.path), probe(index_ts.path)
    assert (a.container, b.container, c.container) == ("mp4", "matroska", "mpegts")
    assert a.header_frame_count == 100  # mp4 knows its sample count; mkv and ts do not
    assert b.header_frame_count is None and c.header_frame_count is None


def test_probe_audio(audio_video):
    info = probe(audio_video)
    assert info.has_audio and info.frame_count == 100


@pytest.mark.parametrize("name", ["vfr_video", "vfr_mp4"])
def test_probe_vfr(name, request):
    v = request.getfixturevalue(name)
    info = probe(v.path)
    assert info.variable_frame_rate
    assert info.frame_count == len(v.times) == ffprobe_decoded_frames(v.path)
    assert info.fps == pytest.approx((len(v.times) - 1) / v.times[-1], rel=1e-3)
    assert info.duration == pytest.approx(v.duration, abs=2e-3)
    with open_video(v.path) as src:
        assert len(src.timestamps) == info.frame_count
        assert np.abs(src.timestamps - v.times).max() < 1e-3


def test_probe_rotation(rotated_video, rotated_270):
    for v in (rotated_video, rotated_270):
        info = probe(v.path)
        assert info.rotation == v.rotation
        assert (info.width, info.height) == (180, 320) == v.size


def test_probe_lying_avi_counts_what_decodes(lying_avi):
    info = probe(lying_avi.path)
    assert info.header_frame_count == 444  # what the patched headers claim
    assert info.frame_count == lying_avi.frame_count == 60 == ffprobe_decoded_frames(lying_avi.path)
    assert info.variable_frame_rate  # dropped frames leave gaps
    assert info.duration == pytest.approx(lying_avi.duration, abs=1e-3)
    assert info.container == "avi" and info.codec == "cinepak"
    with open_video(lying_avi.path) as src:
        assert np.abs(src.timestamps - lying_avi.times).max() < 1e-3


def test_probe_is_fast_on_long_file(tmp_path):
    """Probing must not decode the file: a 2-minute 720p file probes in well under a second."""
    import time

    v = V.make_long_video(tmp_path / "long.mp4", 120, size=(640, 360), cut_every=20, repeat_after=20)
    t = time.perf_counter()
    info = probe(v.path)
    elapsed = time.perf_counter() - t
    assert info.frame_count == 3000
    assert elapsed < 2.0, f"probe took {elapsed:.2f}s"


# ------------------------------------------------------------------- frames: content


@pytest.mark.parametrize("backend", BACKENDS)
def test_sequential_frames_are_the_right_ones(index_video, backend):
    with open_video(index_video.path, backend) as src:
        assert src.backend == backend
        got = all_batches(src, batch=16)
    assert got.frames.shape == (100, 180, 320, 3) and got.frames.dtype == np.uint8
    assert got.indices.tolist() == list(range(100))
    assert indices_of(got) == list(range(100))
    assert np.allclose(got.times, index_video.times)


@pytest.mark.parametrize("backend", BACKENDS)
def test_random_access_backwards_and_forwards(index_video, backend):
    with open_video(index_video.path, backend) as src:
        for request in ([80], [10], [99], [0], [50, 49, 51], [26, 24, 25], [99, 0, 99], [3, 97, 3, 60]):
            batch = src.frames_at_indices(request)
            assert batch.indices.tolist() == request
            assert indices_of(batch) == request, f"asked for {request}"
        assert src.backend == backend  # decord never had to give up


@pytest.mark.parametrize("name", ["index_mkv", "index_ts", "avi_bframes", "vfr_video", "vfr_mp4", "lying_avi",
                                  "unindexed_avi", "unicode_video"])
def test_every_fixture_decodes_right_frames(name, request):
    v = request.getfixturevalue(name)
    path = v if isinstance(v, os.PathLike) else v.path
    with open_video(path) as src:
        n = src.info.frame_count
        assert indices_of(all_batches(src, batch=32)) == list(range(n))
        req = [n - 1, 3, n // 2, 0, n - 2, 7]
        assert indices_of(src.frames_at_indices(req)) == req


def test_backend_choice(index_video, index_mkv, index_ts, avi_bframes, lying_avi, unindexed_avi, truncated_videos):
    """decord where it agrees with the demuxed index, PyAV where it is known to be wrong."""
    for v in (index_video, index_mkv, lying_avi):
        with open_video(v.path) as src:
            assert src.backend == "decord", src.fallback_reason
    expect = {
        index_ts.path: "seeks unreliably",  # decord starts 25 frames in on this file
        avi_bframes.path: "timestamps disagree",
        unindexed_avi.path: "keyframe flags",
        truncated_videos["truncated_faststart"].path: "decord counts 48 frames, 47 decode",
    }
    for path, why in expect.items():
        with open_video(path) as src:
            assert src.backend == "pyav"
            assert why in src.fallback_reason
        with pytest.raises(MediaError, match="decord cannot decode this file correctly"):
            open_video(path, backend="decord")
    with pytest.raises(ValueError):
        open_video(index_video.path, backend="opencv")


@pytest.mark.parametrize("size", [(224, 126), (48, 27), (33, 17)])
def test_sizes_honoured_and_backends_agree(index_video, size):
    out = {}
    for backend in BACKENDS:
        with open_video(index_video.path, backend) as src:
            b = all_batches(src, size=size, batch=40)
            assert b.frames.shape == (100, size[1], size[0], 3)
            if size != (33, 17):  # too small for the code cells
                assert indices_of(b) == list(range(100))
            out[backend] = b.frames
    # Same scaler (bicubic) in both: the same pixels within rounding.
    assert np.abs(out["decord"].astype(int) - out["pyav"]).mean() < 2.0


def test_rgb_channel_order(index_video):
    with open_video(index_video.path) as src:
        f = src.frames_at_indices([0]).frames[0]
    red, blue = f[-10:-2, 4:20].mean(axis=(0, 1)), f[-10:-2, -20:-4].mean(axis=(0, 1))
    assert red[0] > 200 and red[2] < 60  # bottom-left patch is red
    assert blue[2] > 200 and blue[0] < 60  # bottom-right patch is blue


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["rotated_video", "rotated_270"])
def test_rotation_applied_to_pixels(name, backend, request):
    v = request.getfixturevalue(name)
    with open_video(v.path, backend) as src:
        assert src.backend == backend
        full = src.frames_at_indices([0, 30, 12]).frames
        assert full.shape == (3, 320, 180, 3)
        assert [V.read_index(unrotate(f, v.rotation)) for f in full] == [0, 30, 12]
        small = all_batches(src, size=(90, 160))
        assert small.frames.shape == (50, 160, 90, 3)
        assert indices_of(small, v.rotation) == list(range(50))


def test_rotation_matches_ffmpeg_cli(rotated_video, tmp_path):
    """The ffmpeg CLI autorotates by the display matrix: our frame 0 must look the same."""
    png = tmp_path / "cli.png"
    V.ffmpeg("-i", rotated_video.path, "-frames:v", "1", png)
    cli = cv2.cvtColor(cv2.imread(os.fspath(png)), cv2.COLOR_BGR2RGB)
    for backend in BACKENDS:
        with open_video(rotated_video.path, backend) as src:
            ours = src.frames_at_indices([0]).frames[0]
        assert ours.shape == cli.shape
        assert np.abs(ours.astype(int) - cli).mean() < 3.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_frames_at_times_vfr(vfr_video, backend):
    t = vfr_video.times
    with open_video(vfr_video.path, backend) as src:
        exact = src.frames_at_times(t[::7])
        assert indices_of(exact) == list(range(0, len(t), 7))
        assert np.abs(exact.times - t[::7]).max() < 1e-3
        # Between two frames the earlier one is on screen; in the slow part that is 0.1 s.
        mid = (t[:-1] + t[1:]) / 2
        picks = np.arange(40, 80, 3)
        assert indices_of(src.frames_at_times(mid[picks])) == picks.tolist()
        edges = src.frames_at_times([-1.0, 0.0, t[-1] + 5])
        assert edges.indices.tolist() == [0, 0, len(t) - 1]


def test_frames_at_indices_errors_and_empty(index_video):
    with open_video(index_video.path) as src:
        with pytest.raises(IndexError):
            src.frames_at_indices([100])
        with pytest.raises(IndexError):
            src.frames_at_indices([-1])
        empty = src.frames_at_indices([], size=(64, 36))
        assert empty.frames.shape == (0, 36, 64, 3) and len(empty) == 0
        with pytest.raises(ValueError):
            src.frames_at_times([float("nan")])
        with pytest.raises(ValueError):
            src.frames_at_indices([0], size=(0, 10))


@pytest.mark.parametrize("backend", BACKENDS)
def test_sample_rates(index_video, vfr_video, backend):
    with open_video(index_video.path, backend) as src:
        batches = list(src.sample(2.0, size=(64, 36), batch=3))
        assert all(len(b) <= 3 for b in batches)
        idx = np.concatenate([b.indices for b in batches])
        # 4 s at 2/s: t = 0, 0.5, ... 3.5 -> frames 0, 12.5 -> 12, 25, ...
        assert idx.tolist() == [0, 12, 25, 37, 50, 62, 75, 87]
        assert [V.read_index(f) for b in batches for f in b.frames] == idx.tolist()
        # Faster than the frame rate: every frame once, none repeated.
        assert np.concatenate([b.indices for b in src.sample(100.0, size=(32, 18))]).tolist() == list(range(100))
        with pytest.raises(ValueError):
            next(src.sample(0))
    with open_video(vfr_video.path, backend) as src:
        idx = np.concatenate([b.indices for b in src.sample(5.0, size=(64, 36))])
        want = np.searchsorted(vfr_video.times, np.arange(30) / 5.0 + 1e-6, side="right") - 1
        assert idx.tolist() == sorted(set(want.tolist()))
        assert indices_of(src.frames_at_indices(idx)) == idx.tolist()


def test_iter_batches_streams(index_video):
    with open_video(index_video.path) as src:
        sizes = [len(b) for b in src.iter_batches(size=(32, 18), batch=30)]
    assert sizes == [30, 30, 30, 10]


@pytest.mark.parametrize("name", ["index_video", "rotated_video", "vfr_video", "avi_bframes"])
def test_one_pass_gives_each_reader_the_frames_and_size_it_asked_for(name, request):
    """batches_for serves overlapping wants at different sizes from one decode: each
    want gets its own frames, in order, in its batch size, the same pixels a read of its
    own gives."""
    v = request.getfixturevalue(name)
    path = v if isinstance(v, os.PathLike) else v.path
    with open_video(path, "pyav") as src:
        n = src.info.frame_count
        wants = [(np.arange(n), (64, 36), 16), (src.sample_indices(2.0), (160, 90), 3),
                 (np.array([0, 1, n // 2, n // 2 + 1, n - 1]), None, 2), (np.array([], np.int64), (32, 18), 4)]
        got = {k: [] for k in range(len(wants))}
        for number, batch in src.batches_for(wants):
            got[number].append(batch)
        for number, (idx, size, batch) in enumerate(wants):
            assert all(len(b) == batch for b in got[number][:-1]), number
            frames = np.concatenate([b.frames for b in got[number]]) if got[number] else None
            assert [i for b in got[number] for i in b.indices.tolist()] == idx.tolist()
            if len(idx):
                alone = src.frames_at_indices(idx, size)
                assert np.array_equal(frames, alone.frames), number
                assert np.array_equal(np.concatenate([b.times for b in got[number]]), alone.times)


def test_unicode_path_works(unicode_video):
    info = probe(unicode_video)
    assert info.frame_count == 100 and info.path == os.fspath(unicode_video)
    with open_video(unicode_video) as src:
        assert src.backend == "decord"
        assert indices_of(src.frames_at_indices([42])) == [42]
    assert V.read_index(thumbnail(unicode_video, 1.0, width=160)) == 25


@pytest.mark.parametrize("name", ["truncated_mkv", "truncated_faststart"])
def test_truncated_files_with_frames_open(truncated_videos, name):
    """Decision: a cut-off file that still has decodable frames opens; frame_count is
    what decodes, header_frame_count what the container claims."""
    v = truncated_videos[name]
    info = probe(v.path)
    assert 0 < info.frame_count == v.frame_count < 100  # v.frame_count: ffprobe's count
    assert info.header_frame_count == v.header_frame_count
    with open_video(v.path) as src:
        assert indices_of(all_batches(src, size=(64, 36))) == list(range(info.frame_count))
        last = info.frame_count - 1
        assert indices_of(src.frames_at_indices([last, 0])) == [last, 0]


# ------------------------------------------------------------------------- bad input

BAD = {
    "text": "not a video file (could not be read as a media container)",
    "text_as_mp4": "not a video file (could not be read as a media container)",
    "random": "not a video file (could not be read as a media container)",
    "empty": "empty file",
    "truncated_mp4": "truncated: ",
    "directory": "is a directory",
    "missing": "file not found",
    "audio_only": "no video stream",
    "cover_art": "no video stream",
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_gives_one_plain_media_error(bad_inputs, name):
    assert set(bad_inputs) == set(BAD)
    path = bad_inputs[name]
    for call in (probe, open_video, lambda p: thumbnail(p, 0.0)):
        with pytest.raises(MediaError) as err:
            call(path)
        e = err.value
        assert e.path == os.fspath(path)
        assert BAD[name] in e.reason
        assert str(e).startswith(os.fspath(path) + ": ")
        assert "\n" not in str(e) and "Traceback" not in str(e)
        assert e.__cause__ is None and (e.__context__ is None or e.__suppress_context__)  # no native chain


def test_truncated_mp4_reason_is_plain(bad_inputs):
    with pytest.raises(MediaError) as err:
        probe(bad_inputs["truncated_mp4"])
    assert "moov" in err.value.reason and "interrupted" in err.value.reason


# ------------------------------------------------------------------------ thumbnails


def test_thumbnail(index_video, rotated_video):
    img = thumbnail(index_video.path, 2.0, width=160)
    assert img.shape == (90, 160, 3) and img.dtype == np.uint8
    assert V.read_index(img) == 50
    assert V.read_index(thumbnail(index_video.path, 2.039, width=160)) == 50  # still on screen
    rot = thumbnail(rotated_video.path, 1.0, width=90)
    assert rot.shape == (160, 90, 3)  # aspect of the displayed (portrait) frame
    assert V.read_index(unrotate(rot, 90)) == 25


@pytest.mark.parametrize("suffix", [".jpg", ".png", ".JPEG"])
def test_save_thumbnail(index_video, tmp_path, suffix):
    out = tmp_path / "sub" / f"thumb{suffix}"
    save_thumbnail(index_video.path, 1.0, out, width=200)
    img = cv2.imread(os.fspath(out))
    assert img is not None and img.shape == (112, 200, 3)
    assert V.read_index(img[..., ::-1]) == 25
    assert sorted(p.name for p in out.parent.iterdir()) == [out.name]  # no temp file left


def test_save_thumbnail_rejects_other_formats(index_video, tmp_path):
    with pytest.raises(ValueError):
        save_thumbnail(index_video.path, 0.0, tmp_path / "thumb.gif")


# -------------------------------------------------------- the generators' ground truth


def _diffs(frames: np.ndarray) -> np.ndarray:
    f = frames.astype(np.int16)
    return np.abs(f[1:] - f[:-1]).mean(axis=(1, 2, 3))


def test_cuts_video_truth(cuts_video):
    with open_video(cuts_video.path) as src:
        d = _diffs(all_batches(src, size=(80, 45)).frames)
    cuts = np.array(cuts_video.cut_frames)
    assert cuts_video.cut_times == pytest.approx((2.0, 4.4, 7.0))
    at_cut = d[cuts - 1]  # d[i] compares frame i and i + 1
    inside = np.delete(d, cuts - 1)
    assert at_cut.min() > 3 * np.percentile(inside, 95), "cuts must stand out from the motion"
    assert np.median(inside) > 0.2, "every shot should move"


def test_crossfade_video_truth(crossfade_video):
    (start, end), = crossfade_video.gradual
    with open_video(crossfade_video.path) as src:
        frames = all_batches(src, size=(80, 45)).frames.astype(np.float32)
    fps = 25
    a, b = frames[int(start * fps) - 1], frames[int(end * fps)]
    mid = frames[int((start + end) / 2 * fps)]
    # Halfway through the dissolve the frame is a mix of both shots, not either one.
    assert np.abs(mid - (a + b) / 2).mean() < 0.5 * np.abs(mid - a).mean()
    assert _diffs(frames.astype(np.uint8)).max() < 0.5 * np.abs(a - b).mean()  # no hard cut anywhere


def test_event_video_truth(event_video):
    ev = event_video.events
    assert ev["enter"] < ev["stop"] < ev["change"]
    with open_video(event_video.path) as src:
        frames = all_batches(src, size=(160, 90)).frames
    d = _diffs(frames)
    i_enter, i_stop, i_change = (int(round(ev[k] * 25)) for k in ("enter", "stop", "change"))
    assert d[: i_enter - 1].max() < 0.5  # static camera before anything happens
    assert d[i_enter - 1] > 0.5  # the square's first column appears
    resting = d[i_stop + 1: i_change - 1]
    assert np.percentile(resting, 90) < 0.05 and resting.max() < 1.0  # still (but for a keyframe's noise)
    assert d[i_change - 1] > 5  # colour change and motion start
    assert d.max() < 20  # never a cut


def test_make_long_video_truth(tmp_path):
    v = V.make_long_video(tmp_path / "long.mp4", 6, size=(320, 180), cut_every=2, repeat_after=4)
    assert v.frame_count == 150 and v.cut_frames == (50, 100)
    info = probe(v.path)
    assert info.frame_count == 150 and info.codec == "h264" and info.fps == 25
    with open_video(v.path) as src:
        d = _diffs(all_batches(src, size=(80, 45)).frames)
    inside = np.delete(d, [49, 99])
    assert min(d[49], d[99]) > 3 * np.percentile(inside, 95)


def test_read_index_roundtrip():
    for i in (0, 1, 77, 1000, V.INDEX_LIMIT - 1):
        f = V.index_frame(i, (320, 180))
        assert V.read_index(f) == i
        assert V.read_index(cv2.resize(f, (48, 27), interpolation=cv2.INTER_AREA)) == i


def test_an_analysis_scans_a_file_once_and_a_changed_file_again(index_video, tmp_path, monkeypatch):
    """The runner probes, then opens: the opens take the probe's scan (it decodes the file's
    last frames to count them) unless the file changed in between."""
    import importlib
    import os
    import shutil

    from videoreview.media import open_video, probe

    probe_module = importlib.import_module("videoreview.media.probe")

    scans = []
    real = probe_module.scan
    monkeypatch.setattr(probe_module, "scan", lambda path: scans.append(path) or real(path))
    copy = tmp_path / "copy.mp4"
    shutil.copy(index_video.path, copy)
    info = probe(copy)
    with open_video(copy) as source:
        assert source.info == info
    with open_video(copy) as source:  # the window's coarse look, then the pass
        assert source.info == info
    assert len(scans) == 1
    probe(copy)
    shutil.copy(index_video.path, copy)  # rewritten after the probe
    os.utime(copy, ns=(1, 1))
    with open_video(copy) as source:
        assert source.info.frame_count == index_video.frame_count
    assert len(scans) == 3
