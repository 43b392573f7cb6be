"""The command line: the same jobs as the window, without one.

Errors a user can cause (bad file, bad JSON) print one line naming the file and the
problem and exit non-zero; nothing else is touched.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from pathlib import Path

from .errors import Cancelled, VideoReviewError
from .records import read_json

EXIT_ERROR = 1
EXIT_USAGE = 2

PLANNED: dict[str, str] = {}  # commands named in the help before they exist


def print_error(message: str) -> None:
    print(f"videoreview: error: {message}", file=sys.stderr)


@functools.cache
def _chosen():
    """The engines chosen in the preferences (see preferences.py), each notice about a
    chosen model that cannot be used printed once."""
    from .preferences import choose

    return choose(lambda text: print(f"videoreview: notice: {text}", file=sys.stderr))


def _parse_engines(values: list[str] | None) -> dict[str, str]:
    """The chosen engines with ``--engines CAP=NAME`` overrides (an explicit choice has no fallback)."""
    engines = _chosen().analysis_engines()
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


def _analyze_each(args: argparse.Namespace, outputs: bool):
    """Analyse every video of ``args.videos`` with a progress bar each. Yields
    (video, output path or None, Analysis or None when the video failed, with its error printed)."""
    from tqdm import tqdm

    from .pipeline import CancelToken, StageCache, analyze, build_stages
    from .pipeline.child import saved_analysis
    from .records import Analysis

    stages = build_stages(_parse_engines(args.engines))
    many = len(args.videos) > 1
    if outputs and many and args.output not in (None, "-"):
        Path(args.output).mkdir(parents=True, exist_ok=True)
    cache = StageCache()
    for video in map(Path, args.videos):
        out = _output_path(video, args.output, many) if outputs else None
        previous = None
        if out is not None and out.exists():
            try:
                previous = Analysis.load(out)  # keeps the reviewer's edits across re-runs
            except VideoReviewError:
                previous = None
        if previous is None:
            previous = saved_analysis(str(video))  # ...or those made in the window
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
            print_error(str(exc))
            yield video, out, None
            continue
        bar.n = 100
        bar.close()
        yield video, out, analysis


def _analyze_all(args: argparse.Namespace, outputs: bool):
    """Everything _analyze_each yields, or None (the error printed) when --engines is wrong
    or names a model folder that will not load."""
    from .errors import ModelError

    try:
        return list(_analyze_each(args, outputs))
    except (argparse.ArgumentTypeError, KeyError, ModelError) as exc:
        print_error(str(exc).strip("'\""))
        return None


def _cluster_distance(analyses) -> float:
    """The face engine's clustering distance for analyses made with it (at least one)."""
    from .engines.faces import cluster_distance

    return cluster_distance(analyses[0].engines.get("faces", ""))


def cmd_analyze(args: argparse.Namespace) -> int:
    done = _analyze_all(args, outputs=True)
    if done is None:
        return EXIT_USAGE
    good = [(video, out, a) for video, out, a in done if a is not None]
    if args.videoset and good and "faces" in good[0][2].engines:
        from .pipeline.identities import assign_identities

        shared = assign_identities([a for _, _, a in good], _cluster_distance([a for _, _, a in good]))
        good = [(video, out, a) for (video, out, _), a in zip(good, shared)]
    for video, out, analysis in good:
        if out is None:
            print(analysis.to_json())
            continue
        analysis.save(out)
        if not args.quiet:
            kinds = {k: sum(b.kind == k for b in analysis.boundaries) for k in ("cut", "gradual", "event")}
            print(f"{out}: {len(analysis.boundaries)} boundaries "
                  f"({kinds['cut']} cuts, {kinds['gradual']} gradual, {kinds['event']} events), "
                  f"{len(analysis.faces)} faces, {len(analysis.identities)} identities", file=sys.stderr)
    return EXIT_ERROR if len(good) < len(done) else 0


def cmd_identities(args: argparse.Namespace) -> int:
    """Identities over the videos as one set: a table, and each identity's face as a JPEG."""
    from .pipeline.identities import assign_identities, exemplar_image

    args.output = None
    try:
        faces_on = "faces" in _parse_engines(args.engines)
    except argparse.ArgumentTypeError as exc:
        print_error(str(exc))
        return EXIT_USAGE
    if not faces_on:
        print_error("the faces capability is switched off (--engines faces=none)")
        return EXIT_USAGE
    done = _analyze_all(args, outputs=False)
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
    from .media import probe

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


