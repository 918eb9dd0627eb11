"""Small seeded inputs the benchmarks share (asv collects no name of this module: none starts with
``time_``, ``track_``, ``peakmem_`` or ``timeraw_``)."""

from __future__ import annotations

import numpy as np

SIZE = 1.0
"""Scale of every input; the import test of the suite sets it lower to run each benchmark once, fast."""

SECRET = "education"
KNOWN = ("age", "sex", "region", "occupation", "income", "hours_per_week", "married")


def rows(count: int, least: int = 200) -> int:
    """``count`` scaled by ``SIZE``, at least ``least``."""
    return max(least, int(count * SIZE))


def truth_release(name: str, members: int):
    """The known-truth release ``name`` of ``members`` members and as many control rows (seed 0)."""
    from alc_dask.testing.truth import truth_releases

    return truth_releases(rows(members), seed=0).release(name)


def encoded_table(seed: int, n_rows: int, n_cat: int, n_cont: int, name: str):
    """Random encoded rows, as ``benchmarks/bench_search.py`` makes them: ``n_cat`` categorical
    columns of 8 codes, a secret of 5 codes and ``n_cont`` continuous columns on a 1/1000 grid of [0, 1]."""
    from alc_dask.data import EncodedTable

    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 8, (n_cat + 1, n_rows), dtype=np.int32)
    codes[n_cat] %= 5
    values = rng.integers(0, 1001, (n_cont, n_rows)).astype(np.float64) / 1000
    values[:, 0], values[:, 1 % n_rows] = 0.0, 1.0
    categorical = tuple(f"c{i}" for i in range(n_cat)) + ("secret",)
    return EncodedTable(name, categorical, tuple(f"x{j}" for j in range(n_cont)), codes, values, np.zeros(n_cont), np.ones(n_cont))
