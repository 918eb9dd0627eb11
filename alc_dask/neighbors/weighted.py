"""The nearest row where disagreeing on a rare value counts more: the search of the inference
attack ``weighted_nearest``.

Gower's distance counts every categorical disagreement as 1, so a person's own row in a release
whose noise changed a few common values looks no nearer than a stranger's who shares those common
values. Record linkage weighs an agreement by how unlikely it is by chance: Fellegi & Sunter (1969,
§3) give agreement on a value the weight log(m/u), u the chance that two people agree on it (with
frequency-based weights, u is the value's frequency; Winkler 1989). Here a query disagreeing with a
row on categorical column j costs ``-log f_j(v)``: ``f_j(v)`` the share of the people (the
original) holding the query's value v, add-one smoothed so that a value they never hold costs a
finite amount. Costs add up over columns, as Fellegi & Sunter's weights do, so a column of many
values weighs more than one of two; they are divided by the categorical columns' mean entropy
(``H_j = sum_v f_j(v) (-log f_j(v))``), so that a categorical column costs 1 on average, as a
continuous column's Gower term is at most 1. Continuous columns count as in Gower's distance
(``|x - y|`` over the column's range over the table and the queries; a missing value is 0 from a
missing one and 1 from a present one).

On the calibration benchmark's 20% noisy copy of child (5 000 people, 20 categorical columns, seed
0), the members' privacy risk of `Disease` inferred from every other column is 0.13 [0.09, 0.16] by
Gower's nearest row (57.7% of members right, 51.6% of other people) and 0.17 [0.13, 0.21] by this
one (62.4%, 54.8%); a release of other people stays at about 0.

Among rows at equal distance each query draws its own at random, from a stream of its own (seeded:
reproducible, and the same whatever the order the kernel meets rows and queries in).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np

from alc_dask.data import EncodedTable
from alc_dask.neighbors.query import scaling
from alc_dask.splitmix import item_key, uniform


@dataclass(frozen=True, eq=False)
class RarityWeights:
    """Per categorical column, the cost of disagreeing with a query holding each code (``costs``),
    and with one holding a code no person holds (``unseen``)."""

    costs: dict[str, np.ndarray]
    unseen: dict[str, float]

    @classmethod
    def of(cls, people: EncodedTable, columns: Sequence[str]) -> RarityWeights:
        """The costs of ``columns``' categories among ``people``."""
        surprises, entropies = {}, {}
        for name in (c for c in columns if c in people.categorical):
            counts = np.bincount(people.column_array(name).astype(np.int64))
            surprises[name] = -np.log(np.append(counts + 1.0, 1.0) / (people.n_rows + counts.size + 1))  # the last: a code none holds
            entropies[name] = float(counts @ surprises[name][:-1]) / max(people.n_rows, 1)
        mean_entropy = float(np.mean(list(entropies.values()))) if entropies else 0.0
        scaled = {name: surprise / mean_entropy if mean_entropy > 0 else np.zeros_like(surprise) for name, surprise in surprises.items()}
        return cls({name: cost[:-1] for name, cost in scaled.items()}, {name: float(cost[-1]) for name, cost in scaled.items()})

    def of_queries(self, name: str, codes: np.ndarray) -> np.ndarray:
        """The cost of disagreeing with each of ``codes`` on column ``name``."""
        known = self.costs[name]
        return np.where(codes < known.size, known[np.minimum(codes, known.size - 1)], self.unseen[name])


def weighted_nearest(
    queries: EncodedTable, table: EncodedTable, columns: Sequence[str], weights: RarityWeights, seed: int, exclude: np.ndarray | None = None
) -> np.ndarray:
    """Per query, a row of ``table`` nearest on ``columns`` by the rarity-weighted distance, drawn
    at random among the rows at that distance, each query's draw its own (``seed`` makes them
    reproducible); ``exclude`` (one row per query, -1 for none) leaves a query's own row out. -1
    where no row is left.

    Each query draws its own: rows equal on ``columns`` may hold different secrets, and one
    order shared by every query (the first row of a random permutation) would give every query of
    a large group of equal rows the same row, so the same guess. Their successes would then rise or
    fall together, and a rate over thousands of people would vary from seed to seed far beyond its
    binomial interval (census, four quasi-identifiers of which half the people share one value
    set: a member's household role guessed right for 16% to 38% of 5 000 people as the seed
    changes)."""
    excluded = np.full(queries.n_rows, -1, dtype=np.int64) if exclude is None else np.asarray(exclude, dtype=np.int64)
    categorical = [c for c in columns if c in table.categorical]
    continuous = [c for c in columns if c in table.continuous]
    query_codes = np.array([queries.column_array(c) for c in categorical], dtype=np.int64).reshape(len(categorical), queries.n_rows)
    costs = np.array([weights.of_queries(c, query_codes[i]) for i, c in enumerate(categorical)]).reshape(len(categorical), queries.n_rows)
    codes = np.array([table.column_array(c) for c in categorical], dtype=np.int64).reshape(len(categorical), table.n_rows)
    if codes.size and -(2**15) <= codes.min() and codes.max() < 2**15:
        codes = codes.astype(np.int16)  # every query reads the whole table: 300 000 rows of int64 codes left the cache (3.1 times slower)
    query_places, places = _scaled(queries, table, continuous)
    found = np.empty(queries.n_rows, dtype=np.int64)
    _nearest(np.ascontiguousarray(query_codes.T), np.ascontiguousarray(costs.T), np.ascontiguousarray(query_places.T), codes, places, excluded, seed, found)
    return found