def _times_from_json(path: str, kinds: set[str] | None) -> list[float]:
    """Boundary times from an Analysis JSON, {"boundaries": [...]}, or a plain list of seconds."""
    from .errors import RecordError

    data = read_json(path)
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


def _faces_from_json(path: str) -> list[tuple[int, tuple, str | None]]:
    """(frame, box, identity) of each face in an Analysis JSON or {"faces": [...]} whose
    faces have frame, box [x, y, w, h] and "identity" (or "person")."""
    from .errors import RecordError

    data = read_json(path)
    items = data.get("faces") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise RecordError(path, "expected an object with a 'faces' list")
    faces = []
    for n, item in enumerate(items):
        try:
            box = tuple(float(v) for v in item["box"])
            label = item.get("identity", item.get("person"))
            faces.append((int(item["frame"]), box, None if label is None else str(label)))
        except (KeyError, TypeError, ValueError, AttributeError):
            raise RecordError(path, f"face {n} needs 'frame', 'box' [x, y, w, h] and 'identity' or 'person'") from None
        if len(box) != 4:
            raise RecordError(path, f"face {n}: box must be [x, y, w, h]")
    return faces


def _caption_sets_from_json(path: str) -> list[list[str | None]]:
    """FITB blanks: a list of caption sets, each the ids of its blanks in order (or
    {"caption_sets": [...]}); a caption set may also be a list of captions' id lists."""
    from .errors import RecordError

    data = read_json(path)
    sets = data.get("caption_sets") if isinstance(data, dict) else data
    if not isinstance(sets, list) or not all(isinstance(x, list) for x in sets):
        raise RecordError(path, "expected a list of caption sets (lists of ids) or {'caption_sets': [...]}")
    flat = []
    for caption_set in sets:
        ids = [i for item in caption_set for i in (item if isinstance(item, list) else [item])]
        if not all(i is None or isinstance(i, str) for i in ids):
            raise RecordError(path, "ids must be strings (or null for an unfilled blank)")
        flat.append(ids)
    return flat


def _caption_truth(path: str) -> dict:
    """{"progression": [{"first": s, "second": s, "label": bool}], "matching": [[s, ...]],
    "distinct": [bool per adjacent caption pair]}: times in seconds; every part optional."""
    from .errors import RecordError

    data = read_json(path)
    if not isinstance(data, dict) or not {"progression", "matching", "distinct"} & set(data):
        raise RecordError(path, "expected an object with 'progression', 'matching' and/or 'distinct'")
    try:
        pairs = [(float(p["first"]), float(p["second"]), bool(p["label"])) for p in data.get("progression", [])]
        sequences = [[float(t) for t in seq] for seq in data.get("matching", [])]
        distinct = data.get("distinct")
        distinct = None if distinct is None else [bool(d) for d in distinct]
    except (TypeError, KeyError, ValueError) as exc:
        raise RecordError(path, f"malformed caption labels ({type(exc).__name__}: {exc})") from None
    return {"progression": pairs, "matching": sequences, "distinct": distinct}


