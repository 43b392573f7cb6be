"""Exports of an Analysis: subtitles (SRT, WebVTT), a CSV of boundaries, OpenTimelineIO
markers for editors, a PDF report, and the Analysis JSON itself. Every writer goes through
``write_atomic``: a failed export never leaves half a file over an earlier one."""

from .markers import write_otio
from .pdf import write_pdf
from .subtitles import boundary_cues, caption_cues, speech_cues, srt_text, vtt_text, write_srt, write_vtt
from .tables import write_boundaries_csv, write_json

__all__ = ["boundary_cues", "caption_cues", "speech_cues", "srt_text", "vtt_text", "write_srt", "write_vtt",
           "write_boundaries_csv", "write_json", "write_otio", "write_pdf"]
