"""Transcription speed and memory: our speech stage against faster-whisper called directly
on the same file with the same model and settings, and against transformers' Whisper
pipeline, a user's other choice, with the very same weights.

    .venv/bin/python benchmarks/bench_speech.py [--seconds 60] [--runs 3] [--model whisper-base]

Makes a clip of ``--seconds`` of espeak-ng speech (two voices taking turns, pauses between
lines) under a 640x360 picture, then, each in a fresh process and ``--runs`` times in
turn: our stage (the sound read with PyAV on the picture's clock, then Whisper), and
faster-whisper's own ``WhisperModel.transcribe(path)`` (it decodes the sound itself) with
the same weights, int8, the same threads, beam 5, VAD and word timestamps; and
transformers' ``pipeline("automatic-speech-recognition")`` on the same weights converted to
a transformers folder (whisper_to_transformers.py; there is no transformers Whisper base
offline), float32 on the CPU as transformers runs it, beam 5, word timestamps, 30 s chunks,
the sound decoded with faster-whisper's decode_audio inside the clock. The model is loaded
(and converted) before the clock starts in all. Prints the median time, the realtime
factor (seconds of sound per second of work), peak memory (the process's max RSS) and our
speed as a fraction of faster-whisper's and of transformers'.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

LINES = [
    "The train leaves the station at noon, so we should be there early.",
    "Then we should pack our bags tonight and leave the keys with the neighbours.",
    "Remember to bring the blue umbrella, it is going to rain all week.",
    "I will call the hotel in the morning and ask about the late check in.",
    "Do not forget the tickets, they are on the kitchen table next to the lamp.",
]


def make_clip(folder: Path, seconds: float) -> tuple[Path, str]:
    """The clip, and the text spoken in it."""
    import numpy as np

    from speech import Line, speak, speech_clip
    from videos import encode_frames

    lines, at, n = [], 0.5, 0
    while True:
        text, voice = LINES[n % len(LINES)], "ab"[n % 2]
        length = len(speak(text, voice)) / 16000
        if at + length > seconds - 0.5:
            break
        lines.append(Line(at, text, voice))
        at, n = at + length + 1.2, n + 1
    fps = 10
    frames = (np.full((360, 640, 3), (60 + k % 100, 90, 120), np.uint8) for k in range(int(seconds * fps)))
    encode_frames(folder / "picture.mp4", frames, fps)
    path, spoken = speech_clip(folder, "speech.mp4", folder / "picture.mp4", lines, seconds)
    return path, " ".join(line.text for line in spoken)


def one(which: str, path: str, model: str) -> dict:
    from videoreview.engines.speech.whisper import SETTINGS, WhisperEngine, builtin_files
    from videoreview.media import open_video
    from videoreview.models.catalog import load_catalog
    from videoreview.pipeline.cancel import CancelToken
    from videoreview.pipeline.stages.speech import SpeechStage

    if which == "ours":
        engine = WhisperEngine(model, "cpu")
        engine._load()
        stage = SpeechStage(engine)
        with open_video(path) as source:
            start = time.perf_counter()
            result = stage.compute(source, lambda fraction, message="": None, CancelToken())
        text = " ".join(s.text for s in result.segments)
    elif which == "transformers":  # the pipeline as transformers' docs show it, beam 5 like ours
        import torch
        from faster_whisper.audio import decode_audio
        from transformers import pipeline

        torch.set_num_threads(os.cpu_count() or 1)
        folder = Path(tempfile.mkdtemp(prefix="bench-speech-hf-")) / "whisper"
        # converted in a child process: its memory is not the pipeline's, and RUSAGE_SELF
        # leaves children out of the peak
        subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
                        "from whisper_to_transformers import convert; convert(Path(sys.argv[2]))",
                        str(ROOT / "benchmarks"), str(folder)], check=True, capture_output=True)
        pipe = pipeline("automatic-speech-recognition", model=str(folder), device="cpu", torch_dtype=torch.float32)
        start = time.perf_counter()
        samples = decode_audio(path, sampling_rate=16000)
        result = pipe({"raw": samples, "sampling_rate": 16000}, return_timestamps="word", chunk_length_s=30,
                      batch_size=1, generate_kwargs={"num_beams": 5})
        text = result["text"]
        shutil.rmtree(folder.parent)  # 290 MB of float32 weights per run otherwise
    else:  # faster-whisper as its README shows it, with our settings
        from faster_whisper import WhisperModel

        from videoreview.models.folders import resolve_model

        entry = load_catalog()[model]
        where = dict(files=builtin_files(entry)) if entry.builtin else {}
        direct = WhisperModel(model if entry.builtin else str(resolve_model(model)), device="cpu",
                              compute_type="int8", cpu_threads=os.cpu_count() or 1, **where)
        start = time.perf_counter()
        segments, _info = direct.transcribe(path, **SETTINGS)
        text = " ".join(s.text for s in segments)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "text": text, "peak_mb": peak}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--model", default="whisper-base")
    parser.add_argument("--one", choices=["ours", "direct", "transformers"], help=argparse.SUPPRESS)
    parser.add_argument("--path", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.path, args.model)))
        return
    os.environ["VIDEOREVIEW_HOME"] = tempfile.mkdtemp(prefix="bench-speech-")
    from videoreview.metrics.speech import word_errors

    clip, spoken = make_clip(Path(tempfile.mkdtemp(prefix="bench-speech-clip-")), args.seconds)
    results: dict[str, list[dict]] = {"ours": [], "direct": []}
    if args.model == "whisper-base":  # the only model whisper_to_transformers.py converts
        results["transformers"] = []
    for _ in range(args.runs):
        for which in results:
            out = subprocess.run([sys.executable, __file__, "--one", which, "--path", str(clip), "--model", args.model],
                                 capture_output=True, text=True, check=True)
            results[which].append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"{args.seconds:.0f} s of speech, {args.model}, int8 (transformers float32), {os.cpu_count()} threads, "
          f"median of {args.runs}")
    medians = {}
    for which, label in (("ours", "our speech stage"), ("direct", "faster-whisper directly"),
                         ("transformers", "transformers pipeline")):
        runs = results.get(which)
        if not runs:
            continue
        medians[which] = statistics.median(r["seconds"] for r in runs)
        wer = word_errors(spoken, runs[0]["text"]).wer
        print(f"{label:26} {medians[which]:6.2f} s  {args.seconds / medians[which]:5.2f}x realtime  "
              f"WER {wer:.3f}  peak {max(r['peak_mb'] for r in runs):.0f} MB")
    print(f"ours / faster-whisper speed: {medians['direct'] / medians['ours']:.2f}")
    if "transformers" in medians:
        print(f"ours / transformers speed: {medians['transformers'] / medians['ours']:.2f}")


if __name__ == "__main__":
    main()
