"""The Gower kernel through the public search (``alc_dask.neighbors.best_match.best_matches``), on
one core: the mixed table of ``benchmarks/bench_search.py`` (8 categorical and 6 continuous known
columns), smaller."""

import time

import numpy as np

from . import inputs


class GowerKernel:
    """Best row matches of 200 queries against 20 000 rows × 14 known columns."""

    def setup(self):
        import numba

        from alc_dask.data import CodeTable, Column, ColumnKind
        from alc_dask.neighbors.best_match import best_matches

        numba.set_num_threads(1)
        self.table = inputs.encoded_table(2024, inputs.rows(20_000), 8, 6, "anonymized")
        self.queries = inputs.encoded_table(2025, inputs.rows(200, least=20), 8, 6, "queries")
        self.known = list(self.table.categorical[:-1] + self.table.continuous)
        self.secret = Column("secret", ColumnKind.CATEGORICAL, codes=CodeTable(np.arange(5)))
        self.search = best_matches
        self.search(self.queries.rows(slice(0, 2)), [self.table], self.secret, self.known)  # compiled before timing
        self.cells = self.queries.n_rows * self.table.n_rows * len(self.known)

    def time_best_matches(self):
        self.search(self.queries, [self.table], self.secret, self.known)

    def track_cells_per_second(self):
        """Cells (query × row × column) per second: the goal is 1e10 on one core."""
        started = time.perf_counter()
        self.search(self.queries, [self.table], self.secret, self.known)
        return self.cells / (time.perf_counter() - started)

    track_cells_per_second.unit = "cells/s"
