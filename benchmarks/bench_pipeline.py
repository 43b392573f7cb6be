"""The whole default pipeline: start-up, realtime factor, peak memory, and FFmpeg's decode floor.

    .venv/bin/python benchmarks/bench_pipeline.py [--seconds 150] [--long-minutes 2 20] [--keep DIR]
    python benchmarks/bench_pipeline.py --device cuda [--clip CLIP] [--only boundaries,captions]
    .venv/bin/python benchmarks/bench_pipeline.py --real [NAME ...]

Generates a 720p 25 fps H.264 clip (tests/videos.py) with two voices speaking under it
(bench_speech.py) and a 10-frame one, then measures,
each in a fresh process:
  - start-up: ``videoreview --version``, and ``videoreview analyze --no-cache`` of the
    10-frame clip (launch to exit, and launch to the first frame analysed); and the
    window's analysis process (``pipeline.child.run_analysis``, spawned as the window
    does) on 10-, 11- and 12-frame clips never analysed before: spawn to first frame;
  - the pipeline with the default engines on the clip, no cache: analysis time (after
    the imports), realtime factor, and peak RSS, and where the cores went: the CPU
    seconds inside each stage's work in the frame pass, the stages beside it, and how
    busy the cores were; with --long-minutes also on longer clips, to show whether
    memory stays flat with length;
  - ``ffmpeg -i CLIP -f null -``: decoding alone, the floor any analysis stands on.
The ONNX exports are made before the timings (once per machine, not per run).

With ``--real``: clips of the real-footage corpus (benchmarks/corpus/, fetched by
scripts/fetch-real-clips; by default those of two minutes or more, and of 720p and half a
minute or more), each in a fresh process, the models loaded first on the 10-frame clip (that
time printed apart as loading), then per stage the seconds inside its own work and its share
of the analysis.

With ``--device cuda`` (start-up is not measured then): each clip three times, in one
run: with the GPU visible, decoding on NVDEC and in software, and with it hidden
(CUDA_VISIBLE_DEVICES=""; asked for CUDA, every stage then runs on the CPU with the
CPU's settings), the models loaded first on the 10-frame
clip so that the figures do not count loading them; per stage the seconds from its start
to its end (stages that read frames together overlap), TransNetV2's frames per second
inside the boundary stage, peak GPU memory (torch's allocator, and the process's as
nvidia-smi sees it), and the speed-up. ``--only`` keeps some stages of the default
engines; ``--clip`` measures a given file instead of generating one.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # the checkout's videoreview and test-video makers

from memory import peak_rss_mb  # noqa: E402  (benchmarks/memory.py)

VIDEOREVIEW = [sys.executable, "-m", "videoreview"]


def worker(path: str, launched: float, device: str = "auto", only: str = "", warm: str = "",
           decode: str = "auto") -> dict:
    """Analyse ``path`` with the default engines (those named in ``only``), no cache. ``warm``:
    a clip analysed first, so that the models are loaded before the timing starts."""
    from videoreview.pipeline import StageCache, analyze
    from videoreview.pipeline.stages import DEFAULT_ENGINES, build_stages

    engines = {key: name for key, name in DEFAULT_ENGINES.items() if not only or key in only.split(",")}
    stages = build_stages(engines, device)
    transnet = _time_transnet(stages)
    busy: dict[str, float] = {}
    first: list[float] = []
    spans: dict[str, list[float]] = {}

    def progress(stage: str, fraction: float, message: str) -> None:
        now = time.time()
        if stage != "probe" and fraction > 0 and not first:
            first.append(now)
        spans.setdefault(stage, [now, now])[1] = now

    loading = 0.0
    with tempfile.TemporaryDirectory() as root:
        if warm:
            started = time.perf_counter()
            analyze(warm, stages=stages, cache=StageCache(Path(root) / "warm"), use_cache=False, decode=decode,
                    notice=lambda text: print(text, file=sys.stderr))
            loading = time.perf_counter() - started
            transnet.update(seconds=0.0, frames=0)
            _reset_gpu_peak()
        spans.clear()
        _time_busy(stages, busy)
        used = _process_cpu()
        start = time.perf_counter()
        analysis = analyze(path, stages=stages, cache=StageCache(Path(root)), use_cache=False, progress=progress,
                           decode=decode, notice=lambda text: print(text, file=sys.stderr))
        elapsed = time.perf_counter() - start
        process_cpu = _process_cpu() - used
    return {"seconds": elapsed, "duration": analysis.video.duration, "peak_rss_mb": peak_rss_mb(),
            "first_frame_after_launch": first[0] - launched if first else None, "devices": analysis.devices,
            "stages": {name: end - begin for name, (begin, end) in spans.items() if name != "probe"},
            "transnet_fps": transnet["frames"] / transnet["seconds"] if transnet["seconds"] else None,
            "gpu_peak_mb": _gpu_peak_mb(), "boundaries": [(b.kind, round(b.time, 2)) for b in analysis.boundaries],
            "captions": len(analysis.captions), "busy": busy, "process_cpu": process_cpu, "loading": loading,
            "plan": _plan_rows(analysis, stages)}


def _plan_rows(analysis, stages) -> list[dict]:
    """The Analysis's plan per stage: its rate, the seconds estimated and spent, and the
    seconds it spent per unit of its declared cost (pipeline/stages/cost.py), to set them by."""
    info = analysis.video
    costs = {stage.name: getattr(stage, "cost", None) for stage in stages}
    rows = []
    for p in analysis.plan.stages:
        cost = costs.get(p.stage)
        units = {"sampled": info.duration * (p.rate or 0), "decoded": info.frame_count,
                 "audio": info.duration}.get(cost.unit if cost else "", 0)
        rows.append({"stage": p.stage, "rate": p.rate, "estimated": p.estimated, "spent": p.spent,
                     "per_unit": (p.spent or 0) / units if units else None})
    return rows


def _process_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _time_busy(stages, busy: dict) -> None:
    """Add to ``busy[stage]`` the wall seconds spent inside the stage's own work: its
    reader's ``take``/``result`` (in the frame pass, one stage at a time) or its ``compute``
    (beside the frame pass, in its own thread). Wall, not the thread's CPU time: ONNX
    Runtime and CTranslate2 compute in threads of their own while the caller waits."""
    def timed(name, call):
        def run(*args, **kwargs):
            start = time.perf_counter()
            try:
                return call(*args, **kwargs)
            finally:
                busy[name] = busy.get(name, 0.0) + time.perf_counter() - start
        return run

    for stage in stages:
        stage.compute = timed(stage.name, stage.compute)
        if hasattr(stage, "reader"):
            make = stage.reader

            def reader(source, make=make, name=stage.name):
                made = make(source)
                if made is not None:
                    made.take, made.result = timed(name, made.take), timed(name, made.result)
                return made

            stage.reader = reader


def _time_transnet(stages) -> dict:
    """Time every TransNetV2 call of the boundary stage: frames it kept and seconds."""
    stats = {"seconds": 0.0, "frames": 0}
    engine = next((s.engine for s in stages if s.name == "boundaries" and hasattr(s.engine, "_models")), None)
    if engine is None:
        return stats
    transnet, _small, _features = engine._models()  # (the short windows run on the CPU only)
    inner = transnet.call

    def timed(windows):
        start = time.perf_counter()
        out = inner(windows)  # comes back as a numpy array: the GPU has finished
        stats["seconds"] += time.perf_counter() - start
        stats["frames"] += len(windows) * (windows.shape[1] - 50)  # each window keeps all but 2 x 25 frames
        return out

    transnet.call = timed
    return stats


def _reset_gpu_peak() -> None:
    if "torch" in sys.modules and sys.modules["torch"].cuda.is_available():
        sys.modules["torch"].cuda.reset_peak_memory_stats()


def _gpu_peak_mb() -> float | None:
    if "torch" in sys.modules and sys.modules["torch"].cuda.is_available():
        return sys.modules["torch"].cuda.max_memory_reserved() / 2**20
    return None


def run_worker(path: Path, device: str = "auto", only: str = "", warm: Path | None = None,
               env: dict | None = None, decode: str = "auto") -> dict:
    command = [sys.executable, __file__, "--worker", str(path), str(time.time()), device, only, str(warm or ""),
               decode]
    with GpuMemory() as gpu:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env={**os.environ, **(env or {})})
        gpu.watch(process.pid)
        out, err = process.communicate()
    if process.returncode:
        raise RuntimeError(f"the analysis failed:\n{err}")
    result = json.loads(out.strip().splitlines()[-1])
    result["gpu_process_peak_mb"] = gpu.peak
    result["notices"] = [line for line in err.splitlines() if "runs on the CPU" in line]
    return result


class GpuMemory:
    """The most GPU memory one process held, as nvidia-smi reports it every 0.2 s (None
    where there is no nvidia-smi)."""

    def __init__(self) -> None:
        import shutil
        import threading

        self.peak, self._pid, self._stop = None, None, threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True) if shutil.which("nvidia-smi") else None

    def __enter__(self):
        if self._thread:
            self._thread.start()
        return self

    def watch(self, pid: int) -> None:
        self._pid = pid

    def _poll(self) -> None:
        while not self._stop.wait(0.2):
            query = ["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"]
            out = subprocess.run(query,
                                 capture_output=True, text=True).stdout
            for line in out.splitlines():
                pid, _, used = line.partition(",")
                if pid.strip() == str(self._pid) and used.strip().isdigit():
                    self.peak = max(self.peak or 0, int(used))

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join()


@contextlib.contextmanager
def fresh_home():
    """An empty VIDEOREVIEW_HOME (no cached results), with this machine's ONNX exports."""
    from videoreview.paths import data_dir

    exports = data_dir() / "onnx"
    old = os.environ.get("VIDEOREVIEW_HOME")
    with tempfile.TemporaryDirectory() as home:
        (Path(home) / "onnx").symlink_to(exports, target_is_directory=True)
        os.environ["VIDEOREVIEW_HOME"] = home
        try:
            yield
        finally:
            if old is None:
                del os.environ["VIDEOREVIEW_HOME"]
            else:
                os.environ["VIDEOREVIEW_HOME"] = old


