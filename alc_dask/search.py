"""Nearest-row search over one or many anonymized tables, each whole or split into partitions.

For a batch of targets, every usable table is searched with the Numba kernel, block by block, and
the partial results are reduced: the smallest distance wins and the histograms of the blocks at
that distance are added. Min, equality and integer addition are exact, so the answer is the same
for one partition or a hundred, in process or on a Dask cluster.

Tables are then combined as the reference does: a table's minimum distance is rounded to 3
decimals (Python's `round`), known columns the table lacks count 0.5 each,
`d' = (d * m + 0.5 * (k - m)) / k` for m of k known columns present, and the matches of every
table at the smallest `d'` are pooled. Within a table, rows tie only at exactly equal distances.

Continuous columns are scaled per query and per table, `(value - min) / (max - min)`, with min and
max over the whole table (not a partition) and the query value, so a query outside the table's
span still scales into [0, 1] and a batch's other queries do not change its distances. Where
`max - min` overflows a double (values near ±1.8e308), values, min and max are halved first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import dask
import numpy as np

from alc_dask.data import Bins, Column, ColumnKind, EncodedTable, ValuePoints
from alc_dask.data.partitioned import SPLIT_EVERY, PartitionedTable, compute
from alc_dask.kernels import best_match_histograms


@dataclass(frozen=True, eq=False)
class Matches:
    """Per query: the minimum distance (inf where no row was searched) and the histogram of the
    secret's codes among the rows at that minimum."""

    distance: np.ndarray
    histogram: np.ndarray

    def combine(self, other: Matches) -> Matches:
        distance = np.minimum(self.distance, other.distance)
        histogram = self.histogram * (self.distance == distance)[:, None] + other.histogram * (other.distance == distance)[:, None]
        return Matches(distance, histogram)

    def adjusted(self, n_present: int, n_known: int) -> Matches:
        """This table's minimum rounded to 3 decimals and weighted for the known columns it lacks."""
        rounded = np.array([round(float(d), 3) for d in self.distance])
        return Matches((rounded * n_present + 0.5 * (n_known - n_present)) / n_known, self.histogram)


@dataclass(frozen=True, eq=False)
class TableQuery:
    """A batch of targets laid out for the kernel against one table's columns."""

    codes: np.ndarray
    values: np.ndarray
    low: np.ndarray
    span: np.ndarray
    scale: np.ndarray
    cat_columns: np.ndarray
    cont_columns: np.ndarray
    secret_index: int
    secret_bins: Bins | None
    n_secret_codes: int

    @property
    def n_present(self) -> int:
        return len(self.cat_columns) + len(self.cont_columns)


def prepare_query(targets: EncodedTable, table, secret: Column, known: Sequence[str]) -> TableQuery:
    """Lay out `targets` for `table` (an `EncodedTable` or `PartitionedTable` holding the secret).

    Known columns are taken in the table's column order, whatever the order of `known`.
    """
    cat = [c for c in table.categorical if c in known]
    cont = [c for c in table.continuous if c in known]
    target_values = np.stack([targets.values[targets.continuous.index(c)] for c in cont], axis=1) if cont else np.empty((targets.n_rows, 0))
    table_low = np.array([table.value_min[table.continuous.index(c)] for c in cont])
    table_high = np.array([table.value_max[table.continuous.index(c)] for c in cont])
    low, span, scale = _scaling(np.fmin(table_low, target_values), np.fmax(table_high, target_values))
    categorical = secret.kind is ColumnKind.CATEGORICAL
    return TableQuery(
        codes=np.ascontiguousarray(
            np.stack([targets.codes[targets.categorical.index(c)] for c in cat], axis=1) if cat else np.empty((targets.n_rows, 0), dtype=np.int32)
        ),
        values=np.clip((target_values * scale - low) / span, 0.0, 1.0),
        low=np.ascontiguousarray(low),
        span=np.ascontiguousarray(span),
        scale=np.ascontiguousarray(scale),
        cat_columns=np.array([table.categorical.index(c) for c in cat], dtype=np.int64),
        cont_columns=np.array([table.continuous.index(c) for c in cont], dtype=np.int64),
        secret_index=(table.categorical if categorical else table.continuous).index(secret.name),
        secret_bins=None if categorical else secret.bins,
        n_secret_codes=secret.secret_codes.n_codes,
    )


