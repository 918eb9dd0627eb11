"""The nearest-rows stack: the same answers, to the last bit, as the two stacks it replaced, and one
distance of a tile behind both reducers."""

from pathlib import Path

import numpy as np

from alc_dask.data import CodeTable, Column, ColumnKind, EncodedTable
from alc_dask.data.partitioned import partition_table
from alc_dask.neighbors.best_match import BestMatchSearch, best_matches
from alc_dask.neighbors.kernel import best_match_histograms, k_nearest_rows
from alc_dask.neighbors.nearest import k_nearest

STORED = Path(__file__).parent / "data" / "neighbors-0.6.0.npz"
"""`searched()` as alc_dask 0.6.0 computed it, with `alc_dask.search.best_matches` and
`alc_dask.nearest.k_nearest` (commit 0d20db1, before they became `alc_dask.neighbors`)."""

SECRET = Column("s", ColumnKind.CATEGORICAL, codes=CodeTable(np.arange(4)))
COLUMNS = ["c0", "c1", "c2", "x0", "x1", "x2"]


def values(rng, n, kind):
    """Continuous values with 10% missing: a coarse grid (ties), near ±1.8e308 (ranges that overflow
    and are halved), wide normals, a constant, or nothing but missing values."""
    grid = rng.integers(0, 6, n) * 0.5
    huge = rng.choice([-1.7e308, 1.7e308, 0.0, 9e307, -3e307], n) * rng.uniform(0.5, 1, n)
    drawn = [grid, huge, rng.normal(0, 1e3, n), np.full(n, 2.5), np.full(n, np.nan)][kind]
    return np.where(rng.random(n) < 0.1, np.nan, drawn)


def tables(seed):
    """Queries, a table and a second table lacking c1 and x0, with a secret `s` of 4 codes."""
    rng = np.random.default_rng(seed)
    kinds = rng.integers(0, 5, 3)

    def table(name, n, drop=()):
        codes = {f"c{i}": rng.integers(0, 3, n).astype(np.int32) for i in range(3) if f"c{i}" not in drop}
        codes["s"] = rng.integers(0, 4, n).astype(np.int32)
        return EncodedTable.build(name, codes, {f"x{j}": values(rng, n, kinds[j]) for j in range(3) if f"x{j}" not in drop})

    return table("queries", 40), table("a", 3000), table("b", 900, drop=("c1", "x0"))


def searched(seeds=range(16)) -> dict[str, np.ndarray]:
    """Best matches over one table, two, and a partitioned one beside a whole one; the k nearest of
    a whole and of a partitioned table; on random known columns and k."""
    found = {}
    for seed in seeds:
        queries, a, b = tables(seed)
        rng = np.random.default_rng(1000 + seed)
        known = list(rng.choice(COLUMNS, int(rng.integers(1, 7)), replace=False))
        for label, searched_tables in (("one", [a]), ("two", [a, b]), ("parts", [partition_table(a, 333), b])):
            matches = best_matches(queries, searched_tables, SECRET, known, split_every=3)
            found[f"best-{seed}-{label}-distance"], found[f"best-{seed}-{label}-histogram"] = matches.distance, matches.histogram
        k = int(rng.integers(1, 12))
        for label, candidates in (("whole", a), ("parts", partition_table(a, 257))):
            found[f"nearest-{seed}-{label}-distance"], found[f"nearest-{seed}-{label}-rows"] = k_nearest(queries, candidates, known, k, split_every=3)
    return found


def test_every_search_gives_what_0_6_0_gave_to_the_last_bit():
    stored = np.load(STORED)
    found = searched()
    assert sorted(found) == sorted(stored.files)
    for name, array in found.items():
        assert array.dtype == stored[name].dtype and array.shape == stored[name].shape, name
        assert array.tobytes() == stored[name].tobytes(), name
    with np.errstate(over="ignore"):
        assert any(np.isinf(table.value_max - table.value_min).any() for _, table, _ in map(tables, range(16))), "a range should overflow"


def test_both_reducers_see_the_same_distances():
    """The k nearest of every row, in order, begin at the minimum, and the rows there are the ones
    the histogram counts."""
    ties = 0
    for seed in range(4):
        queries, table, _ = tables(seed)
        q = BestMatchSearch.of(queries, table, SECRET, COLUMNS).query
        secret = table.codes[table.categorical.index("s")]
        arguments = (*q.arguments(), table.codes, table.values, q.cat_columns, q.cont_columns)
        best, histogram = best_match_histograms(*arguments, secret, 4)
        nearest, rows = k_nearest_rows(*arguments, table.n_rows, 0)
        np.testing.assert_array_equal(nearest[:, 0], best)
        assert (np.diff(nearest, axis=1) >= 0).all()
        for i in range(len(best)):
            np.testing.assert_array_equal(np.bincount(secret[rows[i][nearest[i] == best[i]]], minlength=4), histogram[i])
        ties += (histogram.sum(axis=1) > 1).sum()
    assert ties, "rows should tie at the minimum"