def _eval_captions(args: argparse.Namespace) -> int:
    """ProgressCaptioner's checks on an Analysis's captions, judged by the builtin lexical
    stand-in or a VLM (--judge vlm:FOLDER); caption matching needs a VLM and the video."""
    import numpy as np

    from .engines import base, captions as caption_engines
    from .metrics.captions import caption_diversity, caption_matching, progression_detection, text_change_judge
    from .records import Analysis

    try:
        analysis = Analysis.load(args.predicted)
        truth = _caption_truth(args.truth)
        if not analysis.captions:
            raise VideoReviewError(f"{args.predicted}: no captions")
        times = np.array([c.time for c in analysis.captions])

        def caption_at(time: float):
            return analysis.captions[int(np.argmin(np.abs(times - time)))]

        judge = None
        if args.judge != "builtin":
            caption_engines.register_builtin()
            judge = base.create("captions", args.judge)
        report: dict = {"captions": len(analysis.captions), "judge": judge.name if judge else "builtin (lexical)"}
        report["diversity"] = caption_diversity(analysis.captions, truth["distinct"]).to_dict()
        if truth["progression"]:
            pairs = [(caption_at(a).text, caption_at(b).text, label) for a, b, label in truth["progression"]]
            report["progression"] = progression_detection(pairs, judge.progression if judge else text_change_judge
                                                          ).to_dict()
        if truth["matching"]:
            if judge is None:
                report["matching"] = "skipped: caption matching needs a VLM judge (--judge vlm:FOLDER)"
            else:
                from .media import open_video

                with open_video(args.video or analysis.video.path) as source:
                    sequences = []
                    for seq in truth["matching"]:
                        chosen = [caption_at(t) for t in seq]
                        frames = source.frames_at_indices([c.frame for c in chosen]).frames
                        sequences.append((list(frames), [c.text for c in chosen]))
                report["matching"] = caption_matching(sequences, judge.match).to_dict()
    except (VideoReviewError, KeyError) as exc:
        print_error(str(exc).strip("'\""))
        return EXIT_ERROR
    except ValueError as exc:
        print_error(f"{args.truth}: {exc}")
        return EXIT_ERROR
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    def rate(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.3f}"

    print(f"{report['captions']} captions; judge: {report['judge']}")
    d = report["diversity"]
    print(f"diversity: {d['unique']} distinct texts of {d['captions']}; identical captions on distinct "
          f"adjacent frames: {d['identical']}/{d['pairs']} ({rate(d['identical_rate'])})")
    if "progression" in report:
        p = report["progression"]
        print(f"progression detection: balanced accuracy {p['balanced_accuracy']:.3f} "
              f"(TPR {rate(p['tpr'])}, TNR {rate(p['tnr'])}, {p['n']} pairs, {p['uncertain']} uncertain)")
    if isinstance(report.get("matching"), str):
        print(f"caption matching: {report['matching']}")
    elif "matching" in report:
        m = report["matching"]
        print(f"caption matching: sequence accuracy {m['sequence_accuracy']:.3f}, frame accuracy "
              f"{m['frame_accuracy']:.3f} ({m['n_sequences']} sequences, {m['n_frames']} frames)")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    if args.task == "retrieval":
        return _eval_retrieval(args)
    if args.truth is None:
        print_error(f"eval {args.task} needs PRED.json and TRUTH.json")
        return EXIT_USAGE
    if args.task == "identities":
        return _eval_identities(args)
    if args.task == "captions":
        return _eval_captions(args)
    if args.task == "fitb":
        return _eval_fitb(args)
    from .metrics.boundaries import TOLERANCES, boundary_f1

    kinds = set(args.kind.split(",")) if args.kind else None
    try:
        predicted = _times_from_json(args.predicted, kinds)
        truth = _times_from_json(args.truth, kinds)
    except VideoReviewError as exc:
        print_error(str(exc))
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


def _eval_retrieval(args: argparse.Namespace) -> int:
    """The library's search on a query file: R@1/5/10, mAP, ReBias, grounding F1."""
    from .library.catalog import Catalog
    from .library.evaluate import evaluate, load_queries
    from .library.indexer import text_embedder
    from .library.search import Searcher
    from .metrics.boundaries import TOLERANCES

    if args.truth is not None:
        print_error("eval retrieval takes one file: QUERIES.json (it searches the library)")
        return EXIT_USAGE
    tolerances = [float(t) for t in args.tolerances.split(",")] if args.tolerances else list(TOLERANCES)
    try:
        queries = load_queries(args.predicted)
        with Catalog(readonly=True) as catalog:
            report = evaluate(catalog, Searcher(catalog, text_embedder()), queries, args.predicted, tolerances)
    except VideoReviewError as exc:
        print_error(str(exc))
        return EXIT_ERROR
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    recall = "  ".join(f"{k} {v:.3f}" for k, v in report["recall"].items())
    print(f"{report['queries']} queries: {recall}  mAP {report['mAP']:.3f}")
    for name in ("spatial", "temporal"):
        if name in report:
            part = "  ".join(f"{k} {v:.3f}" for k, v in report[name]["recall"].items())
            print(f"  {name} ({report[name]['queries']}): {part}")
    if "ReBias" in report:
        print(f"ReBias {report['ReBias']:.3f} (|1 - R_temporal / R_spatial|, 0 is unbiased)")
    if "grounding" in report:
        g = report["grounding"]
        print(f"grounding ({g['queries']} queries) F1: " + "  ".join(f"{t} s {f:.3f}" for t, f in g["f1"].items())
              + f"  average {g['average_f1']:.3f}")
    return 0


