"""PDF report export time: an Analysis and a summary with 100 keyframes.

    .venv/bin/python benchmarks/bench_pdf.py [--seconds 180] [--gop 10] [--keyframes 100] [--repeats 3] [--keep DIR]

Generates SECONDS of 1280x720 25 fps H.264 (ffmpeg's testsrc2, x264 ultrafast, a keyframe
every GOP seconds: 10 is x264's default, phones and streaming sites use 1-4) and an
Analysis of it with KEYFRAMES keyframes spread over the video, a caption every second, a
boundary every 10 s (every third an event with a caption), 2 identities, a keyframes+text
summary over all the keyframes and a 3-row ViSIL comparison. Runs ``write_pdf`` once (the
first export in a process also imports fpdf2 and reads the fonts), then REPEATS times,
and prints the median, the part spent on the pictures (opening the video, the one
``frames_at_indices`` call, JPEG encoding) against building the PDF, the file size and
pages, and whether the 3 s target is met.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # the checkout's videoreview and test-video makers

TARGET_S = 3.0
FPS = 25


def make_clip(path: Path, seconds: float, gop: float) -> None:
    from videos import ffmpeg

    ffmpeg("-f", "lavfi", "-i", f"testsrc2=s=1280x720:r={FPS}:d={seconds}", "-c:v", "libx264", "-preset", "ultrafast",
           "-crf", "23", "-g", str(round(gop * FPS)), "-pix_fmt", "yuv420p", path)


def synthetic_analysis(clip: Path, keyframes: int):
    from videoreview.media import probe
    from videoreview.records import (
        Analysis,
        Appearance,
        Boundary,
        BoundaryCaption,
        FaceDetection,
        FrameCaption,
        Identity,
        Keyframe,
        Summary,
    )
    from videoreview.summary.compare import Comparison, Reference, Row

    info = probe(clip)
    seconds = int(info.duration)
    captions = tuple(FrameCaption(float(t), t * FPS, f"Shot {t // 10 + 1}, a test card with colour bars and a moving "
                                                      f"gradient; the counter reads {t}.", "builtin@1")
                     for t in range(seconds))
    boundaries = tuple(Boundary(float(t), t * FPS, "event" if t % 30 == 0 else "cut", 0.9,
                                BoundaryCaption("counter", "counting", "reset") if t % 30 == 0 else None,
                                "builtin@2", edited=t == 60)
                       for t in range(10, seconds, 10))
    step = (info.frame_count - 1) / max(1, keyframes - 1)
    frames = [round(k * step) for k in range(keyframes)]
    chosen = tuple(Keyframe(f / FPS, f, reason="spread") for f in frames)
    identities = tuple(Identity(f"P{k}", name, (Appearance(k * 5.0, k * 5.0 + 20),), (k,),
                                FaceDetection(k * 5.0 + 1, (k * 5 + 1) * FPS, (400.0 * k, 200.0, 160.0, 200.0), 0.9, k))
                       for k, name in ((1, "Alice"), (2, None)))
    text = "A test card throughout. " + "; then ".join(f"the counter moves on [KEYFRAME{n}]"
                                                       for n in range(1, keyframes + 1)) + "."
    summary = Summary("keyframes+text", text, tuple(frames), "builtin@1")
    analysis = Analysis(video=info, content_hash="0" * 64, engines={"boundaries": "builtin@2", "captions": "builtin@1"},
                        boundaries=boundaries, captions=captions, identities=identities, keyframes=chosen,
                        summaries=(summary,))
    rows = tuple(Row(fmt, loss, tokens, "builtin-scorer", True, (), "") for fmt, loss, tokens in
                 (("text", 40.0, 90), ("1", 31.5, 400), (str(keyframes), 12.25, 25_000)))
    comparison = Comparison(Reference("a test card", "builtin captions"), ("test", "card", "counter"), -200.0, rows,
                            (0, 1, 2), ((0.0, 2), (1e-3, 1), (0.1, 0)))
    return analysis, summary, comparison


def pages(path: Path) -> str:
    exe = shutil.which("pdfinfo")
    if exe is None:
        return "?"
    out = subprocess.run([exe, str(path)], capture_output=True, text=True).stdout
    return next((line.split()[-1] for line in out.splitlines() if line.startswith("Pages:")), "?")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--gop", type=float, default=10.0, help="seconds between the clip's keyframes")
    parser.add_argument("--keyframes", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", help="keep the clip and the PDF in this folder")
    args = parser.parse_args()

    from videoreview.summary.export import pdf as pdf_export

    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-pdf-"))
    folder.mkdir(parents=True, exist_ok=True)
    clip = folder / f"clip-{int(args.seconds)}s-720p25-gop{args.gop:g}.mp4"
    if not clip.exists():
        started = time.perf_counter()
        make_clip(clip, args.seconds, args.gop)
        print(f"clip: {clip} generated in {time.perf_counter() - started:.0f} s")
    analysis, summary, comparison = synthetic_analysis(clip, args.keyframes)
    print(f"clip: {args.seconds:.0f} s, 1280x720, {FPS} fps, H.264, a keyframe every {args.gop:g} s; analysis: "
          f"{len(analysis.keyframes)} keyframes, {len(analysis.captions)} captions, "
          f"{len(analysis.boundaries)} boundaries, {len(analysis.identities)} identities")

    # Time the pictures (open, one decode call, JPEG) inside write_pdf.
    decode_times: list[float] = []
    decode = pdf_export._decode_pictures

    def timed_decode(*a, **kw):
        started = time.perf_counter()
        try:
            return decode(*a, **kw)
        finally:
            decode_times.append(time.perf_counter() - started)

    pdf_export._decode_pictures = timed_decode
    out = folder / "report.pdf"

    def export() -> float:
        started = time.perf_counter()
        warnings = pdf_export.write_pdf(analysis, out, video_path=clip, summary=summary, comparison=comparison)
        if warnings:
            print("warnings:", *warnings, sep="\n  ")
        return time.perf_counter() - started

    first = export()
    print(f"first export in this process: {first:.2f} s (pictures {decode_times[-1]:.2f} s)")
    totals = [export() for _ in range(args.repeats)]
    pictures = decode_times[-args.repeats:]
    total, decoded = statistics.median(totals), statistics.median(pictures)
    build = statistics.median(t - d for t, d in zip(totals, pictures))
    print(f"write_pdf, {args.keyframes} keyframes: median {total:.2f} s of {args.repeats} "
          f"(min {min(totals):.2f}, max {max(totals):.2f}); pictures {decoded:.2f} s ({decoded / total:.0%}), "
          f"PDF building and writing {build:.2f} s ({build / total:.0%})")
    print(f"file: {out.stat().st_size / 1e6:.2f} MB, {pages(out)} pages")
    verdict = "met" if total < TARGET_S else "NOT met"
    print(f"target {TARGET_S:.0f} s: {verdict} (PDF building alone: {'met' if build < TARGET_S else 'NOT met'})")


if __name__ == "__main__":
    main()
