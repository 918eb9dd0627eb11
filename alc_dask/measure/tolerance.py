"""Continuous secrets within a tolerance (Francis & Wagner 2024, §4.3): a predicted number is right when it is
within ``epsilon`` of the true value, instead of in the true value's bin.

``relative_to: value``: ``|predicted - true| <= epsilon * |true|``. The tolerance scales with the
person's own value and is symmetric for negative values (-104 for -100 is right at 5%); a true 0 is
matched only exactly. ``relative_to: range``: ``|predicted - true| <= epsilon * (max - min)`` of the
column in the original table, the same absolute tolerance for everyone (use it for columns around
0, such as balances or temperature differences). Two missing values are equal; a missing and a
present value are not. Numbers measured from an ``origin`` (see ``alc_dask.data.numbers``) are
compared as the values they are: the true value is ``origin + truth``.
"""

from dataclasses import dataclass
from typing import Literal

import numpy as np

from alc_dask.measure._checks import SettingError, check_number

RELATIVE_TO = ("value", "range")


@dataclass(frozen=True)
class Tolerance:
    """When a predicted number counts as right for a continuous secret: within ``epsilon`` of the
    true value, relative to that value or to the column's range (see the module's description).

    Parameters
    ----------
    epsilon : float, default 0.05
        The tolerance; positive.
    relative_to : {"value", "range"}, default "value"
        ``value``: ``|predicted - true| <= epsilon * |true|``; ``range``: ``<= epsilon * (max - min)``.

    Raises
    ------
    SettingError
        A field out of range, naming it.

    Examples
    --------
    >>> import numpy as np
    >>> from alc_dask.measure import Tolerance
    >>> Tolerance(0.05).correct([104, -104, 0.1, np.nan], [100, -100, 0, np.nan]).tolist()
    [True, True, False, True]
    >>> Tolerance(0.05, "range").correct([104, 20], [100, 10], span=200).tolist()
    [True, True]
    """

    epsilon: float = 0.05
    relative_to: Literal["value", "range"] = "value"

    def __post_init__(self):
        check_number("epsilon", self.epsilon, 0.0, open_low=True)
        if self.relative_to not in RELATIVE_TO:
            raise SettingError("relative_to", self.relative_to, f"one of {', '.join(RELATIVE_TO)}")

    def correct(self, predicted, truth, span: float = float("nan"), origin: float = 0.0) -> np.ndarray:
        """Whether each prediction is right; ``span`` is the column's max - min (for ``relative_to: range``),
        ``origin`` what both numbers are measured from."""
        predicted, truth = np.asarray(predicted, dtype=float), np.asarray(truth, dtype=float)
        allowed = self.epsilon * (np.abs(truth + float(origin)) if self.relative_to == "value" else span)
        with np.errstate(invalid="ignore"):
            return (np.isnan(predicted) & np.isnan(truth)) | (np.abs(predicted - truth) <= allowed)