def _scaled(queries: EncodedTable, table: EncodedTable, continuous: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The continuous columns of the queries and the table placed on [0, 1] by their range over both."""
    query_values = np.array([queries.column_array(c) for c in continuous], dtype=np.float64).reshape(len(continuous), queries.n_rows)
    values = np.array([table.column_array(c) for c in continuous], dtype=np.float64).reshape(len(continuous), table.n_rows)
    low = np.fmin(np.fmin.reduce(query_values, axis=1, initial=np.nan), np.fmin.reduce(values, axis=1, initial=np.nan))
    high = np.fmax(np.fmax.reduce(query_values, axis=1, initial=np.nan), np.fmax.reduce(values, axis=1, initial=np.nan))
    low, span, scale = scaling(low, high)
    return ((query_values * scale[:, None] - low[:, None]) / span[:, None], np.ascontiguousarray((values * scale[:, None] - low[:, None]) / span[:, None]))


BLOCK = 512
"""Rows whose distances to a query are summed together, column by column."""
QUERIES_PER_PASS = 64
"""Queries that meet a block of rows while it is in the cache: a block of a wide table is about
30 KiB, and a table beyond the cache (a million rows of 15 columns is 60 MiB) read once per query
made the search wait on memory (5 000 queries took 6.8 times as long at 1e6 rows as at 3e5)."""


@numba.njit(nogil=True, cache=True)
def _nearest(query_codes, costs, query_places, codes, places, exclude, seed, found):
    """Each query's row (see ``weighted_nearest``): among the rows at the least distance so far, the
    one kept is replaced by the k-th met with chance 1/k (reservoir sampling: each of them equally
    likely in the end), each query drawing from a stream of its own. The distances of ``BLOCK``
    rows are summed column by column, a loop without early exits the compiler vectorizes, then the
    block's rows are met in order; ``QUERIES_PER_PASS`` queries meet each block in turn. Each
    query's sums and draws are those of a scan of the rows in order, whatever the blocks."""
    n_cat, n_cont, n_rows, n_queries = codes.shape[0], places.shape[0], codes.shape[1], query_codes.shape[0]
    distance = np.empty(BLOCK)
    best = np.empty(QUERIES_PER_PASS)
    best_row = np.empty(QUERIES_PER_PASS, dtype=np.int64)
    tied = np.empty(QUERIES_PER_PASS, dtype=np.int64)
    keys = np.empty(QUERIES_PER_PASS, dtype=np.uint64)
    complete = np.array([not np.isnan(places[j]).any() for j in range(n_cont)], dtype=np.bool_)
    for first in range(0, n_queries, QUERIES_PER_PASS):
        passed = min(QUERIES_PER_PASS, n_queries - first)
        for k in range(passed):
            best[k], best_row[k], tied[k], keys[k] = np.inf, -1, 0, item_key(seed, first + k)
        for start in range(0, n_rows, BLOCK):
            size = min(BLOCK, n_rows - start)
            block = distance[:size]
            for k in range(passed):
                q = first + k
                block[:] = 0.0
                for j in range(n_cat):
                    code, cost, column = query_codes[q, j], costs[q, j], codes[j, start : start + size]
                    for i in range(size):
                        block[i] += cost if column[i] != code else 0.0
                for j in range(n_cont):
                    x, column = query_places[q, j], places[j, start : start + size]
                    if np.isnan(x):
                        for i in range(size):
                            block[i] += 0.0 if np.isnan(column[i]) else 1.0
                    elif complete[j]:
                        for i in range(size):
                            block[i] += min(abs(x - column[i]), 1.0)
                    else:
                        for i in range(size):
                            y = column[i]
                            block[i] += 1.0 if np.isnan(y) else min(abs(x - y), 1.0)
                least, kept, ties, key = best[k], best_row[k], tied[k], keys[k]
                for i in range(size):
                    if start + i == exclude[q]:
                        continue
                    if block[i] < least:
                        least, kept, ties = block[i], start + i, 1
                    elif block[i] == least:
                        ties += 1
                        u, key = uniform(key)
                        if u * ties < 1.0:
                            kept = start + i
                best[k], best_row[k], tied[k], keys[k] = least, kept, ties, key
        for k in range(passed):
            found[first + k] = best_row[k]
