"""Risk labels for ALC values, as in Francis & Wagner 2025, §6.1 (Figure 7 and Table 2)."""

from dataclasses import dataclass

import numpy as np

from alc_dask.measure._checks import as_float_array

LABELS = ("no loss", "safe", "at risk", "serious")


@dataclass(frozen=True)
class RiskThresholds:
    """ALC ≤ ``no_loss`` means no anonymity loss; below ``at_risk`` safe; from ``serious`` on, serious."""

    no_loss: float = 0.0
    at_risk: float = 0.5
    serious: float = 0.75

    def __post_init__(self):
        if not self.no_loss < self.at_risk < self.serious <= 1.0:
            raise ValueError(f"risk thresholds must satisfy no_loss < at_risk < serious <= 1; got {self.no_loss}, {self.at_risk}, {self.serious}")


def risk_label(alc, thresholds: RiskThresholds = RiskThresholds()):
    """Label one ALC (a string) or an array of them (an array of strings)."""
    values = as_float_array("alc", alc, high=1.0 + 1e-9)
    index = np.digitize(values, [thresholds.no_loss, thresholds.at_risk, thresholds.serious], right=False)
    # digitize puts values equal to no_loss in bin 1; ALC == no_loss is still "no loss".
    index = np.where(values == thresholds.no_loss, 0, index)
    if index.ndim == 0:
        return LABELS[int(index)]
    return np.asarray(LABELS, dtype=object)[index]
