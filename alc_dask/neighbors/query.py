"""A batch of queries laid out for the kernel against one table, and the scaling of its continuous
columns.

A continuous column is scaled by its range, `(y - low) / (high - low)`, with low and high over the
whole table (its recorded `value_min`/`value_max`, whatever its partitions) and the queries. Where
`high - low` overflows a double (values near ±1.8e308), values, low and high are halved first:
halving is exact, changes no ratio, and halves never overflow. The two searches differ in which
queries count and in what is scaled, as their references do:

- the best row match (Francis et al., "Towards Better Attribute Inference Vulnerability Measures",
  Section 5.2, as the reference package anonymity-loss-coefficient 1.0.32 computes it) scales each
  query by the range of the table and that query alone, so a query outside the table's span still
  scales into [0, 1] and a batch's other queries do not change its distances; the query's value and
  the row's are scaled, then subtracted;
- the k nearest rows (Anonymeter's `MixedTypeKNeighbors`, Giomi et al. 2023) take the range over
  the table and every query of the batch, as its `mixed_types_transform` scales both tables
  together, and divide the difference by it, `|x - y| / span`: the scale is centred on the query
  (low is its value, its own place 0), which gives that quotient to the last bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from alc_dask.data import EncodedTable


@dataclass(frozen=True, eq=False)
class Query:
    """Queries as the kernel takes them: codes (q, c) of the searched categorical columns; per query
    and searched continuous column, its place on its scale (`values`, NaN if missing) and the scale
    of the table's values, `(y * scale - low) / span` (each (q, v)); the searched columns' positions
    in the table, `cat_columns` (c,) and `cont_columns` (v,)."""

    codes: np.ndarray
    values: np.ndarray
    low: np.ndarray
    span: np.ndarray
    scale: np.ndarray
    cat_columns: np.ndarray
    cont_columns: np.ndarray

    @property
    def n_columns(self) -> int:
        return len(self.cat_columns) + len(self.cont_columns)

    def arguments(self) -> tuple[np.ndarray, ...]:
        """The queries' arguments of the kernel, in its order (the block's arrays go between)."""
        return self.codes, self.values, self.low, self.span, self.scale


def scaled_per_query(queries: EncodedTable, table, categorical: Sequence[str], continuous: Sequence[str]) -> Query:
    """`queries` against `table` (`EncodedTable` or `PartitionedTable`), each scaled by the range of
    the table and itself (the best row match)."""
    codes, raw, table_low, table_high = _columns(queries, table, categorical, continuous)
    low, span, scale = scaling(np.fmin(table_low, raw), np.fmax(table_high, raw))
    place = np.clip((raw * scale - low) / span, 0.0, 1.0)
    return Query(codes, place, np.ascontiguousarray(low), np.ascontiguousarray(span), np.ascontiguousarray(scale), *_positions(table, categorical, continuous))


def centred_on_queries(queries: EncodedTable, table, categorical: Sequence[str], continuous: Sequence[str]) -> Query:
    """`queries` against `table` (`EncodedTable` or `PartitionedTable`), scaled by the range over the
    table and every query, centred on each query (the k nearest rows)."""
    codes, raw, table_low, table_high = _columns(queries, table, categorical, continuous)
    high = np.fmax(np.fmax.reduce(raw, axis=0, initial=np.nan), table_high)
    low = np.fmin(np.fmin.reduce(raw, axis=0, initial=np.nan), table_low)
    _, span, scale = scaling(low, high)
    place = np.where(np.isnan(raw), np.nan, 0.0)
    every_query = np.broadcast_to(span, raw.shape).copy(), np.broadcast_to(scale, raw.shape).copy()
    return Query(codes, place, raw * scale, *every_query, *_positions(table, categorical, continuous))


def scaling(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Low, span and scale of values in [low, high], scaled `(y * scale - low) / span`.

    Scale is 1, or 0.5 where `high - low` overflows (low and span are then of halved values). A
    missing or constant column gets span 1 (every present value is equal there, every difference 0).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        scale = np.where(np.isinf(high - low), 0.5, 1.0)
    low, high = low * scale, high * scale
    span = high - low
    span = np.where(np.isnan(span) | (span == 0), 1.0, span)
    return np.nan_to_num(low), span, scale


def _columns(queries: EncodedTable, table, categorical: Sequence[str], continuous: Sequence[str]) -> tuple[np.ndarray, ...]:
    """The queries' codes (q, c) and values (q, v) of the named columns, and the table's min and max of the continuous ones."""
    codes = (
        np.stack([queries.codes[queries.categorical.index(c)] for c in categorical], axis=1) if categorical else np.empty((queries.n_rows, 0), dtype=np.int32)
    )
    values = np.stack([queries.values[queries.continuous.index(c)] for c in continuous], axis=1) if continuous else np.empty((queries.n_rows, 0))
    table_low = np.array([table.value_min[table.continuous.index(c)] for c in continuous])
    table_high = np.array([table.value_max[table.continuous.index(c)] for c in continuous])
    return np.ascontiguousarray(codes), np.ascontiguousarray(values), table_low, table_high


def _positions(table, categorical: Sequence[str], continuous: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    return np.array([table.categorical.index(c) for c in categorical], dtype=np.int64), np.array(
        [table.continuous.index(c) for c in continuous], dtype=np.int64
    )
