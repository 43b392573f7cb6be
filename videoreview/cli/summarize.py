"""`videoreview summarize` (keyframe summaries and exports) and `visil` (summaries compared
by ViSIL information loss)."""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import VideoReviewError
from .analyze import one_analysis
from .common import EXIT_ERROR, EXIT_USAGE, add_analysis_options, chosen, print_error

WRITER_HELP = ("who writes the summaries' text: builtin (from the analysis), a VLM (a catalog name or folder) or "
               "server:NAME (ViSIL's summary prompt); default: the saved summaries, the chosen writer for the rest")


def _summaries_for(analysis, formats: list[str], writer_spec: str | None = None, quiet: bool = True):
    """The summaries named by ``formats`` ("text" or a number of keyframes): a reviewer's
    edited one of that format as it is; the others written by ``writer_spec`` ("builtin",
    a catalog model or a VLM folder), or with None the saved one of that format (from the
    window, say), else the chosen writer's (see choices.py)."""
    from ..engines.registry import is_builtin
    from ..errors import ModelError
    from ..summary.builder import build
    from ..summary.compare import format_label
    from ..summary.writer import load_writer

    for fmt in formats:
        if fmt != "text" and not (fmt.isdigit() and int(fmt) > 0):
            raise argparse.ArgumentTypeError(f"--summaries expects 'text' or a number of keyframes, got {fmt!r}")
    saved = {format_label(s): s for s in analysis.summaries if s.edited or writer_spec is None}
    written: dict[str, object] = {}
    todo = [fmt for fmt in dict.fromkeys(formats) if fmt not in saved]
    if todo:
        if writer_spec is not None and not is_builtin("summaries", writer_spec) and not quiet:
            print(f"summaries: loading {writer_spec}", file=sys.stderr)
        try:
            writer, release = load_writer(writer_spec or chosen().names["summaries"], analysis.video.path,
                                          chosen().device)
        except ModelError as exc:
            raise VideoReviewError(str(exc)) from None
        try:
            for fmt in todo:
                if writer is not None and not quiet:
                    print(f"summaries: writing '{fmt}' with {writer.name}", file=sys.stderr)
                written[fmt] = (build(analysis, "text", writer=writer) if fmt == "text"
                                else build(analysis, "keyframes+text", int(fmt), writer))
        finally:
            release()
    return [saved.get(fmt) or written[fmt] for fmt in formats]


def _keyframe_count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expects a number of keyframes (0 for text only), got {text!r}")
    return int(text)


def _read_reference(path: str):
    from ..summary.compare import read_reference

    reference = read_reference(path)
    if not reference.text:
        raise VideoReviewError(f"{path}: the reference description is empty")
    return reference


def _compare(analysis, summaries, scorer_spec: str, reference_file: str | None, quiet: bool):
    from ..errors import ModelError
    from ..summary.compare import compare, prepare

    def progress(fraction: float, message: str) -> None:
        if not quiet:
            print(f"visil: {message}", file=sys.stderr)

    reference = _read_reference(reference_file) if reference_file else None
    try:
        setup = prepare(analysis, analysis.video.path, scorer_spec, reference, progress, chosen().device)
    except ModelError as exc:
        raise VideoReviewError(str(exc)) from None
    try:
        return compare(summaries, setup.scorer, setup.reference, keywords=setup.keywords, progress=progress)
    finally:
        setup.release()


def _print_comparison(result, analysis) -> None:
    from ..summary.builder import keyframe_time
    from ..timecode import timecode

    rows = result.rows
    caveat = " (approximate: no language model; compare only with scores from this scorer)" \
        if rows and rows[0].approximate else " (compare only with scores from this scorer)"
    print(f"ViSIL under {result.scorer}{caveat}")
    print(f"reference: {result.reference.origin}; keywords: {', '.join(result.keywords)}")
    print(f"{'format':<8} {'ViSIL':>8} {'tokens':>7}  frontier  keyframes")
    for i, row in enumerate(rows):
        frames = " ".join(timecode(keyframe_time(analysis, f), analysis.video.fps) for f in row.keyframes) or "-"
        print(f"{row.format:<8} {row.visil:8.2f} {row.tokens:7d}  {'*' if i in result.frontier else ' ':^8}  {frames}")
    picks = "; ".join(f"alpha {alpha:g}: {rows[i].format}" for alpha, i in result.choices)
    print(f"lowest ViSIL + alpha * tokens: {picks}")


