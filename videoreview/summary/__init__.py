"""Summaries: keyframe selection now; the summary builder, ViSIL and exporters come later."""
