"""`videoreview eval TASK PRED.json [TRUTH.json]`: boundaries, identities, FITB, captions
and the library's retrieval, scored against ground truth."""

from __future__ import annotations

import argparse
import json

from ..errors import RecordError, VideoReviewError
from ..records import read_json
from .common import EXIT_ERROR, EXIT_USAGE, chosen, print_error


def _times_from_json(path: str, kinds: set[str] | None) -> list[float]:
    """Boundary times from an Analysis JSON, {"boundaries": [...]}, or a plain list of seconds."""
    from ..errors import RecordError

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
    from ..errors import RecordError

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
    from ..errors import RecordError

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
    from ..errors import RecordError

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
    if args.task == "speech":
        return _eval_speech(args)
    if args.task == "captions-sense":
        return _eval_caption_sense(args)
    from ..metrics.boundaries import TOLERANCES, boundary_f1

    kinds = set(args.kind.split(",")) if args.kind else None
    predicted = _times_from_json(args.predicted, kinds)
    truth = _times_from_json(args.truth, kinds)
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


def _eval_captions(args: argparse.Namespace) -> int:
    """ProgressCaptioner's checks on an Analysis's captions, judged by the builtin lexical
    stand-in or a VLM (--judge vlm:FOLDER); caption matching needs a VLM and the video."""
    import numpy as np

    from ..engines import registry
    from ..metrics.captions import caption_diversity, caption_matching, progression_detection, text_change_judge
    from ..records import Analysis

    try:
        analysis = Analysis.load(args.predicted)
        truth = _caption_truth(args.truth)
        if not analysis.captions:
            raise VideoReviewError(f"{args.predicted}: no captions")
        times = np.array([c.time for c in analysis.captions])

        def caption_at(time: float):
            return analysis.captions[int(np.argmin(np.abs(times - time)))]

        judge = None  # the builtin judge is a lexical stand-in, not the builtin captioner
        if args.judge != "builtin":
            judge = registry.create("captions", args.judge, chosen().device)
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
                from ..media import open_video

                with open_video(args.video or analysis.video.path) as source:
                    sequences = []
                    for seq in truth["matching"]:
                        picked = [caption_at(t) for t in seq]
                        frames = source.frames_at_indices([c.frame for c in picked]).frames
                        sequences.append((list(frames), [c.text for c in picked]))
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


def _eval_retrieval(args: argparse.Namespace) -> int:
    """The library's search on a query file: R@1/5/10, mAP, ReBias, grounding F1."""
    from ..library.catalogs import open_catalog
    from ..library.evaluate import evaluate, load_queries
    from ..library.indexer import text_embedder
    from ..library.search import Searcher
    from ..metrics.boundaries import TOLERANCES

    if args.truth is not None:
        print_error("eval retrieval takes one file: QUERIES.json (it searches the library)")
        return EXIT_USAGE
    tolerances = [float(t) for t in args.tolerances.split(",")] if args.tolerances else list(TOLERANCES)
    queries = load_queries(args.predicted)
    with open_catalog(readonly=True) as catalog:
        report = evaluate(catalog, Searcher(catalog, text_embedder()), queries, args.predicted, tolerances)
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
    from ..metrics.identities import bcubed
    from ..tracking import iou

    predicted = _faces_from_json(args.predicted)
    truth = _faces_from_json(args.truth)
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
    from ..metrics.identities import fitb_pairs

    try:
        score = fitb_pairs(_caption_sets_from_json(args.predicted), _caption_sets_from_json(args.truth))
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


def _segments(path: str) -> list[tuple[float, float, str]]:
    """(start, end, text) from SRT / WebVTT, or JSON: an Analysis, ``transcribe --json``
    output, or a list of {start, end, text}."""
    from ..metrics.speech import parse_subtitles

    if path.lower().endswith((".srt", ".vtt")):
        try:
            with open(path, encoding="utf-8-sig") as handle:
                return parse_subtitles(handle.read())
        except (OSError, UnicodeDecodeError) as exc:
            raise RecordError(path, f"cannot be read ({exc})") from None
    data = read_json(path)
    items = data.get("transcript", data.get("segments")) if isinstance(data, dict) else data
    try:
        return [(float(s["start"]), float(s["end"]), str(s["text"])) for s in items]
    except (TypeError, KeyError, ValueError) as exc:
        raise RecordError(path, f"not a transcript: expected segments with start, end and text ({exc})") from None


def _eval_speech(args: argparse.Namespace) -> int:
    """Word error rate (metrics/speech.py says how text is normalised) and how far the
    segments' start and end times are from the reference's."""
    from ..metrics.speech import mean_boundary_error, word_errors

    predicted, truth = _segments(args.predicted), _segments(args.truth)
    score = word_errors(" ".join(t for _, _, t in truth), " ".join(t for _, _, t in predicted))
    timing = mean_boundary_error([(s, e) for s, e, _ in predicted], [(s, e) for s, e, _ in truth])
    if args.json:
        print(json.dumps({"wer": score.wer, "reference_words": score.reference_words,
                          "substitutions": score.substitutions, "deletions": score.deletions,
                          "insertions": score.insertions, "mean_boundary_error": timing}, indent=2))
        return 0
    print(f"WER {score.wer:.3f} ({score.errors} errors in {score.reference_words} words: {score.substitutions} "
          f"substituted, {score.deletions} deleted, {score.insertions} inserted)")
    if timing is not None:
        print(f"segment start/end off by {timing:.2f} s on average")
    return 0


def _eval_caption_sense(args: argparse.Namespace) -> int:
    """Subject named, label churn and false labels of an Analysis's captions against
    hand-written shot labels (metrics/caption_sense.py): LABELS.json is
    {"shots": [{"start", "end", "subject": [words], "also": [words], "known": bool}]}."""
    from ..metrics.caption_sense import score, shot_labels
    from ..records import Analysis

    analysis = Analysis.load(args.predicted)
    data = read_json(args.truth)
    try:
        shots = shot_labels(data)
    except (TypeError, KeyError, ValueError) as exc:
        raise RecordError(args.truth, f"not shot labels: expected {{\"shots\": [{{start, end, subject}}]}} "
                                      f"({type(exc).__name__}: {exc})") from None
    result = score([(c.time, c.text) for c in analysis.captions], shots)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
        return 0

    def share(value: float | None) -> str:
        return "-" if value is None else f"{value:.1%}"

    print(f"{result.captions} captions: subject named {share(result.subject_named)} (where the engine can name it "
          f"{share(result.known_subject_named)}), distinct labels per shot {result.churn_mean:.1f} "
          f"(most {result.churn_max}), false labels {result.false_labels:.1%}")
    return 0


def add_parsers(sub) -> None:
    p = sub.add_parser("eval", help="score predictions against ground truth")
    p.add_argument("task", choices=["boundaries", "identities", "fitb", "captions", "captions-sense", "retrieval",
                                    "speech"])
    p.add_argument("predicted", metavar="PRED.json", help="(retrieval: QUERIES.json, searched in the library)")
    p.add_argument("truth", metavar="TRUTH.json", nargs="?", help="(speech: REF.srt, REF.vtt or REF.json)")
    p.add_argument("--kind", help="only these boundary kinds, e.g. cut,gradual")
    p.add_argument("--tolerances", help="comma-separated seconds (default: 0.1,0.2,0.5,1,1.5,2,2.5,3)")
    p.add_argument("--judge", default="builtin", help="captions: builtin (lexical stand-in) or vlm:FOLDER")
    p.add_argument("--video", help="captions: the video (default: the path in PRED.json)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_eval)
