"""`videoreview transcribe`: what is said in a video, as text, subtitles or JSON."""

from __future__ import annotations

import argparse
import json
import sys

from .common import EXIT_ERROR, add_analysis_options


def cmd_transcribe(args: argparse.Namespace) -> int:
    from ..summary.export import speech_cues, srt_text, vtt_text
    from .analyze import one_analysis

    # Speech only, unless the speakers are wanted: then the faces (within shots) too.
    choice = args.model or _chosen_speech()
    engines = [f"boundaries=none,captions=none,screen-text=none,speech={choice}"]
    if not args.speakers:
        engines.append("faces=none")
    analysis = one_analysis(args, engines + (args.engines or []))
    if analysis is None:
        return EXIT_ERROR
    if analysis.speech is not None and analysis.speech.audio != "speech":
        what = {"none": "has no audio stream", "silent": "is silent", "no speech": "has sound but no speech"}
        print(f"videoreview: {args.video} {what.get(analysis.speech.audio, analysis.speech.audio)}", file=sys.stderr)
    if analysis.speech is not None and analysis.speech.note:
        print(f"videoreview: notice: {analysis.speech.note}", file=sys.stderr)
    if args.srt or args.vtt:
        text = (srt_text if args.srt else vtt_text)(speech_cues(analysis))
    elif args.json:
        text = json.dumps({"video": analysis.video.path, "speech": analysis.speech and analysis.speech.to_dict(),
                           "transcript": [s.to_dict() for s in analysis.transcript]}, indent=2, ensure_ascii=False)
    else:
        text = "\n".join(_line(analysis, s) for s in analysis.transcript)
    if args.output in (None, "-"):
        print(text)
    else:
        from pathlib import Path

        from ..records import write_atomic

        write_atomic(Path(args.output), (text.rstrip("\n") + "\n").encode("utf-8"))
    return 0


def _chosen_speech() -> str:
    from .common import chosen

    name = chosen().names["speech"]
    return "whisper-base" if name == "none" else name  # asked to transcribe: switched off means the default


def _line(analysis, segment) -> str:
    from ..timecode import format_time

    who = f"{analysis.person_name(segment.speaker)}: " if segment.speaker else ""
    fps = analysis.video.fps
    return f"[{format_time(segment.start, fps)} - {format_time(segment.end, fps)}] {who}{segment.text}"


def add_parsers(sub) -> None:
    p = sub.add_parser("transcribe", help="what is said in a video (text, SRT, WebVTT or JSON)")
    p.add_argument("video", metavar="VIDEO")
    form = p.add_mutually_exclusive_group()
    form.add_argument("--srt", action="store_true", help="SRT subtitles, a cue per phrase")
    form.add_argument("--vtt", action="store_true", help="WebVTT subtitles")
    form.add_argument("--json", action="store_true", help="segments with their words and times")
    p.add_argument("-o", "--output", metavar="FILE", help="write here (default: standard output)")
    p.add_argument("--model", help="a speech engine: whisper-base (default), whisper-tiny.en, a pulled "
                                   "Whisper (videoreview models list) or a CTranslate2 model folder")
    p.add_argument("--speakers", action="store_true",
                   help="also find faces, to say who speaks where one person is on screen alone")
    add_analysis_options(p)
    p.set_defaults(run=cmd_transcribe)
