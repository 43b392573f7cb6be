"""Body poses: people's keypoints (MoveNet multipose, movenet.py) and what they tell of what
each is doing (status.py)."""
