"""What every attribute-inference attack returns: one prediction per target."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

ABSTAINED = -1
"""Prediction code of an abstention."""


class Predictions(NamedTuple):
    """Per target: predicted secret code (`ABSTAINED` when abstaining), confidence, abstention; and
    for a continuous secret predicted as a number (within a tolerance), the number (NaN: missing)."""

    codes: np.ndarray
    confidence: np.ndarray
    abstained: np.ndarray
    values: np.ndarray | None = None
