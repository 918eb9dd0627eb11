"""Dependent records (Francis & Wagner 2025, §3.7; Francis & Wagner 2024, §4.6): a non-member
baseline is too high when a target has a near copy among the members it is trained on (twins, a
household, a record entered twice).

Two tools. The replication stress test copies a share of the original's rows several times, holds
out random targets of the copied table as the baseline does, and measures how much each candidate
model's precision moves: a model that memorises rows gains from the copies, a regularised one
should not (Francis & Wagner 2024, Figure 6; Francis & Wagner 2025, Figure 3). The near-duplicate
diagnostic asks, for sampled records, how much closer their closest other record is than the next
one; a record with one markedly closer neighbour may have a dependent twin, which the ML baseline
can leave out of its training rows (``BaselineSettings.near_duplicate_ratio``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from alc_dask.baseline.features import FeatureLayout
from alc_dask.baseline.selection import BaselineSettings, fit_model, predict_with_confidence
from alc_dask.baseline.zoo import build_model
from alc_dask.data import Release
from alc_dask.data.partitioned import whole
from alc_dask.errors import OptionError
from alc_dask.measure import wilson_interval
from alc_dask.seeds import stream
from alc_dask.shown import shown

SHARES = (0.1, 0.5, 1.0)
COPIES = (1, 2, 5, 10)
MAX_COPIES = 100
"""Copies of a row at most: the copied table grows with them, and 10 already show a model that memorises rows."""
TARGETS = 1000
RESISTANT = "regularized_random_forest"
"""Always among the stress test's models: it is the one meant to resist copies."""


def replication_stress(
    release: Release,
    secret: str,
    known: Sequence[str],
    settings: BaselineSettings = BaselineSettings(),
    seed: int = 0,
    shares: Sequence[float] = SHARES,
    copies: Sequence[int] = COPIES,
    targets: int = TARGETS,
) -> pd.DataFrame:
    """Per candidate model and replication (share of rows copied, copies of each; 0, 0 = none): the
    baseline's precision (Wilson midpoint, every target predicted) on ``targets`` held-out rows of the
    copied table, trained on (a sample of ``settings.training_rows`` of) the rest, with
    ``settings.selection_trees`` trees as model selection uses."""
    check_replications(shares, copies)
    layout = FeatureLayout.of(release, known)
    X, y = layout.matrix(whole(release.original)), release.secret_column(secret)
    models = list(dict.fromkeys([*settings.candidates, RESISTANT]))
    rows = []
    for share, times in [(0.0, 0), *itertools.product(shares, copies)]:
        rng = stream(seed, "replication", int(share * 1000), times)
        copied = np.concatenate([np.arange(len(y)), np.repeat(rng.choice(len(y), int(round(share * len(y))), replace=False), times)])
        held_out = rng.choice(len(copied), min(targets, len(copied) // 2), replace=False)
        training = np.setdiff1d(np.arange(len(copied)), held_out)
        if settings.training_rows is not None and len(training) > settings.training_rows:
            training = rng.choice(training, settings.training_rows, replace=False)
        for name in models:
            try:
                model = fit_model(build_model(name, layout, settings.selection_trees, seed, settings), X[copied[training]], y[copied[training]])
            except ValueError:  # e.g. no column is one-to-one with the secret
                continue
            predicted, _ = predict_with_confidence(model, X[copied[held_out]])
            low, high = wilson_interval(len(held_out), float(np.mean(predicted == y[copied[held_out]])))
            rows.append({"secret": secret, "model": name, "share": share, "copies": times, "precision": (low + high) / 2})
    return pd.DataFrame(rows)


def stress_table(results: pd.DataFrame) -> pd.DataFrame:
    """One row per secret and model: precision without copies, with each replication, and the
    largest move (signed) away from no copies."""
    replications = results[["share", "copies"]].drop_duplicates().sort_values(["share", "copies"])
    order = [_label(share, times) for share, times in replications.itertuples(index=False)]
    labelled = results.assign(replication=[_label(share, times) for share, times in zip(results["share"], results["copies"])])
    table = labelled.pivot_table(index=["secret", "model"], columns="replication", values="precision", sort=False)[order]
    moves = table.drop(columns="none").sub(table["none"], axis=0)
    table["largest move"] = [row[row.abs().idxmax()] if row.notna().any() else np.nan for _, row in moves.iterrows()]
    return table.reset_index()


@dataclass(frozen=True)
class NearDuplicates:
    sampled: int
    suspicious: int
    ratio: float
    """The threshold: a record is suspicious when its closest other record is nearer than ``ratio``
    times the next closest."""

    @property
    def share(self) -> float:
        return self.suspicious / self.sampled if self.sampled else 0.0


def near_duplicates(table, columns: Sequence[str], ratio: float = 0.5, sample: int = 1000, seed: int = 0) -> NearDuplicates:
    """How many of ``sample`` records of ``table`` have a markedly closer other record (Gower over ``columns``)."""
    rows = np.sort(stream(seed, "near duplicates").choice(table.n_rows, min(sample, table.n_rows), replace=False))
    marked, _ = _closest_others(table, rows, columns, ratio)
    return NearDuplicates(len(rows), int(marked.sum()), ratio)


def suspicious_neighbours(table, rows: np.ndarray, columns: Sequence[str], ratio: float) -> np.ndarray:
    """For ``rows`` of ``table``, the rows (other than themselves) markedly closer to one of them than
    its next closest other record: nearer than ``ratio`` times that one (two exact copies of a
    record with no third near it, say). Records among many identical ones have none."""
    marked, closest = _closest_others(table, rows, columns, ratio)
    return np.unique(closest[marked & (closest >= 0)])


def _closest_others(table, rows: np.ndarray, columns: Sequence[str], ratio: float) -> tuple[np.ndarray, np.ndarray]:
    """Per row: whether its closest other record is nearer than ``ratio`` times the next, and that record."""
    from alc_dask.neighbors.nearest import k_nearest  # Numba's: imported when a search runs, not with the settings

    distances, found = k_nearest(table.rows(rows), table, columns, 3)
    others = found != rows[:, None]
    first, second = (np.argmax(np.cumsum(others, axis=1) == rank, axis=1) for rank in (1, 2))
    index = np.arange(len(rows))
    closest, next_closest = distances[index, first], distances[index, second]
    with np.errstate(invalid="ignore", divide="ignore"):
        marked = np.where(next_closest > 0, closest / next_closest, 1.0) < ratio
    return marked, found[index, first]


def _label(share: float, times: int) -> str:
    return "none" if times == 0 else f"{share:.0%} x{times}"


def check_replications(shares: Sequence[float], copies: Sequence[int]) -> None:
    """Refuse a share of rows outside (0, 1] (NaN too) or copies not a whole number from 1 to ``MAX_COPIES``."""
    for i, share in enumerate(shares):
        if not 0 < share <= 1:
            raise OptionError(f"shares[{i}]: {shown(share)} is not a share of rows in (0, 1]")
    for i, times in enumerate(copies):
        if isinstance(times, bool) or not isinstance(times, (int, np.integer)) or not 1 <= times <= MAX_COPIES:
            raise OptionError(f"copies[{i}]: {shown(times)} is not a whole number of copies from 1 to {MAX_COPIES}")
