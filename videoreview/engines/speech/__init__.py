"""Speech engines: what is said in a video, with times (see protocol.py)."""
