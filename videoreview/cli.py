"""The command line: the same jobs as the window, without one.

Errors a user can cause (bad file, bad JSON) print one line naming the file and the
problem and exit non-zero; nothing else is touched.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import __version__
from .errors import Cancelled, VideoReviewError

EXIT_ERROR = 1
EXIT_USAGE = 2

PLANNED = {
    "gui": "the desktop window",
    "summarize": "keyframe summaries and exports",
    "visil": "ViSIL summary scores",
    "library": "the searchable library",
    "models": "the model manager",
}


def _error(message: str) -> None:
    print(f"videoreview: error: {message}", file=sys.stderr)


def _parse_engines(values: list[str] | None) -> dict[str, str]:
    from .pipeline import DEFAULT_ENGINES

    engines = dict(DEFAULT_ENGINES)
    for value in values or []:
        for item in value.split(","):
            capability, sep, name = item.partition("=")
            if not sep or not capability or not name:
                raise argparse.ArgumentTypeError(f"--engines expects CAPABILITY=NAME, got {item!r}")
            if name == "none":
                engines.pop(capability, None)
            else:
                engines[capability] = name
    return engines


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


def cmd_analyze(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from .pipeline import CancelToken, StageCache, analyze, build_stages
    from .records import Analysis

    try:
        engines = _parse_engines(args.engines)
        stages = build_stages(engines)
    except (argparse.ArgumentTypeError, KeyError) as exc:
        _error(str(exc).strip("'\""))
        return EXIT_USAGE
    many = len(args.videos) > 1
    if many and args.output not in (None, "-"):
        Path(args.output).mkdir(parents=True, exist_ok=True)
    cache = StageCache()
    failures = 0
    for video in map(Path, args.videos):
        out = _output_path(video, args.output, many)
        previous = None
        if out is not None and out.exists():
            try:
                previous = Analysis.load(out)  # keeps the reviewer's edits across re-runs
            except VideoReviewError:
                previous = None
        bar = tqdm(total=100, desc=video.name, unit="%", file=sys.stderr, disable=args.quiet,
                   bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining} {postfix}")
        names = ["probe"] + [s.name for s in stages]

        def progress(stage: str, fraction: float, message: str) -> None:
            done = (names.index(stage) + max(0.0, min(1.0, fraction))) / len(names) * 100
            bar.n = round(done, 1)
            bar.set_postfix_str(f"{stage}: {message}" if message else stage, refresh=False)
            bar.refresh()

        try:
            analysis = analyze(video, progress=progress, cancel=CancelToken(), cache=cache,
                               use_cache=not args.no_cache, backend=args.backend, previous=previous,
                               stages=stages)
        except VideoReviewError as exc:
            bar.close()
            _error(str(exc))
            failures += 1
            continue
        bar.n = 100
        bar.close()
        if out is None:
            print(analysis.to_json())
        else:
            analysis.save(out)
            if not args.quiet:
                kinds = {k: sum(b.kind == k for b in analysis.boundaries) for k in ("cut", "gradual", "event")}
                print(f"{out}: {len(analysis.boundaries)} boundaries "
                      f"({kinds['cut']} cuts, {kinds['gradual']} gradual, {kinds['event']} events)", file=sys.stderr)
    return EXIT_ERROR if failures else 0


def cmd_info(args: argparse.Namespace) -> int:
    from .media import probe

    status = 0
    for video in args.videos:
        try:
            info = probe(video)
        except VideoReviewError as exc:
            _error(str(exc))
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


def _times_from_json(path: str, kinds: set[str] | None) -> list[float]:
    """Boundary times from an Analysis JSON, {"boundaries": [...]}, or a plain list of seconds."""
    from .errors import RecordError

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RecordError(path, "file not found") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise RecordError(path, f"not valid JSON ({exc})") from None
    items = data.get("boundaries") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise RecordError(path, "expected a list of boundary times or an object with 'boundaries'")
    times = []
    for item in items:
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            times.append(float(item))
        elif isinstance(item, dict) and isinstance(item.get("time"), (int, float)):
            if kinds is None or item.get("kind", "event") in kinds:
                times.append(float(item["time"]))
        else:
            raise RecordError(path, f"boundary {item!r} has no numeric 'time'")
    return times


def cmd_eval(args: argparse.Namespace) -> int:
    if args.task != "boundaries":
        _error(f"eval {args.task} is not yet available")
        return EXIT_USAGE
    from .metrics.boundaries import TOLERANCES, boundary_f1

    kinds = set(args.kind.split(",")) if args.kind else None
    try:
        predicted = _times_from_json(args.predicted, kinds)
        truth = _times_from_json(args.truth, kinds)
    except VideoReviewError as exc:
        _error(str(exc))
        return EXIT_ERROR
    tolerances = [float(t) for t in args.tolerances.split(",")] if args.tolerances else list(TOLERANCES)
    scores, average = boundary_f1(predicted, truth, tolerances)
    if args.json:
        print(json.dumps({"predicted": len(predicted), "truth": len(truth), "average_f1": average,
                          "scores": [s.__dict__ for s in scores]}, indent=2))
        return 0
    print(f"{len(predicted)} predicted, {len(truth)} true boundaries")
    print(f"{'tol (s)':>8} {'precision':>9} {'recall':>7} {'F1':>6}")
    for s in scores:
        print(f"{s.tolerance:>8.1f} {s.precision:>9.3f} {s.recall:>7.3f} {s.f1:>6.3f}")
    print(f"{'average':>8} {'':>9} {'':>7} {average:>6.3f}")
    return 0


def _planned(name: str):
    def run(args: argparse.Namespace) -> int:
        _error(f"'videoreview {name}' ({PLANNED[name]}) is not yet available in this version")
        return EXIT_USAGE

    return run


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="videoreview", description="Review videos with local models.")
    parser.add_argument("--version", action="version", version=f"videoreview {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("analyze", help="analyse videos and write their Analysis JSON")
    p.add_argument("videos", nargs="+", metavar="VIDEO")
    p.add_argument("-o", "--output", help="output file (one video), folder (several), or - for stdout; "
                                          "default: ./NAME.analysis.json")
    p.add_argument("--engines", action="append", metavar="CAP=NAME[,CAP=NAME]",
                   help="engine per capability, e.g. boundaries=builtin; NAME 'none' skips the capability")
    p.add_argument("--no-cache", action="store_true", help="recompute every stage")
    p.add_argument("--backend", choices=["auto", "decord", "pyav"], default="auto", help="video decoder")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=cmd_analyze)

    p = sub.add_parser("info", help="print what the probe finds in videos")
    p.add_argument("videos", nargs="+", metavar="VIDEO")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_info)

    p = sub.add_parser("eval", help="score predictions against ground truth")
    p.add_argument("task", choices=["boundaries", "captions", "identities", "retrieval"])
    p.add_argument("predicted", metavar="PRED.json")
    p.add_argument("truth", metavar="TRUTH.json")
    p.add_argument("--kind", help="only these boundary kinds, e.g. cut,gradual")
    p.add_argument("--tolerances", help="comma-separated seconds (default: 0.1,0.2,0.5,1,1.5,2,2.5,3)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_eval)

    for name, what in PLANNED.items():
        p = sub.add_parser(name, help=f"{what} (not yet available)")
        p.add_argument("args", nargs=argparse.REMAINDER)
        p.set_defaults(run=_planned(name))
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 0
    try:
        return args.run(args)
    except Cancelled:
        _error("cancelled")
        return 130
    except KeyboardInterrupt:
        _error("interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
