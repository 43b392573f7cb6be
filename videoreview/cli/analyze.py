"""`videoreview analyze`, `identities` and `info`: analyse videos, list their people, probe them."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import VideoReviewError
from .common import EXIT_ERROR, EXIT_USAGE, chosen, parse_engines, print_error


def _output_path(video: Path, output: str | None, many: bool) -> Path | None:
    """Where one video's Analysis goes: None means stdout."""
    if output == "-":
        return None
    name = f"{video.stem}.analysis.json"
    if output is None:
        return Path.cwd() / name
    out = Path(output)
    if many or out.is_dir():
        return out / name
    return out


def analyze_each(args: argparse.Namespace, outputs: bool, videos: list[str] | None = None,
                 engines: list[str] | None = None):
    """Analyse every video of ``videos`` (default ``args.videos``) with the ``engines``
    (--engines values, default ``args.engines``), its progress shown (cli/progress.py).
    Yields (video, output path or None, Analysis or None when the video failed, with its
    error printed); the output path is ``args.output``'s where ``outputs``, else None."""
    from ..pipeline import CancelToken, StageCache, build_stages
    from ..pipeline.analyse_and_save import SAVED, analyse_and_save
    from ..records import Analysis
    from .progress import ProgressBar

    videos = args.videos if videos is None else videos
    stages = build_stages(parse_engines(args.engines if engines is None else engines), chosen().device)
    many = len(videos) > 1
    if outputs and many and args.output not in (None, "-"):
        Path(args.output).mkdir(parents=True, exist_ok=True)
    cache = StageCache()
    for video in map(Path, videos):
        out = _output_path(video, args.output, many) if outputs else None
        previous = SAVED  # the reviewer's edits made in the window...
        if out is not None and out.exists():
            try:
                previous = Analysis.load(out)  # ...or those in the output file, kept across re-runs
            except VideoReviewError:
                pass
        shown = ProgressBar(video.name, quiet=args.quiet, stages=["probe"] + [s.name for s in stages])
        try:
            analysis = analyse_and_save(video, previous, save=False, progress=_with_plan_lines(shown),
                                        cancel=CancelToken(), cache=cache, use_cache=not args.no_cache,
                                        backend=args.backend, stages=stages, speed=getattr(args, "speed", None),
                                        notice=lambda text: shown.write(f"videoreview: notice: {text}"))
        except VideoReviewError as exc:
            shown.close()
            print_error(str(exc))
            yield video, out, None
            continue
        shown.close(done=True)
        yield video, out, analysis


def _with_plan_lines(shown):
    """``shown.update``, and the captions' plan (which frames a VLM sees, within what budget)
    as a line of its own; where progress goes to a log rather than a bar, each of the plan's
    windows too (the bar shows them as they come)."""
    from ..pipeline.caption_plan import PLAN_MESSAGE, WINDOW_MESSAGE

    def update(stage: str, fraction: float, message: str = "") -> None:
        shown.update(stage, fraction, message)
        if shown.quiet or stage != "captions":
            return
        if message.startswith(PLAN_MESSAGE) or (message.startswith(WINDOW_MESSAGE) and shown.bar is None):
            shown.write(f"{shown.what}: {stage}: {message.removeprefix(PLAN_MESSAGE)}")

    return update


def analyze_all(args: argparse.Namespace, outputs: bool, videos: list[str] | None = None,
                engines: list[str] | None = None):
    """Everything analyze_each yields, or None (the error printed) when --engines is wrong
    or names a model folder that will not load."""
    from ..errors import ModelError

    try:
        return list(analyze_each(args, outputs, videos, engines))
    except (argparse.ArgumentTypeError, KeyError, ModelError) as exc:
        print_error(str(exc).strip("'\""))
        return None


def one_analysis(args: argparse.Namespace, engines: list[str] | None = None):
    """The Analysis of ``args.video`` (cached stages are reused, a reviewer's edits kept),
    with ``engines`` (default ``args.engines``), or None."""
    results = analyze_all(args, outputs=False, videos=[args.video], engines=engines)
    return results[0][2] if results else None


