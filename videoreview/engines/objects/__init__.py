"""Objects: COCO object detection (NanoDet, MobileNetV3 CenterNet), and the decoding of
the TF.js-converted models' outputs (decode.py, which MoveNet's shares)."""