def _eval_identities(args: argparse.Namespace) -> int:
    """B-cubed over the true faces: each takes the identity of the predicted face at its
    frame overlapping it most (IoU >= 0.5), or none when the detector missed it."""
    from .engines.faces.tracking import iou
    from .metrics.identities import bcubed

    try:
        predicted = _faces_from_json(args.predicted)
        truth = _faces_from_json(args.truth)
    except VideoReviewError as exc:
        print_error(str(exc))
        return EXIT_ERROR
    by_frame: dict[int, list] = {}
    for frame, box, label in predicted:
        by_frame.setdefault(frame, []).append((box, label))
    pred, true = {}, {}
    for n, (frame, box, label) in enumerate(truth):
        if label is None:
            continue
        true[n] = label
        overlaps = [(iou(box, pbox), plabel) for pbox, plabel in by_frame.get(frame, [])]
        best = max(overlaps, default=(0.0, None), key=lambda o: o[0])
        pred[n] = best[1] if best[0] >= 0.5 else None
    if not true:
        print_error(f"{args.truth}: no labelled faces")
        return EXIT_ERROR
    score = bcubed(pred, true)
    if args.json:
        print(json.dumps(score.__dict__, indent=2))
    else:
        print(f"{len(true)} true faces; identities found {score.found}, true {score.true}; "
              f"faces unassigned or missed {score.unassigned}")
        print(f"B-cubed precision {score.precision:.3f} recall {score.recall:.3f} F1 {score.f1:.3f}")
    return 0


def _eval_fitb(args: argparse.Namespace) -> int:
    from .metrics.identities import fitb_pairs

    try:
        score = fitb_pairs(_caption_sets_from_json(args.predicted), _caption_sets_from_json(args.truth))
    except VideoReviewError as exc:
        print_error(str(exc))
        return EXIT_ERROR
    except ValueError as exc:
        print_error(f"{args.predicted}: {exc}")
        return EXIT_ERROR
    if args.json:
        print(json.dumps(score.__dict__, indent=2))
    else:
        print(f"pairs of blanks: {score.same_pairs} same person, {score.diff_pairs} different")
        print(f"Same-acc {score.same_acc:.3f}  Diff-acc {score.diff_acc:.3f}  "
              f"Inst-acc {score.inst_acc:.3f}  Class-acc {score.class_acc:.3f}")
    return 0


def _one_analysis(args: argparse.Namespace):
    """The Analysis of ``args.video`` (cached stages are reused, a reviewer's edits kept), or None."""
    args.videos, args.output = [args.video], None
    results = _analyze_all(args, outputs=False)
    return results[0][2] if results else None


def _summaries_for(analysis, formats: list[str], writer_spec: str | None = None, quiet: bool = True):
    """The summaries named by ``formats`` ("text" or a number of keyframes): a reviewer's
    edited one of that format as it is; the others written by ``writer_spec`` ("builtin",
    a catalog model or a VLM folder), or with None the saved one of that format (from the
    window, say), else the chosen writer's (see preferences.py)."""
    from .errors import ModelError
    from .summary.builder import build
    from .summary.compare import format_label
    from .summary.writer import load_writer

    for fmt in formats:
        if fmt != "text" and not (fmt.isdigit() and int(fmt) > 0):
            raise argparse.ArgumentTypeError(f"--summaries expects 'text' or a number of keyframes, got {fmt!r}")
    saved = {format_label(s): s for s in analysis.summaries if s.edited or writer_spec is None}
    written: dict[str, object] = {}
    todo = [fmt for fmt in dict.fromkeys(formats) if fmt not in saved]
    if todo:
        if writer_spec not in (None, "builtin") and not quiet:
            print(f"summaries: loading {writer_spec}", file=sys.stderr)
        try:
            writer, release = load_writer(writer_spec or _chosen().names["summaries"], analysis.video.path)
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


def _read_reference(path: str):
    from .summary.compare import read_reference

    reference = read_reference(path)
    if not reference.text:
        raise VideoReviewError(f"{path}: the reference description is empty")
    return reference


def _compare(analysis, summaries, scorer_spec: str, reference_file: str | None, quiet: bool):
    from .errors import ModelError
    from .summary.compare import compare, prepare

    def progress(fraction: float, message: str) -> None:
        if not quiet:
            print(f"visil: {message}", file=sys.stderr)

    reference = _read_reference(reference_file) if reference_file else None
    try:
        setup = prepare(analysis, analysis.video.path, scorer_spec, reference, progress)
    except ModelError as exc:
        raise VideoReviewError(str(exc)) from None
    try:
        return compare(summaries, setup.scorer, setup.reference, keywords=setup.keywords, progress=progress)
    finally:
        setup.release()


