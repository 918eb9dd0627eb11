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

Among rows at equal distance each query takes the one its own random ranking of the rows puts first
(seeded: reproducible). The ranking is of row numbers, so the row taken does not depend on the order
the search meets rows in: the search sorts the table so that alike rows share blocks
(``alc_dask.neighbors.row_blocks``) and skips every block whose bounds put all its rows farther than
the nearest row met so far. On ``check``'s generated tables of 1e6 rows it sums 3% of the
distances a scan would (1.3% at 3e6 rows; ``benchmarks/bench_weighted_nearest.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np

from alc_dask.data import EncodedTable
from alc_dask.data.partitioned import PartitionedTable
from alc_dask.neighbors.query import scaling
from alc_dask.neighbors.row_blocks import BLOCK, BlockBounds, SortedRows
from alc_dask.splitmix import item_key, next_word


@dataclass(frozen=True, eq=False)
class RarityWeights:
    """Per categorical column, the cost of disagreeing with a query holding each code (``costs``),
    and with one holding a code no person holds (``unseen``)."""

    costs: dict[str, np.ndarray]
    unseen: dict[str, float]

    @classmethod
    def of(cls, people: EncodedTable | PartitionedTable, columns: Sequence[str]) -> RarityWeights:
        """The costs of ``columns``' categories among ``people`` (read column by column: a table
        kept in parts is not gathered whole)."""
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


@dataclass(frozen=True, eq=False)
class WeightedSearch:
    """A table sorted for the search on ``columns`` (once: the members' and the control's searches
    share it) and the costs it is searched with."""

    categorical: list[str]
    continuous: list[str]
    weights: RarityWeights
    sorted_rows: SortedRows

    @classmethod
    def of(cls, table: EncodedTable, columns: Sequence[str], weights: RarityWeights) -> WeightedSearch:
        categorical = [c for c in columns if c in table.categorical]
        continuous = [c for c in columns if c in table.continuous]
        codes = np.array([table.column_array(c) for c in categorical]).reshape(len(categorical), table.n_rows)
        narrow = not codes.size or (-(2**15) <= codes.min() and codes.max() < 2**15)
        codes = codes.astype(np.int16 if narrow else np.int64)  # int16: a block of a wide table stays a few KiB
        values = np.array([table.column_array(c) for c in continuous], dtype=np.float64).reshape(len(continuous), table.n_rows)
        priority = np.array([weights.of_queries(c, table.column_array(c)).mean() if table.n_rows else 0.0 for c in categorical])
        return cls(categorical, continuous, weights, SortedRows.of(codes, values, priority))

    def nearest(self, queries: EncodedTable, seed: int, exclude: np.ndarray | None = None) -> np.ndarray:
        """Per query, a row of the table nearest on the columns by the rarity-weighted distance,
        taken among the rows at that distance by the query's own random ranking of the rows
        (``seed`` makes it reproducible); ``exclude`` (one row per query, -1 for none) leaves a
        query's own row out. -1 where no row is left.

        Each query ranks the rows its own way: rows equal on the columns may hold different
        secrets, and one order shared by every query (the first row of a random permutation) would
        give every query of a large group of equal rows the same row, so the same guess. Their
        successes would then rise or fall together, and a rate over thousands of people would vary
        from seed to seed far beyond its binomial interval (census, four quasi-identifiers of which
        half the people share one value set: a member's household role guessed right for 16% to 38%
        of 5 000 people as the seed changes)."""
        found, _ = self.nearest_and_read(queries, seed, exclude)
        return found

    def nearest_and_read(self, queries: EncodedTable, seed: int, exclude: np.ndarray | None = None) -> tuple[np.ndarray, int]:
        """``nearest``, and how many (row, query) distances the search summed: what its bounds left."""
        excluded = np.full(queries.n_rows, -1, dtype=np.int64) if exclude is None else np.asarray(exclude, dtype=np.int64)
        query_codes = np.array([queries.column_array(c) for c in self.categorical], dtype=np.int64).reshape(len(self.categorical), queries.n_rows)
        costs = np.array([self.weights.of_queries(c, query_codes[i]) for i, c in enumerate(self.categorical)]).reshape(len(self.categorical), queries.n_rows)
        query_values = np.array([queries.column_array(c) for c in self.continuous], dtype=np.float64).reshape(len(self.continuous), queries.n_rows)
        query_places, places = _scaled(query_values, self.sorted_rows.values)
        in_turn = np.argsort(self.sorted_rows.key_of.keys(query_codes, query_values))  # alike queries pass together
        found = np.empty(queries.n_rows, dtype=np.int64)
        read = _nearest(
            np.ascontiguousarray(query_codes.T),
            np.ascontiguousarray(costs.T),
            np.ascontiguousarray(query_places.T),
            self.sorted_rows.codes,
            places,
            self.sorted_rows.rows,
            BlockBounds.of(self.sorted_rows.codes, places),
            in_turn,
            excluded,
            seed,
            found,
        )
        return found, int(read)


def _scaled(query_values: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The continuous columns of the queries and the table placed on [0, 1] by their range over both."""
    low = np.fmin(np.fmin.reduce(query_values, axis=1, initial=np.nan), np.fmin.reduce(values, axis=1, initial=np.nan))
    high = np.fmax(np.fmax.reduce(query_values, axis=1, initial=np.nan), np.fmax.reduce(values, axis=1, initial=np.nan))
    low, span, scale = scaling(low, high)
    return ((query_values * scale[:, None] - low[:, None]) / span[:, None], np.ascontiguousarray((values * scale[:, None] - low[:, None]) / span[:, None]))


QUERIES_PER_PASS = 64
"""Queries that meet a block of rows while it is in the cache: a block of a wide table is about
30 KiB, and a table beyond the cache (a million rows of 15 columns is 60 MiB) read once per query
made the search wait on memory (5 000 queries took 6.8 times as long at 1e6 rows as at 3e5)."""
NO_RANK = np.uint64(0xFFFFFFFFFFFFFFFF)


@numba.njit(nogil=True, cache=True, inline="always")
def _bound(q, b, query_codes, costs, query_places, bounds):
    """No row of block b is nearer to query q than this: per column, what the block's bounds force
    (a code outside its range costs the disagreement; a value, its distance to the range), summed
    in the order the distances are, so that rounding keeps it below every row's distance."""
    code_low, code_high, place_low, place_high, place_missing = bounds
    total = 0.0
    for j in range(query_codes.shape[1]):
        code = query_codes[q, j]
        total += costs[q, j] if code < code_low[b, j] or code > code_high[b, j] else 0.0
    for j in range(query_places.shape[1]):
        x = query_places[q, j]
        if np.isnan(x):
            total += 0.0 if place_missing[b, j] else 1.0
        elif x < place_low[b, j]:
            total += min(place_low[b, j] - x, 1.0)
        elif x > place_high[b, j]:
            total += min(x - place_high[b, j], 1.0)
        else:
            total += 0.0
    return total


@numba.njit(nogil=True, cache=True, inline="always")
def _sum_block(q, start, size, query_codes, costs, query_places, codes, places, complete, distance):
    """The distances of rows ``start:start + size`` to query q, column by column: loops without
    early exits, which the compiler vectorizes."""
    block = distance[:size]
    block[:] = 0.0
    for j in range(codes.shape[0]):
        code, cost, column = query_codes[q, j], costs[q, j], codes[j, start : start + size]
        for i in range(size):
            block[i] += cost if column[i] != code else 0.0
    for j in range(places.shape[0]):
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
    return block


@numba.njit(nogil=True, cache=True)
def _nearest(query_codes, costs, query_places, codes, places, rows, bounds, in_turn, exclude, seed, found):
    """Each query's row (see ``WeightedSearch.nearest``), the table sorted (``rows[p]``: the row at
    place p) and cut into blocks with their ``bounds``. Queries pass ``QUERIES_PER_PASS`` at a time
    in the order ``in_turn``; each first reads the block its bounds favour, then, block after block,
    every block whose bound is not above the least distance it has met. Among rows at the least
    distance the one of least rank (a word of the query's stream mixed with the row number) is
    kept: the same row whatever the order and the blocks. Returns the (row, query) distances summed."""
    n_rows, n_queries = rows.shape[0], query_codes.shape[0]
    n_blocks = (n_rows + BLOCK - 1) // BLOCK
    distance = np.empty(BLOCK)
    best = np.empty(QUERIES_PER_PASS)
    best_row = np.empty(QUERIES_PER_PASS, dtype=np.int64)
    best_rank = np.empty(QUERIES_PER_PASS, dtype=np.uint64)
    keys = np.empty(QUERIES_PER_PASS, dtype=np.uint64)
    first_block = np.empty(QUERIES_PER_PASS, dtype=np.int64)
    complete = np.array([not np.isnan(places[j]).any() for j in range(places.shape[0])], dtype=np.bool_)
    read = 0
    for first in range(0, n_queries, QUERIES_PER_PASS):
        passed = min(QUERIES_PER_PASS, n_queries - first)
        for k in range(passed):
            q = in_turn[first + k]
            best[k], best_row[k], best_rank[k], keys[k] = np.inf, -1, NO_RANK, item_key(seed, q)
            first_block[k], least_bound = -1, np.inf
            for b in range(n_blocks):
                bound = _bound(q, b, query_codes, costs, query_places, bounds)
                if bound < least_bound:
                    first_block[k], least_bound = b, bound
        for turn in range(-1, n_blocks):
            for k in range(passed):
                q = in_turn[first + k]
                b = first_block[k] if turn < 0 else turn
                if b < 0 or (turn >= 0 and b == first_block[k]) or _bound(q, b, query_codes, costs, query_places, bounds) > best[k]:
                    continue
                start = b * BLOCK
                size = min(BLOCK, n_rows - start)
                read += size
                block = _sum_block(q, start, size, query_codes, costs, query_places, codes, places, complete, distance)
                least, kept, kept_rank, key = best[k], best_row[k], best_rank[k], keys[k]
                for i in range(size):
                    if block[i] > least:
                        continue
                    row = rows[start + i]
                    if row == exclude[q]:
                        continue
                    rank, _ = next_word(key ^ np.uint64(row))
                    if block[i] < least or rank < kept_rank or (rank == kept_rank and row < kept):
                        least, kept, kept_rank = block[i], row, rank
                best[k], best_row[k], best_rank[k] = least, kept, kept_rank
        for k in range(passed):
            found[in_turn[first + k]] = best_row[k]
    return read
