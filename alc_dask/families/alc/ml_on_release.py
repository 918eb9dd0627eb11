"""A model trained on the release (``ml_on_release``): the attacker fits a model on the anonymized
rows, known columns to secret, and guesses each target's secret with it (Stadler, Oprisanu &
Troncoso 2022, "Synthetic Data – Anonymisation Groundhog Day", USENIX Security: attribute
inference by a model trained on the synthetic data).

The model comes from the ML baseline's zoo, chosen by the baseline's selection (``alc_dask.baseline``:
the candidate of best PRC on a split of the rows) on the release's rows instead of the original's.
By default (``selection: in_sample``) the PRC is measured on the rows the candidates were fitted on:
the attacker's targets may be among the release's rows, so it wants the model that reproduces
those best, a model that remembers rows where it can (a fully grown forest, on rows the known
columns tell apart). ``selection: held_out`` measures on held-out rows as the baseline does: a
model of the population, which learns no more than the baseline wherever the release teaches
only the population, and on the copied members learns about what the baseline does. Its confidence is the predicted value's probability (``predict_proba``'s
maximum); a continuous secret scored within a tolerance is predicted as a number by the baseline's
regressors, its confidence the share of the forest's trees that agree (1 for other regressors),
as the baseline's. Measured against the non-member baseline as every ALC attack is, it asks what a
model of the release teaches beyond a model of the population: on a release that teaches only the
population, nothing (ALC about 0).

The model is fitted on the anonymized tables holding the secret and every known column, their
rows together: all of them up to ``max_rows``, beyond it a seeded sample of ``max_rows`` (gathered
from the workers that hold a partitioned release, row by row as a copied one is indexed, so the
model is the same either way and memory stays bounded by ``max_rows``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from alc_dask.attacks.base import ABSTAINED, AttributeAttack, AttributeTask, Predictions, TargetBlock
from alc_dask.baseline.features import FeatureLayout
from alc_dask.baseline.selection import BaselineSettings, Numbers
from alc_dask.data import EncodedTable, Release, ScenarioError
from alc_dask.measure import SettingError, Tolerance
from alc_dask.measure._checks import check_count
from alc_dask.seeds import stream

MAX_ROWS = 10_000
"""Release rows the model is chosen and fitted on at most: as many as a block of the ML baseline
trains on (``BaselineSettings.training_rows``), so attack and baseline learn from as many rows."""
SELECTIONS = ("in_sample", "held_out")


class MlOnRelease(AttributeAttack):
    """Guess the secret with the baseline's model chosen and fitted on the release.

    ``baseline_settings``: any ``BaselineSettings`` field (candidates, regressors, trees, ...),
    defaults otherwise; ``max_rows``: release rows fitted on at most (a seeded sample beyond);
    ``seed``: of that sample, of the selection's split and of the models; ``selection``: ``in_sample``
    or ``held_out`` (see the module).
    """

    def __init__(self, max_rows: int = MAX_ROWS, seed: int = 0, baseline_settings: dict[str, Any] | None = None, selection: str = "in_sample"):
        check_count("max_rows", max_rows)
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
            raise SettingError("seed", seed, "a whole number")
        if selection not in SELECTIONS:
            raise SettingError("selection", selection, f"one of {', '.join(SELECTIONS)}")
        self.max_rows, self.seed, self.baseline_settings, self.selection = max_rows, int(seed), baseline_settings, selection
        self.settings()

    def settings(self) -> BaselineSettings:
        """The model zoo's and the selection's settings."""
        given = dict(self.baseline_settings or {})
        for name in ("candidates", "regressors"):
            if isinstance(given.get(name), list):
                given[name] = tuple(given[name])
        try:
            return BaselineSettings(**given)
        except SettingError as error:
            raise SettingError(f"baseline_settings.{error.field}", error.value, error.expected) from None
        except TypeError:
            raise SettingError("baseline_settings", self.baseline_settings, "BaselineSettings fields (candidates, regressors, trees, ...)") from None

    def check(self, release: Release, task: AttributeTask) -> None:
        training_tables(release, task.secret, task.known)

    def prepare(self, release: Release, task: AttributeTask):
        return fit_on_release(release, training_tables(release, task.secret, task.known), task.secret, task.known, task.tolerance, self)

    def predict(self, prepared, targets: TargetBlock) -> Predictions:
        rows = targets.release.targets(targets.rows, targets.source)
        guesses, confidence = prepared.predict(prepared.layout.matrix(rows))
        n = rows.n_rows
        if prepared.numbers is not None:
            return Predictions(np.full(n, ABSTAINED, dtype=np.int32), confidence, np.zeros(n, dtype=bool), guesses.astype(np.float64))
        return Predictions(guesses, confidence, np.zeros(n, dtype=bool))


def training_tables(release: Release, secret: str, known: Sequence[str]) -> tuple:
    """The anonymized tables holding the secret and every known column, or a ``ScenarioError``."""
    release.usable_tables(secret, known)  # the errors every attribute attack shares: unknown columns, secret among the known ...
    tables = release.tables_holding([secret, *known])
    if not tables:
        raise ScenarioError(f"ml_on_release: no anonymized table holds the secret {secret!r} and every known column {list(known)}: the model needs them all")
    return tables


def fit_on_release(release: Release, tables: Sequence, secret: str, known: Sequence[str], tolerance: Tolerance | None, attack: MlOnRelease):
    """The baseline's model chosen and fitted on (a sample of ``attack.max_rows`` of) the rows of ``tables``."""
    from alc_dask.baseline.trained import train_selected  # scikit-learn's: imported when a model is fitted

    layout = FeatureLayout.of(release, known)
    sample = sampled_rows(tables, attack.max_rows, attack.seed)
    X = np.concatenate([layout.matrix(rows) for rows in sample])
    column = release.column(secret)
    if tolerance is None:
        y, numbers = np.concatenate([release.true_codes(secret, rows) for rows in sample]), None
    else:
        y = np.concatenate([release.true_values(secret, rows) for rows in sample])
        numbers = Numbers(tolerance, release.value_span(secret), column.origin)
    return train_selected(X, y, layout, attack.settings(), seed=attack.seed, numbers=numbers, held_out=attack.selection == "held_out")


def sampled_rows(tables: Sequence, max_rows: int, seed: int) -> list[EncodedTable]:
    """Every row of ``tables`` (copied or partitioned), or a seeded sample of ``max_rows`` of them
    taken over all tables' rows together, in table and row order."""
    sizes = np.array([table.n_rows for table in tables], dtype=np.int64)
    total = int(sizes.sum())
    chosen = np.arange(total) if total <= max_rows else np.sort(stream(seed, "release rows").choice(total, max_rows, replace=False))
    starts = np.concatenate([[0], np.cumsum(sizes)])
    return [table.rows(chosen[(chosen >= start) & (chosen < end)] - start) for table, start, end in zip(tables, starts[:-1], starts[1:], strict=True)]