def _print_comparison(result, analysis) -> None:
    from .summary.builder import keyframe_time
    from .timecode import timecode

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
    analysis = _one_analysis(args)
    if analysis is None:
        return EXIT_ERROR
    try:
        formats = [f.strip() for f in args.summaries.split(",") if f.strip()]
        summaries = _summaries_for(analysis, formats, args.writer, args.quiet)
        result = _compare(analysis, summaries, args.scorer or _chosen().names["scoring"], args.reference,
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
    from .pipeline import store
    from .summary import export
    from .summary.builder import keyframe_time, with_summaries
    from .timecode import timecode

    analysis = _one_analysis(args)
    if analysis is None:
        return EXIT_ERROR
    formats = ["text", "1", "3"] + ([str(args.keyframes)] if args.keyframes not in (1, 3) else [])
    try:
        summaries = _summaries_for(analysis, formats, args.writer, args.quiet)
    except argparse.ArgumentTypeError as exc:
        print_error(str(exc))
        return EXIT_USAGE
    except VideoReviewError as exc:
        print_error(str(exc))
        return EXIT_ERROR
    analysis = with_summaries(analysis, summaries)
    store.save(analysis)  # the window shows them, and edits made there are kept
    main = summaries[formats.index(str(args.keyframes))] if args.keyframes else summaries[0]
    print(main.text)
    for n, frame in enumerate(main.keyframe_frames, 1):
        print(f"[KEYFRAME{n}] {timecode(keyframe_time(analysis, frame), analysis.video.fps)} (frame {frame})")
    comparison = None
    if args.pdf and args.scorer != "none":
        try:
            comparison = _compare(analysis, summaries, args.scorer or _chosen().names["scoring"], None, args.quiet)
        except (VideoReviewError, ValueError) as exc:
            print_error(f"the PDF goes without its ViSIL table: {exc}")
    writers = [(args.json, lambda p: export.write_json(analysis, p)),
               (args.srt, lambda p: export.write_srt(_cues(analysis, args.subtitles), p)),
               (args.vtt, lambda p: export.write_vtt(_cues(analysis, args.subtitles), p)),
               (args.csv, lambda p: export.write_boundaries_csv(analysis, p)),
               (args.otio, lambda p: export.write_otio(analysis, p)),
               (args.pdf, lambda p: _write_pdf(analysis, p, main, comparison))]
    for path, write in writers:
        if not path:
            continue
        try:
            write(path)
        except (OSError, ValueError) as exc:
            print_error(f"{path}: cannot be written ({getattr(exc, 'strerror', None) or exc})")
            return EXIT_ERROR
        print(f"wrote {path}", file=sys.stderr)
    return 0


def _cues(analysis, which: str):
    from .summary.export import boundary_cues, caption_cues

    return caption_cues(analysis) if which == "captions" else boundary_cues(analysis)


def _write_pdf(analysis, path: str, summary, comparison) -> None:
    from .summary.export import write_pdf

    for warning in write_pdf(analysis, path, video_path=analysis.video.path, summary=summary,
                             comparison=comparison) or []:
        print(f"videoreview: warning: {warning}", file=sys.stderr)


def cmd_gui(args: argparse.Namespace) -> int:
    from .gui.app import run

    return run(args.videos, screenshot=args.screenshot, at=args.at, size=args.size)


def _planned(name: str):
    def run(args: argparse.Namespace) -> int:
        print_error(f"'videoreview {name}' ({PLANNED[name]}) is not yet available in this version")
        return EXIT_USAGE

    return run


WRITER_HELP = ("who writes the summaries' text: builtin (from the analysis) or a VLM (a catalog name or folder; "
               "ViSIL's summary prompt); default: the saved summaries, the chosen writer for the rest")


def _add_analysis_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engines", action="append", metavar="CAP=NAME[,CAP=NAME]", help="as for analyze")
    p.add_argument("--no-cache", action="store_true", help="recompute every stage")
    p.add_argument("--backend", choices=["auto", "decord", "pyav"], default="auto", help="video decoder")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")


class VersionAction(argparse.Action):
    """--version, computed only when asked (it reads the engine choices)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from .about import version_text

        print(version_text())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="videoreview", description="Review videos with local models.")
    parser.add_argument("--version", action=VersionAction, nargs=0,
                        help="show the versions of videoreview, Python, Qt, torch and the chosen engines, and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = sub.choices

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

    p = sub.add_parser("eval", help="score predictions against ground truth")
    p.add_argument("task", choices=["boundaries", "identities", "fitb", "captions", "retrieval"])
    p.add_argument("predicted", metavar="PRED.json", help="(retrieval: QUERIES.json, searched in the library)")
    p.add_argument("truth", metavar="TRUTH.json", nargs="?")
    p.add_argument("--kind", help="only these boundary kinds, e.g. cut,gradual")
    p.add_argument("--tolerances", help="comma-separated seconds (default: 0.1,0.2,0.5,1,1.5,2,2.5,3)")
    p.add_argument("--judge", default="builtin", help="captions: builtin (lexical stand-in) or vlm:FOLDER")
    p.add_argument("--video", help="captions: the video (default: the path in PRED.json)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_eval)

    p = sub.add_parser("summarize", help="keyframe summaries of a video, and exports (PDF, subtitles, markers)")
    p.add_argument("video", metavar="VIDEO")
    p.add_argument("--keyframes", type=int, default=3, metavar="N",
                   help="keyframes in the summary printed and put in the PDF (default 3; 0: text only)")
    p.add_argument("--pdf", metavar="PATH", help="a PDF report")
    p.add_argument("--json", metavar="PATH", help="the Analysis JSON, summaries included")
    p.add_argument("--srt", metavar="PATH", help="SRT subtitles")
    p.add_argument("--vtt", metavar="PATH", help="WebVTT subtitles")
    p.add_argument("--subtitles", choices=["captions", "boundaries"], default="captions",
                   help="what the subtitles say: frame captions or boundary captions")
    p.add_argument("--csv", metavar="PATH", help="a CSV of the boundaries")
    p.add_argument("--otio", metavar="PATH", help="OpenTimelineIO markers for an editor")
    p.add_argument("--scorer", metavar="builtin|MODEL|none",
                   help="the ViSIL scorer for the PDF's comparison table (none: no table; default: the chosen one, "
                        "see 'models use')")
    p.add_argument("--writer", metavar="builtin|MODEL", help=WRITER_HELP)
    _add_analysis_options(p)
    p.set_defaults(run=cmd_summarize)

    p = sub.add_parser("visil", help="compare summaries of a video by ViSIL information loss")
    p.add_argument("video", metavar="VIDEO")
    p.add_argument("--summaries", default="text,1,3", help="formats: text and numbers of keyframes (default text,1,3)")
    p.add_argument("--reference", metavar="FILE", help="the detailed description C (UTF-8 text); default: "
                                                       "the VLM's description, or the builtin captions joined")
    p.add_argument("--scorer", metavar="builtin|MODEL",
                   help="builtin (approximate, no language model) or a VLM (a catalog name or folder); "
                        "default: the chosen one, see 'models use'")
    p.add_argument("--writer", metavar="builtin|MODEL", help=WRITER_HELP)
    p.add_argument("--json", action="store_true", help="a JSON list of {format, visil, tokens, scorer, keyframes, text}")
    _add_analysis_options(p)
    p.set_defaults(run=cmd_visil)

    p = sub.add_parser("gui", help="open the window (the default with no command)")
    p.add_argument("videos", nargs="*", metavar="VIDEO", help="videos or folders to open and analyse")
    p.add_argument("--screenshot", metavar="OUT.png",
                   help="analyse, seek, save the window as a PNG and exit (0 on success)")
    p.add_argument("--at", type=float, default=None, metavar="SECONDS", help="with --screenshot: where to seek")
    p.add_argument("--size", default="1600x1000", metavar="WxH", help="with --screenshot: window size")
    p.set_defaults(run=cmd_gui)

    from .library.cli import add_parser as add_library_parser

    add_library_parser(sub, _parse_engines)
    from .models.cli import add_parser as add_models_parser

    add_models_parser(sub)

    for name, what in PLANNED.items():
        p = sub.add_parser(name, help=f"{what} (not yet available)")
        p.add_argument("args", nargs=argparse.REMAINDER)
        p.set_defaults(run=_planned(name))
    return parser


def main(argv: list[str] | None = None) -> int:
    import multiprocessing

    multiprocessing.freeze_support()  # a frozen (PyInstaller) app starts its analysis processes through here
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] not in parser.commands and not argv[0].startswith("-") and os.path.exists(argv[0]):
        argv = ["gui", *argv]  # "videoreview FILE...": what a desktop's "Open with" runs
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):  # no command: the window, as a double-click would open it
        args = parser.parse_args(["gui"])
    try:
        return args.run(args)
    except Cancelled:
        print_error("cancelled")
        return 130
    except KeyboardInterrupt:
        print_error("interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
