"""Awkward real-world files (tests/corpus.py), each against what FFmpeg's own ffprobe
decodes from it: analysed by the real pipeline in a watched child process (no traceback,
no hang, no crash, bounded memory), frames that are the ones FFmpeg decodes, the command
line and `library add` over the same files. The corpus is analysed with the fake engines
(conftest's corpus_home), which read the frames and the sound through the same readers as
the real ones; a few of its files go through the builtin engines too (``models``), so
that a model that chokes on an odd frame is still caught."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import numpy as np
import pytest

import corpus as C
from helpers import content, run
from videoreview.media import VIDEO_EXTENSIONS, open_video
from videoreview.records import Analysis

TIMEOUT_S = 90  # per file: a small clip analyses in about 1 s once the models are loaded
HUGE_GROWTH_MB = 1024  # 4096x4096 frames are 48 MB each in RGB: 600 MB measured; a batch of 64 would be 3 GB


def test_the_corpus_files_are_what_they_say(corpus):
    import av

    kinds = {f.name: f for f in corpus}
    for name in ("webm_vp8_no_duration", "webm_vp9_no_duration", "webm_av1_no_duration", "ogg_theora"):
        with av.open(str(kinds[name].path)) as container:
            assert container.streams.video[0].frames == 0, name  # no frame count
            if name.startswith("webm"):
                assert container.duration is None, name
    for name in ("edit_list_mp4", "edit_list_mov"):  # the copy starts mid-GOP: packets outside the edit
        with av.open(str(kinds[name].path)) as container:
            assert container.streams.video[0].frames > kinds[name].ffprobe_frames, name
    assert sum(f.ffprobe_frames is None for f in corpus) == sum(f.refused for f in corpus)  # FFmpeg agrees


def test_every_file_analyses_or_is_refused_in_one_line(corpus, corpus_outcomes):
    problems = []
    for f in corpus:
        o = corpus_outcomes[f.name]
        if o.seconds > TIMEOUT_S or o.status in ("hang", "crash", "traceback"):
            problems.append(f"{f.name}: {o.status} after {o.seconds:.1f} s: {o.message}")
            continue
        if f.refused:
            if f.ffprobe_frames:
                problems.append(f"{f.name}: refused here, but FFmpeg decodes {f.ffprobe_frames} frames")
            if o.status != "refused" or o.message != f"{f.path}: {o.message.split(': ', 1)[-1]}" \
                    or f.refusal not in o.message or "\n" in o.message:
                problems.append(f"{f.name}: wanted one line '{f.path}: ...{f.refusal}...', "
                                f"got {o.status}: {o.message!r}")
            continue
        if o.status != "ok":
            problems.append(f"{f.name}: FFmpeg decodes {f.ffprobe_frames} frames, but: {o.message}")
            continue
        problems += [f"{f.name}: {p}" for p in agreement(f, Analysis.load(o.analysis))]
    assert not problems, "\n".join(problems) + "\n\n" + C.table(corpus, corpus_outcomes)


def agreement(f, analysis: Analysis) -> list[str]:
    """What is wrong with an Analysis of corpus file ``f``: its frame count against
    FFmpeg's, and every stage's frames and times against the video's."""
    video, problems = analysis.video, []
    n, want = video.frame_count, f.ffprobe_frames
    if (n != want) if f.exact else abs(n - want) > 0.01 * want:
        problems.append(f"frame_count {n}, FFmpeg decodes {want}")
    if f.header_frames is not None and video.header_frame_count != f.header_frames:
        problems.append(f"header_frame_count {video.header_frame_count}, the container lists {f.header_frames}")
    if f.display is not None and (video.width, video.height) != f.display:
        problems.append(f"shown at {video.width}x{video.height}, not {f.display[0]}x{f.display[1]}")
    if video.rotation != f.rotation:
        problems.append(f"rotation {video.rotation}, not {f.rotation}")
    if not 0 < video.duration <= n / video.fps * 1.5 + 0.1:
        problems.append(f"duration {video.duration} for {n} frames at {video.fps} fps")
    stamped = [*analysis.captions, *analysis.boundaries, *analysis.faces, *analysis.keyframes]
    for record in stamped:
        if not 0 <= record.frame < n:
            problems.append(f"{type(record).__name__} at frame {record.frame} of {n}")
        if not 0 <= record.time <= video.duration:
            problems.append(f"{type(record).__name__} at {record.time} s of {video.duration}")
    if not analysis.captions:
        problems.append("no frame captions")
    return problems