def _scaling(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query and column: low, span and scale, the values' scaling `(y * scale - low) / span`.

    Scale is 1, or 0.5 where `high - low` overflows (then low and span are of halved values: halving
    is exact and halves never overflow). A missing or constant column gets span 1.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        scale = np.where(np.isinf(high - low), 0.5, 1.0)
    low, high = low * scale, high * scale
    span = high - low
    span = np.where(np.isnan(span) | (span == 0), 1.0, span)
    return np.nan_to_num(low), span, scale


def search_block(block: EncodedTable, query: TableQuery) -> Matches:
    """Run the kernel on one block of rows."""
    if query.secret_bins is None:
        secret = block.codes[query.secret_index]
    else:
        secret = query.secret_bins.encode(block.values[query.secret_index])
    distance, histogram = best_match_histograms(
        query.codes,
        query.values,
        query.low,
        query.span,
        query.scale,
        block.codes,
        block.values,
        query.cat_columns,
        query.cont_columns,
        np.ascontiguousarray(secret),
        query.n_secret_codes,
    )
    return Matches(distance, histogram)


def best_matches(targets: EncodedTable, tables: Sequence, secret: Column, known: Sequence[str], client=None, split_every: int = SPLIT_EVERY) -> Matches:
    """Minimum adjusted distance and secret histogram of the matches, per target, over all `tables`.

    `tables` hold the secret and at least one known column each. `EncodedTable`s are searched in
    process; `PartitionedTable`s through Dask: one task per block, tree-reduced, computed on
    `client` or on the default scheduler.
    """
    if not tables:
        raise ValueError("best_matches needs at least one table")
    queries = [prepare_query(targets, t, secret, known) for t in tables]
    per_table, delayed = {}, {}
    for i, (table, query) in enumerate(zip(tables, queries, strict=True)):
        if isinstance(table, PartitionedTable):  # pure=False: no hashing of in-process blocks for task keys
            shared = dask.delayed(query, pure=False)
            parts = [dask.delayed(search_block, pure=False)(b, shared) for b in table.blocks]
            delayed[i] = _tree_reduce(parts, split_every)
        else:
            per_table[i] = search_block(table, query)
    if delayed:
        computed = client.compute(list(delayed.values()), sync=True) if client is not None else compute(tables[next(iter(delayed))].blocks, *delayed.values())
        per_table.update(zip(delayed, computed, strict=True))
    adjusted = [per_table[i].adjusted(q.n_present, len(known)) for i, q in enumerate(queries)]
    return _combine_all(*adjusted)


def secret_frequencies(tables: Sequence, secret: Column) -> np.ndarray:
    """How many rows of `tables` hold each of the secret's codes (its bins for a continuous secret),
    block by block for a `PartitionedTable`."""
    n_codes = secret.secret_codes.n_codes
    counts = np.zeros(n_codes, dtype=np.int64)
    for table in tables:
        if isinstance(table, PartitionedTable):
            counts += np.sum(table.map_blocks(_secret_counts, secret, n_codes), axis=0)
        else:
            counts += _secret_counts(table, secret, n_codes)
    return counts


def secret_value_points(tables: Sequence, secret: Column) -> ValuePoints:
    """The values a continuous secret takes in `tables` (block by block for a `PartitionedTable`), as the codes of numeric predictions."""
    found = []
    for table in tables:
        blocks = table.map_blocks(_distinct_values, secret.name) if isinstance(table, PartitionedTable) else [_distinct_values(table, secret.name)]
        found.extend(blocks)
    return ValuePoints.of(np.concatenate(found))


def _distinct_values(block: EncodedTable, name: str) -> np.ndarray:
    return ValuePoints.of(block.values[block.continuous.index(name)]).points


def _secret_counts(block: EncodedTable, secret: Column, n_codes: int) -> np.ndarray:
    if secret.kind is ColumnKind.CATEGORICAL:
        codes = block.codes[block.categorical.index(secret.name)]
    else:
        codes = secret.bins.encode(block.values[block.continuous.index(secret.name)])
    return np.bincount(codes, minlength=n_codes)


def _combine_all(*partials: Matches) -> Matches:
    result = partials[0]
    for other in partials[1:]:
        result = result.combine(other)
    return result


def _tree_reduce(parts: list, split_every: int):
    while len(parts) > 1:
        parts = [dask.delayed(_combine_all, pure=True)(*parts[i : i + split_every]) for i in range(0, len(parts), split_every)]
    return parts[0]
