"""SigLIP 2 NaFlex's geometry written without torch gives what transformers' processor
and model compute: the patch grid for each frame size, the patch order, and the
antialiased resize of the position table."""

from __future__ import annotations

import numpy as np
import pytest

from videoreview.engines.embeddings import naflex


@pytest.mark.parametrize("patch, most", [(16, 256), (16, 1024), (14, 729), (8, 16)])
def test_the_grid_is_the_processor_s(patch, most):
    from transformers.models.siglip2.image_processing_pil_siglip2 import get_image_size_for_max_num_patches

    for width, height in [(1920, 1080), (1080, 1920), (640, 480), (160, 90), (100, 3000), (7, 7), (4096, 16)]:
        rows, columns = naflex.grid_for(width, height, patch, most)
        assert (rows * patch, columns * patch) == get_image_size_for_max_num_patches(height, width, patch, most)
        assert rows * columns <= most


def test_patches_are_cut_in_the_processor_s_order():
    from transformers.models.siglip2.image_processing_pil_siglip2 import convert_image_to_patches

    frames = np.random.default_rng(0).random((2, 24, 40, 3)).astype(np.float32)
    ours = naflex.patches(frames, 8)
    for frame, cut in zip(frames, ours):
        assert np.array_equal(cut, convert_image_to_patches(frame.transpose(2, 0, 1), 8))


@pytest.mark.parametrize("rows, columns", [(12, 21), (16, 16), (9, 28), (20, 12), (1, 1), (3, 40), (32, 8)])
def test_positions_resize_as_torch_s_antialiased_bilinear(rows, columns):
    import torch
    import torch.nn.functional as F

    table = np.random.default_rng(1).normal(size=(16, 16, 8)).astype(np.float32)
    expected = F.interpolate(torch.from_numpy(table).permute(2, 0, 1)[None], size=(rows, columns),
                             mode="bilinear", align_corners=False, antialias=True)
    expected = expected[0].reshape(8, rows * columns).T.numpy()
    assert np.abs(naflex.resized_positions(table, rows, columns) - expected).max() < 1e-5
