"""What one block fit of the chosen baseline model may cost.

A forest's size, and most of its work, grow with the secret's values times its nodes: every node
keeps a count per value, and a fully grown tree has up to two nodes per distinct feature row.
Logistic regression's work grows with rows times values. On a secret with 500 values and a known
column with 2700, one 100-tree block fit took a minute and gigabytes. Past the budget the fit
keeps its model but uses fewer trees (at least ``MIN_TREES``) or fewer training rows, and says so
in a note the scenario reports. No attack of the paper's five shared datasets reaches it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from alc_dask.baseline.selection import BaselineSettings

FORESTS = ("random_forest", "extra_trees", "regularized_random_forest")
FOREST_BUDGET = 1.5e8
"""Per-value counts one forest may hold (8 bytes each): nodes (2 per distinct training row) ×
secret values × trees. The paper's largest, 100 trees on 51 values, hold 1e8."""
MIN_TREES = 10
"""Never fewer trees than model selection itself used."""
LOGISTIC_BUDGET = 1e6
"""Training rows × secret values of one logistic regression fit (10 000 rows × 100 values)."""
MIN_LOGISTIC_ROWS = 2000
"""Never fewer training rows for logistic regression, whatever the secret's values."""


def logistic_rows(n_values: int) -> int:
    """The training rows one logistic regression fit may use on a secret of ``n_values`` values
    (model selection's fits are held to it too)."""
    return max(MIN_LOGISTIC_ROWS, int(LOGISTIC_BUDGET // max(n_values, 1)))


def affordable(model_name: str, settings: BaselineSettings, X, n_values: int) -> tuple[BaselineSettings, str | None]:
    """``settings`` for the block fits of ``model_name`` within the budget, and a note when reduced.

    ``X`` is the feature matrix (an array, or rows fetched on demand: then the distinct rows are
    taken to be as many as the training rows)."""
    rows = len(X) if settings.training_rows is None else min(len(X), settings.training_rows)
    if model_name in FORESTS:
        distinct = _distinct_rows(X, rows) if isinstance(X, np.ndarray) else rows
        trees = max(MIN_TREES, int(FOREST_BUDGET // (2 * distinct * n_values)))
        if trees < settings.trees:
            return replace(
                settings, trees=trees
            ), f"{model_name}: {trees} of {settings.trees} trees ({n_values} secret values, {distinct} distinct feature rows)"
    if model_name == "logistic_regression" and rows * n_values > LOGISTIC_BUDGET:
        capped = logistic_rows(n_values)
        if capped < rows:
            return replace(settings, training_rows=capped), f"{model_name}: trained on {capped} of {rows} rows ({n_values} secret values)"
    return settings, None


def _distinct_rows(X: np.ndarray, rows: int) -> int:
    sample = X if len(X) <= rows else X[np.random.default_rng(0).choice(len(X), rows, replace=False)]
    return len(np.unique(sample, axis=0))