# Extreme sizes, variable frame rate, non-square pixels, 10-bit, damage near the end, no
# duration, and one refused: the builtin engines analyse them as the fake ones do.
BY_THE_BUILTIN_ENGINES = ("huge_4096x4096", "tiny_64x48", "vfr_phone_mp4", "anamorphic", "hevc_10bit",
                          "damaged_near_end_mp4", "webm_av1_no_duration", "audio_only")


@pytest.mark.models
def test_the_builtin_engines_analyse_awkward_files(corpus, home):
    from supervised import Supervisor

    chosen = [f for f in corpus if f.name in BY_THE_BUILTIN_ENGINES]
    assert len(chosen) == len(BY_THE_BUILTIN_ENGINES)
    # The module's home: the child finds the session's ONNX exports and stage cache there.
    with Supervisor(home, timeout=TIMEOUT_S) as supervisor:
        outcomes = {f.name: supervisor.analyse(f.path) for f in chosen}
    problems = []
    for f in chosen:
        o = outcomes[f.name]
        if o.status != ("refused" if f.refused else "ok") or (f.refused and f.refusal not in o.message):
            problems.append(f"{f.name}: {o.status} after {o.seconds:.1f} s: {o.message}")
        elif not f.refused:
            analysis = Analysis.load(o.analysis)
            problems += [f"{f.name}: {p}" for p in agreement(f, analysis)]
            if not {"boundaries", "faces", "speech", "screen-text", "captions"} <= set(analysis.engines) or \
                    any(engine.startswith("fake") for engine in analysis.engines.values()):
                problems.append(f"{f.name}: analysed by {analysis.engines}")
    huge = outcomes["huge_4096x4096"]
    if huge.peak_mb - huge.start_mb >= HUGE_GROWTH_MB:
        problems.append(f"huge_4096x4096: grew {huge.peak_mb - huge.start_mb:.0f} MB")
    assert not problems, "\n".join(problems)


def test_huge_frames_keep_memory_bounded(corpus, corpus_outcomes):
    huge = corpus_outcomes["huge_4096x4096"]
    assert huge.status == "ok"
    assert huge.peak_mb - huge.start_mb < HUGE_GROWTH_MB, huge