def child_first_frame(path: Path) -> float:
    """Seconds from spawning the window's analysis process on ``path`` to its first
    progress report of a frame analysed."""
    import multiprocessing

    from videoreview.pipeline.child import run_analysis

    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    cancel = context.Event()
    start = time.perf_counter()
    child = context.Process(target=run_analysis, args=(str(path), None, None, send, cancel))
    child.start()
    send.close()
    first = None
    while True:
        kind, payload = receive.recv()
        if kind == "progress" and first is None and payload.stage != "probe" and payload.stage_fraction > 0:
            first = time.perf_counter() - start
        if kind in ("done", "failed", "cancelled"):
            break
    child.join()
    return first


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def median_wall(command: list[str], runs: int = 3) -> float:
    return sorted(wall(command) for _ in range(runs))[runs // 2]


def ffmpeg_decode(path: Path) -> float:
    return median_wall(["ffmpeg", "-v", "error", "-i", str(path), "-f", "null", "-"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=150.0)
    parser.add_argument("--long-minutes", type=float, nargs="*", default=[])
    parser.add_argument("--keep", help="keep the generated clips in this folder")
    parser.add_argument("--device", default="auto", help="cuda: each clip with the GPU visible and hidden")
    parser.add_argument("--only", default="", help="capabilities to keep, comma-separated (default: all)")
    parser.add_argument("--clip", type=Path, help="measure this file instead of a generated clip")
    parser.add_argument("--tiny", type=Path, help="a short clip to load the models on (default: generated)")
    parser.add_argument("--real", nargs="*", metavar="NAME", help="clips of the real-footage corpus (default: "
                        "those of 2 minutes or more, and of 720p and 30 s or more)")
    parser.add_argument("--worker", nargs=6, metavar=("PATH", "LAUNCHED", "DEVICE", "ONLY", "WARM", "DECODE"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        path, launched, device, only, warm, decode = args.worker
        print(json.dumps(worker(path, float(launched), device, only, warm, decode)))
        return

    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-pipeline-"))
    folder.mkdir(parents=True, exist_ok=True)
    tiny = args.tiny or folder / "ten-frames-720p.mp4"
    clip = args.clip or folder / f"speech-{int(args.seconds)}s-720p25.mp4"
    if not tiny.exists() or not clip.exists():
        from videos import make_long_video

        if not tiny.exists():
            make_long_video(tiny, 10 / 25)
        if not clip.exists():
            with_speech(make_long_video(folder / f"clip-{int(args.seconds)}s-720p25.mp4", args.seconds).path, clip)
    run_worker(tiny, "cpu", args.only)  # makes the ONNX exports if this machine has none yet
    if args.real is not None:
        real_table(args.real, tiny, args.device, args.only)
        return
    if args.device.startswith("cuda"):
        gpu_table(clip, tiny, args.device, args.only)
        return
    startup(folder, tiny)

    print(f"{'clip':<28} {'analysis':>9} {'realtime':>9} {'peak RSS':>9} {'ffmpeg decode':>14} {'ratio':>6}")
    for path, seconds in [(clip, args.seconds)] + [
            (folder / f"speech-{m:g}min-720p25.mp4", m * 60) for m in args.long_minutes]:
        if not path.exists():
            from videos import make_long_video

            with_speech(make_long_video(folder / f"clip-{seconds:g}s-720p25.mp4", seconds).path, path)
        result = run_worker(path, args.device, args.only)
        floor = ffmpeg_decode(path)
        print(f"{path.name:<28} {result['seconds']:8.1f}s {result['duration'] / result['seconds']:8.1f}x "
              f"{result['peak_rss_mb']:6.0f} MB {floor:13.2f}s {result['seconds'] / floor:5.1f}x")
        print(where_the_cores_went(result))


def where_the_cores_went(result: dict) -> str:
    """The run's timeline in words: seconds inside each stage in the frame pass, the
    stages beside it, and how busy the machine's cores were."""
    busy, cpu = dict(result["busy"]), result["process_cpu"]
    beside = {name: busy.pop(name) for name in list(busy) if name in ("speech", "speakers")}
    waiting = result["seconds"] - sum(busy.values())
    cores = os.cpu_count() or 1
    return ("  frame pass (one stage at a time, decoding and scaling in a thread ahead): "
            + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in busy.items())
            + f", waiting for frames {max(0.0, waiting):.1f} s\n  beside it: "
            + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in beside.items())
            + f"\n  process CPU {cpu:.1f} s of {cores} x {result['seconds']:.1f} s: "
            f"{cpu / (cores * result['seconds']):.0%} of the cores")


def real_table(names: list[str], tiny: Path, device: str, only: str) -> None:
    """Each clip of the real-footage corpus in ``names`` (default: of two minutes or more, or
    720p and half a minute or more): analysis time, realtime factor, and each stage's busy seconds and share, the
    models loaded first (that time apart)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from real_corpus import corpus, present

    clips = [c for c in present(corpus()) if c.name in names] if names else [
        c for c in present(corpus()) if c.source["duration"] >= 120 or (c.source["height"] >= 720
                                                                         and c.source["duration"] >= 30)]
    for clip in clips:
        result = run_worker(clip.path, device, only, tiny)
        seconds = result["seconds"]
        busy = ", ".join(f"{name} {t:.1f} s ({t / seconds:.0%})" for name, t in result["busy"].items())
        print(f"{clip.name} ({clip.kind}, {clip.part}; {result['duration']:.1f} s): analysis {seconds:.1f} s, "
              f"{result['duration'] / seconds:.1f}x realtime, peak RSS {result['peak_rss_mb']:.0f} MB; models "
              f"loaded first in {result['loading']:.1f} s (on the 10-frame clip)\n  busy: {busy}")
        print(where_the_cores_went(result))
        print("  plan: " + ", ".join(
            f"{r['stage']} {r['estimated']:.1f} s estimated, {r['spent'] or 0:.1f} s spent"
            + (f" ({r['per_unit'] * 1000:.1f} ms a unit)" if r["per_unit"] else "") for r in result["plan"]))


def with_speech(picture: Path, out: Path) -> Path:
    """``picture`` with two voices speaking under it for its whole length (espeak-ng, as
    bench_speech.py makes them), so that the speech stage has work too."""
    from bench_speech import make_clip
    from speech import mux

    seconds = float(subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                                    str(picture)], check=True, capture_output=True, text=True).stdout)
    spoken, _text = make_clip(Path(tempfile.mkdtemp(prefix="bench-pipeline-speech-")), seconds)
    return mux(picture, spoken, out)


def startup(folder: Path, tiny: Path) -> None:
    from videos import make_long_video

    version = median_wall(VIDEOREVIEW + ["--version"])
    with tempfile.TemporaryDirectory() as out:
        small = median_wall(VIDEOREVIEW + ["analyze", "-q", "--no-cache", "-o", f"{out}/a.json", str(tiny)])
    first = run_worker(tiny)["first_frame_after_launch"]
    fresh = []
    with fresh_home():
        for frames in (10, 11, 12):
            make_long_video(folder / f"fresh-{frames}.mp4", frames / 25)
            fresh.append(child_first_frame(folder / f"fresh-{frames}.mp4"))
    print(f"start-up: --version {version:.2f} s; analyze of a 10-frame 720p clip {small:.2f} s "
          f"(launch to first frame analysed {first:.2f} s); the window's analysis process, "
          f"spawn to first frame analysed: {', '.join(f'{t:.2f}' for t in fresh)} s")


def gpu_table(clip: Path, tiny: Path, device: str, only: str) -> None:
    """The clip with the GPU visible (decoding on NVDEC, and in software) and hidden, models
    loaded first, side by side."""
    runs = {"GPU": run_worker(clip, device, only, tiny),
            "GPU, software decoding": run_worker(clip, device, only, tiny, decode="cpu"),
            "GPU hidden": run_worker(clip, device, only, tiny, env={"CUDA_VISIBLE_DEVICES": ""})}
    for name, result in runs.items():
        stages = ", ".join(f"{stage} {seconds:.2f} s ({result['devices'].get(stage, '?')})"
                           for stage, seconds in result["stages"].items())
        fps = f"{result['transnet_fps']:.0f}" if result["transnet_fps"] else "-"
        memory = (f"{result['gpu_peak_mb'] or 0:.0f} MB in torch, {result['gpu_process_peak_mb'] or 0:.0f} MB "
                  f"for the process (nvidia-smi)")
        print(f"{name}: {clip.name} ({result['duration']:.1f} s) analysed in {result['seconds']:.2f} s, "
              f"{result['duration'] / result['seconds']:.1f}x realtime; stages: {stages}; TransNetV2 {fps} "
              f"frames/s; peak GPU memory {memory}; peak RSS {result['peak_rss_mb']:.0f} MB")
        for line in result["notices"]:
            print(f"  notice: {line}")
    print(f"speed-up with the GPU: {runs['GPU hidden']['seconds'] / runs['GPU']['seconds']:.1f}x")
    for name, result in runs.items():
        kinds = {kind: sum(k == kind for k, _ in result["boundaries"]) for kind in ("cut", "gradual", "event")}
        same = "same as" if result["boundaries"] == runs["GPU"]["boundaries"] else "differ from"
        print(f"{name}: boundaries {kinds} ({same} the first run's), {result['captions']} captions")


if __name__ == "__main__":
    main()