def _cluster_distance(analyses) -> float:
    """The face engine's clustering distance for analyses made with it (at least one)."""
    from ..pipeline.stages.identities import face_cluster_distance  # a registered engine's too

    return face_cluster_distance(analyses[0].engines.get("faces", ""))


def print_plans(args: argparse.Namespace) -> int:
    """``analyze --plan``: each video's plan and budget, nothing analysed."""
    from ..pipeline import StageCache, build_stages
    from ..pipeline.plan import describe
    from ..pipeline.runner import plan_for

    try:
        stages = build_stages(parse_engines(args.engines), chosen().device)
    except (argparse.ArgumentTypeError, KeyError) as exc:
        print_error(str(exc).strip("'\""))
        return EXIT_USAGE
    cache, failed = StageCache(), False
    for video in args.videos:
        try:
            info, plan = plan_for(video, stages, cache=cache, use_cache=not args.no_cache, speed=args.speed)
        except VideoReviewError as exc:
            print_error(str(exc))
            failed = True
            continue
        print(f"{video}:")
        print("\n".join(describe(plan, info.duration)))
    return EXIT_ERROR if failed else 0


def cmd_analyze(args: argparse.Namespace) -> int:
    if args.plan:
        return print_plans(args)
    done = analyze_all(args, outputs=True)
    if done is None:
        return EXIT_USAGE
    good = [(video, out, a) for video, out, a in done if a is not None]
    if args.videoset and good and "faces" in good[0][2].engines:
        from ..pipeline.stages.identities import assign_identities

        shared = assign_identities([a for _, _, a in good], _cluster_distance([a for _, _, a in good]))
        good = [(video, out, a) for (video, out, _), a in zip(good, shared)]
    for _video, out, analysis in good:
        if out is None:
            print(analysis.to_json())
            continue
        analysis.save(out)
        if not args.quiet:
            kinds = {k: sum(b.kind == k for b in analysis.boundaries) for k in ("cut", "gradual", "event")}
            print(f"{out}: {len(analysis.boundaries)} boundaries "
                  f"({kinds['cut']} cuts, {kinds['gradual']} gradual, {kinds['event']} events), "
                  f"{len(analysis.faces)} faces, {len(analysis.identities)} identities{_heard(analysis)}",
                  file=sys.stderr)
    return EXIT_ERROR if len(good) < len(done) else 0


def _heard(analysis) -> str:
    """What the speech and on-screen text stages found, for the summary line."""
    parts = []
    speech = analysis.speech
    if speech is not None:
        found = {"none": "no audio", "silent": "silent audio", "no speech": "no speech"}.get(speech.audio)
        parts.append(found or f"{len(analysis.transcript)} speech segments ({speech.language})")
        if speech.note:
            parts.append(speech.note)
    if analysis.screen_text:
        parts.append(f"{len(analysis.screen_text)} lines of on-screen text")
    return "".join(f", {p}" for p in parts)


def cmd_identities(args: argparse.Namespace) -> int:
    """Identities over the videos as one set: a table, and each identity's face as a JPEG."""
    from ..pipeline.stages.identities import assign_identities, exemplar_image

    try:
        faces_on = "faces" in parse_engines(args.engines)
    except argparse.ArgumentTypeError as exc:
        print_error(str(exc))
        return EXIT_USAGE
    if not faces_on:
        print_error("the faces capability is switched off (--engines faces=none)")
        return EXIT_USAGE
    done = analyze_all(args, outputs=False)
    if done is None:
        return EXIT_USAGE
    good = [(video, a) for video, _, a in done if a is not None]
    analyses = assign_identities([a for _, a in good], _cluster_distance([a for _, a in good])) if good else []
    rows: dict[str, dict] = {}
    for (video, _), analysis in zip(good, analyses):
        for identity in analysis.identities:
            row = rows.setdefault(identity.id, {"id": identity.id, "name": identity.name, "appearances": []})
            row["name"] = row["name"] or identity.name
            row["appearances"] += [{"video": str(video), "start": a.start, "end": a.end} for a in identity.appearances]
            if args.crops and "crop" not in row and identity.exemplar is not None:
                folder = Path(args.crops)
                folder.mkdir(parents=True, exist_ok=True)
                row["crop"] = str(folder / f"{identity.id}.jpg")
                exemplar_image(analysis, identity.exemplar, Path(row["crop"]))
    ordered = sorted(rows.values(), key=lambda r: int(r["id"][1:]))
    if args.json:
        print(json.dumps(ordered, indent=2, ensure_ascii=False))
    else:
        if not ordered:
            print("no identities (no faces found)")
        for row in ordered:
            label = row["id"] + (f" ({row['name']})" if row["name"] else "")
            seen = sum(a["end"] - a["start"] for a in row["appearances"])
            print(f"{label}: on screen {seen:.1f} s" + (f", face: {row['crop']}" if "crop" in row else ""))
            for video in dict.fromkeys(a["video"] for a in row["appearances"]):
                spans = ", ".join(f"{a['start']:.1f}-{a['end']:.1f}" for a in row["appearances"] if a["video"] == video)
                print(f"    {video}: {spans}")
    return EXIT_ERROR if len(good) < len(done) else 0


