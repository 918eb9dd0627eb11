"""The equivalence classes of a release and their privacy models: of a plain table over its blocks
(group-by counts per hash bucket of the quasi-identifiers, ``alc_dask.data.key_counts``), or of a
generalized table (rows alike on every generalized cell).

Each bucket reduces its classes to what the release's models need: the smallest class, the fewest
distinct sensitive values, the lowest entropy ℓ, the largest t, and the records in classes that
miss a declared model; the violating classes' keys find their rows in a second pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from alc_dask.data.key_counts import BUCKETS, bucket_counts, first_rows, rows_in
from alc_dask.data.partitioned import compute
from alc_dask.measure.disclosure import COUNT
from alc_dask.measure.privacy_models import class_models, violating


@dataclass(frozen=True)
class Declared:
    k: int
    l_distinct: int | None = None
    l_entropy: float | None = None
    t: float | None = None


@dataclass(frozen=True)
class ModelsFound:
    n_rows: int
    n_classes: int
    k: int
    l_distinct: int
    l_entropy: float
    t: float
    below_k: int
    """Records in classes smaller than the declared k."""
    violating: int
    """Records in classes that miss any declared model."""
    rows: np.ndarray
    """The first violating records (rows of the table measured)."""

    @classmethod
    def combined(cls, parts: Sequence[ModelsFound], rows: np.ndarray) -> ModelsFound:
        present = [p for p in parts if p.n_classes]
        return cls(
            sum(p.n_rows for p in parts),
            sum(p.n_classes for p in parts),
            min((p.k for p in present), default=0),
            min((p.l_distinct for p in present), default=0),
            min((p.l_entropy for p in present), default=float("nan")),
            max((p.t for p in present), default=float("nan")),
            sum(p.below_k for p in parts),
            sum(p.violating for p in parts),
            rows,
        )


def models_of_matrix(counts: np.ndarray, overall: np.ndarray, ordered: bool, declared: Declared) -> tuple[ModelsFound, np.ndarray]:
    """The models of classes with sensitive ``counts`` (classes × values), and which classes violate."""
    models = class_models(counts, overall, ordered)
    bad = violating(models, declared.k, declared.l_distinct, declared.l_entropy, declared.t)
    if not len(models.sizes):
        return ModelsFound(0, 0, 0, 0, float("nan"), float("nan"), 0, 0, np.zeros(0, np.int64)), bad
    found = ModelsFound(
        int(models.sizes.sum()),
        len(models.sizes),
        int(models.sizes.min()),
        int(models.distinct.min()),
        float(models.entropy.min()),
        float(models.closeness.max()),
        int(models.sizes[models.sizes < declared.k].sum()),
        int(models.sizes[bad].sum()),
        np.zeros(0, np.int64),
    )
    return found, bad


def _overall(frame: pd.DataFrame, sensitive: str) -> pd.Series:
    return frame[sensitive].value_counts(sort=False)


def _values(parts: Sequence[pd.Series]) -> pd.Series:
    """The table's count of each sensitive value, in the values' order."""
    return pd.concat(parts).groupby(level=0).sum().sort_index()


def _bucket(counts: pd.DataFrame, quasi: tuple, sensitive: str, overall: pd.Series, ordered: bool, declared: Declared):
    matrix = counts.pivot_table(index=list(quasi), columns=sensitive, values=COUNT, aggfunc="sum", fill_value=0, sort=True)
    matrix = matrix.reindex(columns=overall.index, fill_value=0)
    found, bad = models_of_matrix(matrix.to_numpy(), overall.to_numpy(), ordered, declared)
    return found, matrix.index[bad].to_frame(index=False)


def _bucket_models(results: Sequence) -> list[ModelsFound]:
    return [r[0] for r in results]


def _violating_keys(results: Sequence) -> pd.DataFrame:
    return pd.concat([r[1] for r in results], ignore_index=True)


def plain_models(blocks: Sequence, frames: Sequence, quasi: Sequence[str], sensitive: str, ordered: bool, declared: Declared, max_rows: int) -> ModelsFound:
    """The models of a plain table given as delayed coded ``frames`` of its blocks."""
    import dask

    quasi = tuple(quasi)
    (overall,) = compute(blocks, dask.delayed(_values, pure=False)([dask.delayed(_overall, pure=False)(f, sensitive) for f in frames]))
    per_bucket = [
        dask.delayed(_bucket, pure=False)(b, quasi, sensitive, overall, ordered, declared) for b in bucket_counts(frames, (*quasi, sensitive), quasi, BUCKETS)
    ]
    parts = dask.delayed(_bucket_models, pure=False)(per_bucket)
    rows = rows_in(frames, dask.delayed(_violating_keys, pure=False)(per_bucket), max_rows) if max_rows else []
    found, *located = compute(blocks, parts, *rows)
    first, _ = first_rows(located, max_rows)
    return ModelsFound.combined(found, first)


def generalized_models(
    cells: np.ndarray, sensitive_codes: np.ndarray, sensitive_order: np.ndarray, ordered: bool, declared: Declared, max_rows: int
) -> ModelsFound:
    """The models of a generalized table: ``cells`` (rows × quasi-identifiers, cell ids), its rows'
    sensitive codes, and the order of the sensitive codes (a permutation: position of each code)."""
    _, classes = np.unique(cells, axis=0, return_inverse=True)
    classes = classes.reshape(-1)
    m = len(sensitive_order)
    position = np.asarray(sensitive_order)[sensitive_codes]
    counts = np.bincount(classes * m + position, minlength=(classes.max() + 1 if classes.size else 0) * m).reshape(-1, m)
    found, bad = models_of_matrix(counts, counts.sum(axis=0), ordered, declared)
    rows = np.flatnonzero(bad[classes])
    return ModelsFound.combined([found], rows[:max_rows])
