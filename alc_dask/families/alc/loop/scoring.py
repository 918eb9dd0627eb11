"""How a scenario's predictions are scored: by their code (a categorical secret, or a continuous one
by its bin), or as numbers right within a tolerance (``measure.Tolerance``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alc_dask.data import ColumnKind, EncodedTable, Release, ScenarioError
from alc_dask.measure import Tolerance


@dataclass(frozen=True)
class SecretScoring:
    release: Release
    secret: str
    tolerance: Tolerance | None = None

    def __post_init__(self):
        if self.tolerance is not None and self.release.column(self.secret).kind is ColumnKind.CATEGORICAL:
            raise ScenarioError(f"tolerance: secret {self.secret!r} is categorical; a tolerance applies to continuous secrets")

    @property
    def numeric(self) -> bool:
        return self.tolerance is not None

    def truth(self, targets: EncodedTable) -> np.ndarray:
        """The secret of encoded rows: codes, or numbers."""
        return self.release.true_values(self.secret, targets) if self.numeric else self.release.true_codes(self.secret, targets)

    def predicted(self, predictions) -> np.ndarray:
        """An attack's predictions as this scoring reads them."""
        return predictions.values if self.numeric else predictions.codes

    def correct(self, predicted: np.ndarray, truth: np.ndarray) -> np.ndarray:
        if self.numeric:
            return self.tolerance.correct(predicted, truth, self.release.value_span(self.secret), self.release.column(self.secret).origin)
        return np.asarray(predicted) == np.asarray(truth)

    def floor_guess(self):
        """What always guessing the most common value means: the most common code, or the median number."""
        if self.numeric:
            return float(np.nanmedian(self.release.original.column_array(self.release.column(self.secret).name)))
        return int(np.bincount(self.release.secret_column(self.secret)).argmax())
