"""The precision-recall coefficient (PRC) and the Anonymity Loss Coefficient (ALC).

Francis & Wagner 2025, §4.1 (eq. 6) and §4.2 (eq. 8, the relative ALC; eq. 7, the absolute one, is
mixed in by ``abs_weight``).
"""

import numpy as np

from alc_dask.measure._checks import as_float_array, in_open_unit, scalar_or_array
from alc_dask.shown import shown

PRC_CEILING = 0.99999999
"""PRCs are clipped below 1 before the relative improvement divides by ``1 - PRC_base``."""


def prc(precision, recall, *, rmin: float = 1e-4, alpha: float = 3.0):
    """Precision weighted down as recall falls: ``P·(1 − (log10 R / log10 Rmin)^α)``, and ``R`` at or below ``rmin``.

    Low recall makes a precise attack worth little: at ``rmin`` the coefficient has fallen
    to the recall itself.

    Parameters
    ----------
    precision, recall : float or array_like
        In [0, 1]; arrays are taken element-wise.
    rmin : float, default 1e-4
        The recall at which precision stops counting, in (0, 1).
    alpha : float, default 3.0
        How sharply the weight falls with recall; positive.

    Returns
    -------
    float or numpy.ndarray
        The PRC, a float for scalar input.

    Raises
    ------
    ValueError
        A value outside its range, or NaN.

    Examples
    --------
    >>> from alc_dask.measure import prc
    >>> prc(0.9, 1.0), prc(0.9, 0.01), prc(0.9, 1e-5)
    (0.9, 0.7875, 1e-05)
    """
    p = np.clip(as_float_array("precision", precision, low=0.0, high=1.0), 0.0, 1.0)
    r = np.clip(as_float_array("recall", recall, low=0.0, high=1.0), 0.0, 1.0)
    in_open_unit("rmin", rmin)
    if alpha <= 0:
        raise ValueError(f"alpha must be positive; got {shown(alpha)}")
    with np.errstate(divide="ignore", invalid="ignore"):
        weight = 1.0 - (np.log10(np.maximum(r, rmin)) / np.log10(rmin)) ** alpha
    return scalar_or_array(np.where(r > rmin, p * weight, r))


def alc(prc_base, prc_attack, *, abs_weight: float = 0.0):
    """Anonymity loss: the attack's PRC improvement over the non-member baseline's.

    ``(1−w)·(PRC_atk − PRC_base)/(1 − PRC_base) + w·(PRC_atk − PRC_base)``: the share of the room
    above the baseline the attack takes, so what the population alone teaches is not counted.

    Parameters
    ----------
    prc_base, prc_attack : float or array_like
        PRCs in [0, 1] (see `prc`); arrays are taken element-wise. Both are clipped below 1.
    abs_weight : float, default 0.0
        The weight ``w`` of the absolute improvement (eq. 7), in [0, 1].

    Returns
    -------
    float or numpy.ndarray
        The ALC: at most 1, negative when the baseline does better than the attack.

    Raises
    ------
    ValueError
        A PRC outside [0, 1], or ``abs_weight`` outside [0, 1].

    Examples
    --------
    >>> from alc_dask.measure import alc
    >>> alc(0.5, 0.75)
    0.5
    >>> round(alc(0.5, 0.4), 3)
    -0.2
    >>> alc(0.5, 0.75, abs_weight=0.5)
    0.375
    """
    base = np.minimum(as_float_array("prc_base", prc_base, low=0.0, high=1.0), PRC_CEILING)
    attack = np.minimum(as_float_array("prc_attack", prc_attack, low=0.0, high=1.0), PRC_CEILING)
    if not 0.0 <= abs_weight <= 1.0:
        raise ValueError(f"abs_weight must lie in [0, 1]; got {shown(abs_weight)}")
    gain = attack - base
    return scalar_or_array((1.0 - abs_weight) * gain / (1.0 - base) + abs_weight * gain)
