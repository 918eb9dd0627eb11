"""Risk labels for ALC values, as in Francis & Wagner 2025, §6.1 (Figure 7 and Table 2)."""

from dataclasses import dataclass

import numpy as np

from alc_dask.measure._checks import as_float_array

LABELS = ("no loss", "safe", "at risk", "serious")


@dataclass(frozen=True)
class RiskThresholds:
    """Where the risk labels of an ALC change: ALC ≤ ``no_loss`` is no anonymity loss, below
    ``at_risk`` safe, below ``serious`` at risk, and serious from there (Francis & Wagner 2025, §6.1).

    Parameters
    ----------
    no_loss, at_risk, serious : float
        Increasing thresholds, ``serious`` at most 1 (defaults 0, 0.5 and 0.75).

    Raises
    ------
    ValueError
        Thresholds out of order.

    Examples
    --------
    >>> from alc_dask.measure import RiskThresholds, risk_label
    >>> risk_label(0.6, RiskThresholds(at_risk=0.7))
    'safe'
    """

    no_loss: float = 0.0
    at_risk: float = 0.5
    serious: float = 0.75

    def __post_init__(self):
        if not self.no_loss < self.at_risk < self.serious <= 1.0:
            raise ValueError(f"risk thresholds must satisfy no_loss < at_risk < serious <= 1; got {self.no_loss}, {self.at_risk}, {self.serious}")


def risk_label(alc, thresholds: RiskThresholds = RiskThresholds()):
    """The risk label of an ALC, one of `LABELS`: ``no loss``, ``safe``, ``at risk`` or ``serious``.

    Parameters
    ----------
    alc : float or array_like
        ALCs (at most 1).
    thresholds : RiskThresholds, optional
        Where the labels change (default: the paper's 0, 0.5 and 0.75).

    Returns
    -------
    str or numpy.ndarray
        The label of one ALC, or an array of labels.

    Raises
    ------
    ValueError
        An ALC above 1, or NaN.

    Examples
    --------
    >>> from alc_dask.measure import risk_label
    >>> risk_label(0.6)
    'at risk'
    >>> list(risk_label([-0.1, 0.2, 0.8]))
    ['no loss', 'safe', 'serious']
    """
    values = as_float_array("alc", alc, high=1.0 + 1e-9)
    index = np.digitize(values, [thresholds.no_loss, thresholds.at_risk, thresholds.serious], right=False)
    # digitize puts values equal to no_loss in bin 1; ALC == no_loss is still "no loss".
    index = np.where(values == thresholds.no_loss, 0, index)
    if index.ndim == 0:
        return LABELS[int(index)]
    return np.asarray(LABELS, dtype=object)[index]
