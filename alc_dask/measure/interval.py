"""Wilson score interval of a measured precision.

Its midpoint is the "probabilistic precision" that PRC and ALC use (Francis & Wagner 2025, §3.5, eq. 2).
"""

from statistics import NormalDist

import numpy as np

from alc_dask.measure._checks import as_float_array, in_open_unit


def z_score(confidence: float) -> float:
    """Two-sided standard normal quantile for a confidence level (1.959964 at 0.95)."""
    return NormalDist().inv_cdf(1.0 - (1.0 - in_open_unit("confidence", confidence)) / 2.0)


def wilson_interval(n, precision, confidence: float = 0.95):
    """Wilson score interval ``(low, high)`` of a precision measured on ``n`` predictions.

    Wilson rather than the normal approximation because attacks often run at precision near
    0 or 1 on few predictions.

    Parameters
    ----------
    n : int or array_like
        Predictions made; ``n = 0`` gives ``(0, 0)``.
    precision : float or array_like
        The share of them that were right, in [0, 1].
    confidence : float, default 0.95
        The interval's confidence level, in (0, 1).

    Returns
    -------
    tuple
        ``(low, high)``: floats for scalar input, arrays otherwise.

    Raises
    ------
    ValueError
        A negative count, a precision outside [0, 1], or a confidence outside (0, 1).

    Examples
    --------
    >>> from alc_dask.measure import wilson_interval
    >>> low, high = wilson_interval(100, 0.9)
    >>> round(low, 4), round(high, 4)
    (0.8256, 0.9448)
    >>> wilson_interval(0, 0.5)
    (0.0, 0.0)
    """
    counts = as_float_array("n", n, low=0.0)
    p = as_float_array("precision", precision, low=0.0, high=1.0)
    z = z_score(confidence)
    safe_n = np.where(counts > 0, counts, 1.0)
    z2n = z * z / safe_n
    denominator = 1.0 + z2n
    center = (p + z2n / 2.0) / denominator
    half = z * np.sqrt(p * (1.0 - p) / safe_n + z2n / (4.0 * safe_n)) / denominator
    low = np.where(counts > 0, np.clip(center - half, 0.0, 1.0), 0.0)
    high = np.where(counts > 0, np.clip(center + half, 0.0, 1.0), 0.0)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high