def cmd_visil(args: argparse.Namespace) -> int:
    analysis = one_analysis(args)
    if analysis is None:
        return EXIT_ERROR
    try:
        formats = [f.strip() for f in args.summaries.split(",") if f.strip()]
        summaries = _summaries_for(analysis, formats, args.writer, args.quiet)
        result = _compare(analysis, summaries, args.scorer or chosen().names["scoring"], args.reference,
                          args.quiet)
    except argparse.ArgumentTypeError as exc:
        print_error(str(exc))
        return EXIT_USAGE
    except (VideoReviewError, ValueError) as exc:
        print_error(str(exc))
        return EXIT_ERROR
    if args.json:
        json.dump([row.to_json() for row in result.rows], sys.stdout, ensure_ascii=False, indent=2)
        print()
    else:
        _print_comparison(result, analysis)
    return 0


def cmd_summarize(args: argparse.Namespace) -> int:
    from ..pipeline import store
    from ..summary.builder import keyframe_time, with_summaries
    from ..summary.export.files import EXPORTS, Options
    from ..timecode import timecode

    analysis = one_analysis(args)
    if analysis is None:
        return EXIT_ERROR
    formats = ["text", "1", "3"] + ([str(args.keyframes)] if args.keyframes not in (0, 1, 3) else [])
    try:
        summaries = _summaries_for(analysis, formats, args.writer, args.quiet)
    except argparse.ArgumentTypeError as exc:
        print_error(str(exc))
        return EXIT_USAGE
    analysis = with_summaries(analysis, summaries)
    store.save(analysis)  # the window shows them, and edits made there are kept
    main = summaries[formats.index(str(args.keyframes))] if args.keyframes else summaries[0]
    print(main.text)
    for n, frame in enumerate(main.keyframe_frames, 1):
        print(f"[KEYFRAME{n}] {timecode(keyframe_time(analysis, frame), analysis.video.fps)} (frame {frame})")
    comparison = None
    if args.pdf and args.scorer != "none":
        try:
            comparison = _compare(analysis, summaries, args.scorer or chosen().names["scoring"], None, args.quiet)
        except (VideoReviewError, ValueError) as exc:
            print_error(f"the PDF goes without its ViSIL table: {exc}")
    options = Options(args.subtitles, analysis.video.path, main, comparison)
    for suffix, export in EXPORTS.items():
        path = getattr(args, suffix[1:])  # --json PATH writes the .json export there, whatever PATH's suffix
        if not path:
            continue
        try:
            warnings = export.write(analysis, path, options) or []
        except (OSError, ValueError) as exc:
            print_error(f"{path}: cannot be written ({getattr(exc, 'strerror', None) or exc})")
            return EXIT_ERROR
        for warning in warnings:
            print(f"videoreview: warning: {warning}", file=sys.stderr)
        print(f"wrote {path}", file=sys.stderr)
    return 0


def add_parsers(sub) -> None:
    from ..summary.export.files import EXPORTS, SUBTITLES

    p = sub.add_parser("summarize", help="keyframe summaries of a video, and exports (PDF, subtitles, markers)")
    p.add_argument("video", metavar="VIDEO")
    p.add_argument("--keyframes", type=_keyframe_count, default=3, metavar="N",
                   help="keyframes in the summary printed and put in the PDF (default 3; 0: text only)")
    for suffix, export in EXPORTS.items():
        p.add_argument(f"--{suffix[1:]}", metavar="PATH", help=export.label)
    p.add_argument("--subtitles", choices=SUBTITLES, default="captions",
                   help="what the subtitles say: frame captions, boundary captions or what is said")
    p.add_argument("--scorer", metavar="builtin|MODEL|none",
                   help="the ViSIL scorer for the PDF's comparison table (none: no table; default: the chosen one, "
                        "see 'models use')")
    p.add_argument("--writer", metavar="builtin|MODEL", help=WRITER_HELP)
    add_analysis_options(p)
    p.set_defaults(run=cmd_summarize)

    p = sub.add_parser("visil", help="compare summaries of a video by ViSIL information loss")
    p.add_argument("video", metavar="VIDEO")
    p.add_argument("--summaries", default="text,1,3", help="formats: text and numbers of keyframes (default text,1,3)")
    p.add_argument("--reference", metavar="FILE", help="the detailed description C (UTF-8 text); default: "
                                                       "the VLM's description, or the builtin captions joined")
    p.add_argument("--scorer", metavar="builtin|MODEL",
                   help="builtin (approximate, no language model), a VLM (a catalog name or folder) or "
                        "server:NAME (a vLLM server); default: the chosen one, see 'models use'")
    p.add_argument("--writer", metavar="builtin|MODEL", help=WRITER_HELP)
    p.add_argument("--json", action="store_true",
                   help="a JSON list of {format, visil, tokens, scorer, keyframes, text}")
    add_analysis_options(p)
    p.set_defaults(run=cmd_visil)