def cmd_info(args: argparse.Namespace) -> int:
    from ..media import probe

    status = 0
    for video in args.videos:
        try:
            info = probe(video)
        except VideoReviewError as exc:
            print_error(str(exc))
            status = EXIT_ERROR
            continue
        if args.json:
            print(json.dumps(info.to_dict(), indent=2, ensure_ascii=False))
            continue
        rows = [
            ("file", info.path),
            ("container", info.container),
            ("codec", info.codec),
            ("size", f"{info.width}x{info.height}" + (f" (rotated {info.rotation}°)" if info.rotation else "")),
            ("duration", f"{info.duration:.3f} s"),
            ("frames", f"{info.frame_count} decodable" + (
                f" (header says {info.header_frame_count})"
                if info.header_frame_count not in (None, info.frame_count) else "")),
            ("fps", f"{info.fps:.3f}" + (" (variable)" if info.variable_frame_rate else "")),
            ("audio", "yes" if info.has_audio else "no"),
        ]
        for key, value in rows:
            print(f"{key:>9}: {value}")
    return status


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"--speed wants a number above 0 (times realtime), not {text!r}")
    return value


def add_parsers(sub) -> None:
    p = sub.add_parser("analyze", help="analyse videos and write their Analysis JSON")
    p.add_argument("videos", nargs="+", metavar="VIDEO")
    p.add_argument("-o", "--output", help="output file (one video), folder (several), or - for stdout; "
                                          "default: ./NAME.analysis.json")
    p.add_argument("--engines", action="append", metavar="CAP=NAME[,CAP=NAME]",
                   help="engine per capability, e.g. boundaries=builtin; NAME 'none' skips the capability")
    p.add_argument("--no-cache", action="store_true", help="recompute every stage")
    p.add_argument("--backend", choices=["auto", "decord", "pyav"], default="auto", help="video decoder")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument("--videoset", action="store_true",
                   help="the videos are one set (clips of one film): identities P1, P2, ... are shared")
    p.add_argument("--plan", action="store_true", help="print each video's plan and budget, analyse nothing")
    p.add_argument("--speed", type=_speed, metavar="X",
                   help="a budget: take at most the video's length / X (stages that may go coarser sample less)")
    p.set_defaults(run=cmd_analyze)

    p = sub.add_parser("identities", help="people in a set of videos: P1, P2, ... with their times and faces")
    p.add_argument("videos", nargs="+", metavar="VIDEO")
    p.add_argument("--crops", metavar="DIR", help="write each identity's face to DIR/P1.jpg, ...")
    p.add_argument("--engines", action="append", metavar="CAP=NAME[,CAP=NAME]",
                   help="e.g. faces=dlib-cnn (slower, finds more turned and smaller faces)")
    p.add_argument("--no-cache", action="store_true", help="recompute every stage")
    p.add_argument("--backend", choices=["auto", "decord", "pyav"], default="auto", help="video decoder")
    p.add_argument("--json", action="store_true")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=cmd_identities)

    p = sub.add_parser("info", help="print what the probe finds in videos")
    p.add_argument("videos", nargs="+", metavar="VIDEO")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_info)
