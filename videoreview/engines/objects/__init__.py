"""Objects and poses: COCO object detection (MobileNetV3 CenterNet) and people's body keypoints (MoveNet multipose)."""
