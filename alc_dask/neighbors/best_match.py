"""The best row match's search: per target, the rows at the minimum Gower distance over one or many
anonymized tables, and the histogram of the secret's codes among them (Francis et al., "Towards
Better Attribute Inference Vulnerability Measures", Section 5.2).

Within a table, rows tie only at exactly equal distances; blocks are reduced by keeping the smallest
distance and adding the histograms of the blocks at it. Tables are then combined as the reference
does: a table's minimum distance is rounded to 3 decimals (Python's `round`), known columns the
table lacks count 0.5 each, `d' = (d * m + 0.5 * (k - m)) / k` for m of k known columns present,
and the matches of every table at the smallest `d'` are pooled.
"""

from __future__ import annotations

import hashlib
import pickle
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from alc_dask.data import Column, ColumnKind, EncodedTable, ValuePoints
from alc_dask.data.partitioned import PartitionedTable
from alc_dask.neighbors.kernel import best_match_histograms
from alc_dask.neighbors.partitioned import SPLIT_EVERY, search_tables
from alc_dask.neighbors.query import Query, scaled_per_query


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
class BestMatchSearch:
    """Targets laid out for one table's known columns (in the table's order), and the secret whose
    codes the histograms count."""

    query: Query
    secret: Column

    @classmethod
    def of(cls, targets: EncodedTable, table, secret: Column, known: Sequence[str]) -> BestMatchSearch:
        """`targets` laid out for `table` (an `EncodedTable` or `PartitionedTable` holding the secret)."""
        categorical = [c for c in table.categorical if c in known]
        continuous = [c for c in table.continuous if c in known]
        return cls(scaled_per_query(targets, table, categorical, continuous), secret)

    def block(self, block: EncodedTable, start: int) -> Matches:
        q = self.query
        distance, histogram = best_match_histograms(
            *q.arguments(),
            block.codes,
            block.values,
            q.cat_columns,
            q.cont_columns,
            searched_secret(block, self.secret, self.secret_key),
            self.secret.secret_codes.n_codes,
        )
        return Matches(distance, histogram)

    @cached_property
    def secret_key(self) -> bytes:
        """`secret_key` of the secret, once per search rather than once per block."""
        return secret_key(self.secret)

    @staticmethod
    def combine(*partials: Matches) -> Matches:
        result = partials[0]
        for other in partials[1:]:
            result = result.combine(other)
        return result


def best_matches(targets: EncodedTable, tables: Sequence, secret: Column, known: Sequence[str], split_every: int = SPLIT_EVERY) -> Matches:
    """Minimum adjusted distance and secret histogram of the matches, per target, over all `tables`.

    `tables` hold the secret and at least one known column each. `EncodedTable`s are searched in
    process; `PartitionedTable`s through Dask (see `alc_dask.neighbors.partitioned`), on the cluster
    holding their blocks.
    """
    if not tables:
        raise ValueError("best_matches needs at least one table")
    searches = [BestMatchSearch.of(targets, t, secret, known) for t in tables]
    per_table = search_tables(list(zip(tables, searches, strict=True)), split_every)
    adjusted = [matches.adjusted(s.query.n_columns, len(known)) for matches, s in zip(per_table, searches, strict=True)]
    return BestMatchSearch.combine(*adjusted)


_SEARCHED_SECRETS: weakref.WeakKeyDictionary[EncodedTable, dict[bytes, np.ndarray]] = weakref.WeakKeyDictionary()
_SEARCHED_SECRETS_LOCK = threading.Lock()


def secret_key(secret: Column) -> bytes:
    """What `searched_secret` finds a secret's codes by: its name and how it is coded, by content, as
    every batch's search arrives pickled."""
    return hashlib.blake2b(pickle.dumps((secret.name, secret.kind, secret.secret_codes)), digest_size=16).digest()


def searched_secret(block: EncodedTable, secret: Column, key: bytes) -> np.ndarray:
    """`secret_codes` of `block` as the kernel takes them (int32, contiguous), kept while the block
    lives under the secret's ``key`` (`secret_key`): a scenario searches every block once per batch
    of 50 targets, and coding a continuous secret's values anew each time (a search among up to
    4 096 points per row) was a tenth of the ALC's work on a release of 3e6 rows."""
    with _SEARCHED_SECRETS_LOCK:
        found = _SEARCHED_SECRETS.setdefault(block, {}).get(key)
    if found is None:
        found = np.ascontiguousarray(secret_codes(block, secret), dtype=np.int32)  # one type: one compiled kernel
        found.setflags(write=False)
        with _SEARCHED_SECRETS_LOCK:
            _SEARCHED_SECRETS.setdefault(block, {})[key] = found
    return found


def secret_codes(block: EncodedTable, secret: Column) -> np.ndarray:
    """The secret's code of every row of `block` (its bin for a continuous secret)."""
    if secret.kind is ColumnKind.CATEGORICAL:
        return block.codes[block.categorical.index(secret.name)]
    return secret.bins.encode(block.values[block.continuous.index(secret.name)])


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
    return np.bincount(secret_codes(block, secret), minlength=n_codes)
