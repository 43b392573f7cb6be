"""The event detector's numpy peak picking and smoothing give what SciPy gives."""

import numpy as np
import pytest
from scipy.ndimage import gaussian_filter1d
from scipy.signal import find_peaks as scipy_find_peaks

from videoreview.engines.boundaries.peaks import find_peaks, gaussian_smooth


@pytest.mark.parametrize("seed", range(40))
def test_same_peaks_as_scipy(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 400))
    x = rng.gamma(1.0, 2.0, n) * (rng.random(n) > 0.3)
    x = np.round(x, 1)  # plateaus and ties, as a clipped score has
    x = np.concatenate([[0.0], gaussian_smooth(x, 1.0) if seed % 2 else x, [0.0]])
    height, prominence, distance = 4.0 * rng.random(), 2.0 * rng.random(), int(rng.integers(1, 8))
    want, _ = scipy_find_peaks(x, height=height, prominence=prominence, distance=distance)
    np.testing.assert_array_equal(find_peaks(x, height, prominence, distance), want)


@pytest.mark.parametrize("n", [1, 3, 9, 200])
@pytest.mark.parametrize("sigma", [0.5, 1.0, 2.5])
def test_same_smoothing_as_scipy(n, sigma):
    x = np.random.default_rng(n).random(n)
    np.testing.assert_allclose(gaussian_smooth(x, sigma), gaussian_filter1d(x, sigma, mode="constant"), atol=1e-12)
