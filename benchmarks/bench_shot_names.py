"""What naming the shots costs with SigLIP 2 base (256 px squares, the image-text model offered
beside a VLM): the vocabulary's prompts embedded once per model, each sampled frame embedded,
and the names of every shot scored (engines/embeddings/naming.py), on this machine.

    .venv/bin/python benchmarks/bench_shot_names.py [--frames 64] [--prompts N]

No weights can be downloaded here, so the model is built at its published size (ViT-B/16
towers, 64-token texts) with random weights, as benchmarks/bench_image_text.py does: speed
does not depend on the values. Timed: the vocabulary's text embeddings (``--prompts`` of
resources/vocabulary/things.tsv, all by default; the figure for all is scaled from the
prompts timed when fewer are asked for) and reading them back from disk; frames decoded at
the captions stage's size (short side 224) and embedded, after one untimed warm-up batch;
scoring 600 sampled frames (10 minutes of video) in 100 shots against the whole vocabulary
(random unit vectors standing in for the prompts not embedded).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=64)
    parser.add_argument("--prompts", type=int, default=0, help="prompts to time (default: the whole vocabulary)")
    args = parser.parse_args()

    import numpy as np

    from bench_image_text import build
    from videoreview.engines.embeddings.image_text import ImageTextEncoder
    from videoreview.engines.embeddings.naming import ShotNamer, Vocabulary, default_vocabulary
    from videoreview.media import open_video, short_side_size
    from videoreview.records import Analysis, Boundary, VideoInfo
    from videos import make_long_video

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["VIDEOREVIEW_HOME"] = tmp  # the export and the vocabulary's embeddings go here
        encoder = ImageTextEncoder(build("siglip2-256", Path(tmp) / "siglip2-256"))
        vocabulary = default_vocabulary()
        asked = args.prompts or len(vocabulary.names)
        timed = Vocabulary(vocabulary.names[:asked], vocabulary.kinds[:asked], vocabulary.sources[:asked],
                           vocabulary.hints[:asked])
        print(f"{os.cpu_count()} cores; SigLIP 2 base 256 px (random weights); vocabulary of "
              f"{len(vocabulary.names)} names, {asked} timed")
        started = time.perf_counter()
        ShotNamer(encoder, timed).text_embeddings()
        seconds = time.perf_counter() - started
        print(f"vocabulary embedded: {seconds:.1f} s for {asked} prompts ({asked / seconds:.1f} prompts/s; "
              f"the whole vocabulary: {seconds * len(vocabulary.names) / asked:.0f} s), once per model")
        started = time.perf_counter()
        namer = ShotNamer(encoder, timed)
        namer.text_embeddings()
        print(f"read back from disk by a new analysis: {1000 * (time.perf_counter() - started):.1f} ms")

        video = make_long_video(Path(tmp) / "clip.mp4", seconds=args.frames / 2 + 1, size=(1280, 720)).path
        size = short_side_size(1280, 720, 224)
        with open_video(video) as source:
            frames = list(source.frames_at_indices(np.arange(0, args.frames * 12, 12), size=size).frames)
        namer.embed_frames(frames[:8])  # warm-up
        started = time.perf_counter()
        namer.embed_frames(frames)
        seconds = time.perf_counter() - started
        print(f"frames embedded: {len(frames)} of {size[0]}x{size[1]} in {seconds:.1f} s "
              f"({seconds / len(frames):.3f} s a sampled frame, i.e. a second of video at 1 fps)")

        # Scoring against the whole vocabulary: where fewer prompts were embedded, random unit
        # vectors stand in for the rest, put where the namer reads its embeddings from.
        rng = np.random.default_rng(0)
        full = ShotNamer(encoder, vocabulary)
        dim = namer.text_embeddings().shape[1]

        def unit(rows: int) -> np.ndarray:
            vectors = rng.normal(size=(rows, dim)).astype(np.float32)
            return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

        if not full.cache_path().exists():
            full.cache_path().parent.mkdir(parents=True, exist_ok=True)
            np.save(full.cache_path(), unit(len(vocabulary.names)))
        vectors = unit(600)
        info = VideoInfo(path="x.mp4", duration=600.0, fps=25.0, frame_count=15000, width=1280, height=720)
        cuts = tuple(Boundary(time=6.0 * k, frame=150 * k, kind="cut", confidence=1.0) for k in range(1, 100))
        analysis = Analysis(video=info, boundaries=cuts)
        started = time.perf_counter()
        full.shot_tags(analysis, list(range(0, 15000, 25)), vectors)
        print(f"scoring 600 sampled frames in 100 shots against {len(vocabulary.names)} names: "
              f"{1000 * (time.perf_counter() - started):.0f} ms")


if __name__ == "__main__":
    main()