def ffmpeg_frames(path, size) -> np.ndarray:
    """Every frame FFmpeg's CLI decodes, at ``size``, displayed as it would show them."""
    w, h = size
    raw = subprocess.run([shutil.which("ffmpeg"), "-v", "quiet", "-threads", "1", "-i", os.fspath(path),
                          "-map", "0:v:0", "-fps_mode", "passthrough", "-s", f"{w}x{h}", "-pix_fmt", "rgb24",
                          "-f", "rawvideo", "-"], capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(-1, h, w, 3)


def test_frames_are_the_ones_ffmpeg_decodes(corpus):
    """Undamaged files: frame i is the i-th frame FFmpeg decodes, read in order (PyAV) and
    at random (decord where it checks out), whatever the container did to the stream."""
    problems = []
    for f in corpus:
        if f.refused or f.damaged or not f.index_coded:
            continue
        with open_video(f.path) as source:
            info = source.info
            size = (info.width, info.height)
            ours = [content(a, info.rotation) for a in source.frames_at_indices(range(info.frame_count), size).frames]
            theirs = [content(a, info.rotation) for a in ffmpeg_frames(f.path, size)]
            if ours != theirs:
                problems.append(f"{f.name} ({source.backend}): ours {ours}, FFmpeg {theirs}")
            picks = sorted({0, info.frame_count // 2, info.frame_count - 1}, reverse=True)
            back = [content(a, info.rotation) for a in source.frames_at_indices(picks, size).frames]
            if back != [ours[i] for i in picks]:
                problems.append(f"{f.name}: frames {picks} read backwards are {back}")
    assert not problems, "\n".join(problems)


def test_listed_frames_that_do_not_decode_end_the_video(corpus):
    """The three files users reported: the last frame the container lists does not decode.
    It is not a frame: the video is one frame shorter, and every frame reads, in order and
    at random, with either backend."""
    for name in ("last_packet_corrupt_mp4", "last_packet_corrupt_mov", "damaged_near_end_mp4"):
        f = next(f for f in corpus if f.name == name)
        for backend in ("auto", "pyav"):
            with open_video(f.path, backend=backend) as source:
                n = source.info.frame_count
                assert n == f.ffprobe_frames == f.header_frames - 1 == source.info.header_frame_count - 1
                assert source.info.duration == pytest.approx(source.timestamps[-1] + 1 / 25)
                batches = list(source.iter_batches(size=(80, 48)))
                assert np.concatenate([b.indices for b in batches]).tolist() == list(range(n))
                last = source.frames_at_indices([n - 1, 0, n - 2], size=(80, 48))
                assert last.indices.tolist() == [n - 1, 0, n - 2]
                with pytest.raises(IndexError):
                    source.frames_at_indices([n])


def test_the_command_line_refuses_in_one_line_and_analyses_the_rest(corpus, corpus_home, tmp_path):
    chosen = [f for f in corpus if f.refused or f.name.startswith("last_packet_corrupt")]
    proc = run("analyze", "-q", "-o", tmp_path, *[f.path for f in chosen], home=corpus_home)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.splitlines()
    assert "Traceback" not in proc.stderr
    for f in chosen:
        mine = [line for line in lines if line.startswith(f"videoreview: error: {f.path}: ")]
        if f.refused:
            assert len(mine) == 1 and f.refusal in mine[0], (f.name, proc.stderr)
        else:
            assert not mine
            saved = json.loads((tmp_path / f"{f.path.stem}.analysis.json").read_text())
            assert saved["video"]["frame_count"] == f.ffprobe_frames
    assert len(lines) == sum(f.refused for f in chosen), proc.stderr


def test_library_add_indexes_the_good_files_and_lists_the_refused(corpus, corpus_outcomes, corpus_home):
    folder = corpus[0].path.parent
    proc = run("library", "add", "-q", folder, home=corpus_home)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    found = [f for f in corpus if f.path.is_file() and f.path.suffix in VIDEO_EXTENSIONS]
    good = [f for f in found if not f.refused]
    refused = [f for f in found if f.refused]
    indexed, unchanged, failed = (int(proc.stdout.split(word)[0].split()[-1])
                                  for word in (" indexed", " unchanged", " failed"))
    assert (indexed + unchanged, failed) == (len(good), len(refused)), proc.stdout
    listed = proc.stderr.split("refused:", 1)[1].splitlines()[1:]
    for f in refused:
        assert sum(os.fspath(f.path) in line and f.refusal in line for line in listed) == 1, (f.name, proc.stderr)
    library = {v["path"]: v for v in json.loads(run("library", "list", "--json", home=corpus_home).stdout)}
    assert {p for p, v in library.items() if v["status"] == "done"} == {os.fspath(f.path) for f in good}

    # Nothing could be indexed: then, and only then, the exit status says so.
    proc = run("library", "add", "-q", *[f.path for f in refused], home=corpus_home)
    assert proc.returncode == 1 and "0 indexed" in proc.stdout
