"""LiteRT (TensorFlow Lite) interpreters for the small MediaPipe models."""

from __future__ import annotations

import os
import sys


def interpreter(model: bytes, threads: int = 1):
    """A ready interpreter for a .tflite model's bytes, with the XNNPACK delegate (3x the
    speed of the plain kernels on BlazeFace here). Making it prints "INFO: Created
    TensorFlow Lite XNNPACK delegate for CPU." on the process's stderr, which the
    command line keeps for one line per problem: that file descriptor is pointed at
    /dev/null meanwhile."""
    from ai_edge_litert.interpreter import Interpreter

    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
            made = Interpreter(model_content=model, num_threads=threads)
            made.allocate_tensors()  # where the delegate is made
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    return made
