"""A model of the zoo chosen by the baseline's selection and fitted on given rows, predicting a
secret with a confidence: what the ML baseline fits on the original minus a block of targets, and
what an attacker fits on a release (``alc_dask.families.alc.ml_on_release``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alc_dask.baseline.blocks import fit_without_block
from alc_dask.baseline.budget import affordable
from alc_dask.baseline.features import FeatureLayout
from alc_dask.baseline.selection import BaselineSettings, ModelChoice, Numbers, predict_with_confidence, select_model
from alc_dask.measure import MeasureSettings


def secret_classes(y: np.ndarray, numbers: Numbers | None) -> int:
    """The secret's values a model keeps a count of per node (a regressor keeps one number per leaf)."""
    return np.count_nonzero(np.bincount(y)) if numbers is None else 1


def predicted(model, X: np.ndarray, numbers: Numbers | None) -> tuple[np.ndarray, np.ndarray]:
    """A fitted model's guesses (codes, or numbers with ``numbers``) and their confidence."""
    return predict_with_confidence(model, X) if numbers is None else numbers.predict(model, X)


@dataclass(frozen=True)
class TrainedModel:
    """The chosen model fitted on every given row (a sample of ``settings.training_rows`` beyond it)."""

    layout: FeatureLayout
    choice: ModelChoice
    model: object
    numbers: Numbers | None
    note: str | None
    """How the fit was kept within its budget (``baseline.budget``), if it had to be."""

    def predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return predicted(self.model, X, self.numbers)


def train_selected(
    X: np.ndarray,
    y: np.ndarray,
    layout: FeatureLayout,
    settings: BaselineSettings = BaselineSettings(),
    measure: MeasureSettings = MeasureSettings(),
    seed: int = 0,
    numbers: Numbers | None = None,
    held_out: bool = True,
) -> TrainedModel:
    """Select among the candidates as the ML baseline does (``held_out``: see ``select_model``), then fit the chosen one on all rows within the budget."""
    choice = select_model(X, y, layout, settings, measure, seed, numbers=numbers, held_out=held_out)
    fit_settings, note = affordable(choice.name, settings, X, secret_classes(y, numbers))
    model = fit_without_block(choice.name, X, y, np.empty(0, dtype=np.int64), layout, fit_settings, seed, numeric=numbers is not None)
    return TrainedModel(layout, choice, model, numbers, note)
