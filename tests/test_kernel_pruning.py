"""The pruned kernel against every distance computed in full: the same minima, histograms, k nearest
distances and rows, to the last bit, on random blocks with ties, missing values, constant and
overflowing columns, query codes the block's code type cannot hold, k above the rows, empty blocks
and blocks of several tiles; and the sorted search against the scan, on the same blocks."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alc_dask.neighbors import pruned as pruning
from alc_dask.neighbors.kernel import best_match_histograms, k_nearest_rows, largest_sum
from alc_dask.neighbors.pruned import k_nearest_pruned
from alc_dask.neighbors.query import Query


def full_distances(q_codes, q_values, q_low, q_span, q_scale, codes, values, cat_columns, cont_columns):
    """Every query's distance to every row, (q, n), with the kernel's arithmetic and no pruning:
    continuous terms summed in column order from 0, the mismatches added, the sum divided."""
    n_queries, n_rows = len(q_codes), codes.shape[1] if codes.shape[0] else values.shape[1]
    sums = np.zeros((n_queries, n_rows))
    for j, column in enumerate(cont_columns):
        y = values[column][None, :]
        x, low, span, scale = (a[:, j][:, None] for a in (q_values, q_low, q_span, q_scale))
        with np.errstate(all="ignore"):
            d = np.abs((y * scale - low) / span - x)
        scaled = np.where(d < 1.0, d, 1.0)
        sums = sums + np.where(np.isnan(x), (y == y).astype(np.float64), scaled)
    mismatches = np.zeros((n_queries, n_rows), dtype=np.int64)
    for j, column in enumerate(cat_columns):
        mismatches += codes[column].astype(np.int64)[None, :] != q_codes[:, j].astype(np.int64)[:, None]
    return (sums + mismatches) / (len(cat_columns) + len(cont_columns))


def full_best_match(distances, secret, n_codes):
    best = distances.min(axis=1, initial=np.inf)
    histogram = np.array([np.bincount(secret[distances[q] == best[q]], minlength=n_codes) for q in range(len(best))], dtype=np.int32).reshape(
        len(best), n_codes
    )
    return best, histogram


def full_k_nearest(distances, k, offset):
    n_queries, n_rows = distances.shape
    nearest, rows = np.full((n_queries, k), np.inf), np.full((n_queries, k), -1, dtype=np.int64)
    for q in range(n_queries):
        order = np.lexsort((np.arange(n_rows), distances[q]))[:k]
        nearest[q, : len(order)], rows[q, : len(order)] = distances[q][order], offset + order
    return nearest, rows


def random_search(rng, n_queries, n_rows, n_cat, n_cont, cardinality, code_type, missing):
    """A block and queries laid out for it: codes of `cardinality` values (some query codes beyond
    what `code_type` holds), continuous columns on a coarse grid (ties), huge (scale 0.5), constant,
    or all missing, and queries' places in and around [0, 1], some missing."""
    n_total_cat, n_total_cont = n_cat + 1, n_cont + 1  # one column of each kind is not searched
    codes = rng.integers(0, cardinality, (n_total_cat, n_rows)).astype(code_type)
    q_codes = rng.integers(0, cardinality, (n_queries, n_cat)).astype(np.int32)
    q_codes[rng.random(q_codes.shape) < 0.1] = np.iinfo(code_type).max + 1 if code_type != np.int32 else -7
    kinds = rng.integers(0, 4, n_total_cont)
    grid = rng.integers(0, 5, (n_total_cont, n_rows)) / 4
    huge = rng.choice([-1.7e308, 1.7e308, 0.0, 9e307], (n_total_cont, n_rows))
    values = np.select([kinds[:, None] == 0, kinds[:, None] == 1, kinds[:, None] == 2], [grid, huge, np.full_like(grid, 0.5)], np.nan)
    values = np.where(rng.random(values.shape) < missing, np.nan, values)
    cat_columns, cont_columns = rng.permutation(n_total_cat)[:n_cat], rng.permutation(n_total_cont)[:n_cont]
    huge_column = kinds[cont_columns] == 1
    q_scale = np.where(huge_column[None, :], 0.5, 1.0) * np.ones((n_queries, 1))
    q_low = np.where(huge_column[None, :], -0.85e308, rng.choice([0.0, -0.25], (n_queries, n_cont)))
    q_span = np.where(huge_column[None, :], 1.7e308, rng.choice([1.0, 1.25], (n_queries, n_cont)))
    q_values = rng.integers(-1, 6, (n_queries, n_cont)) / 4
    q_values = np.where(rng.random(q_values.shape) < max(missing, 0.1), np.nan, q_values)
    return q_codes, q_values, q_low, q_span, q_scale, codes, values, cat_columns, cont_columns


def assert_same(found, expected):
    for a, b in zip(found, expected, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes(), (a, b)


def check(search, k, seed):
    rng = np.random.default_rng(seed)
    distances = full_distances(*search)
    secret = rng.integers(0, 3, distances.shape[1]).astype(np.int32)
    assert_same(best_match_histograms(*search, secret, 3), full_best_match(distances, secret, 3))
    offset = int(rng.integers(0, 10**6))
    assert_same(k_nearest_rows(*search, k, offset), full_k_nearest(distances, k, offset))
    return distances


@settings(max_examples=120, deadline=None)
@given(
    n_queries=st.integers(1, 6),
    n_rows=st.integers(0, 2600),
    n_cat=st.integers(0, 5),
    n_cont=st.integers(0, 4),
    cardinality=st.integers(1, 4),
    code_type=st.sampled_from([np.int8, np.int16, np.int32]),
    missing=st.sampled_from([0.0, 0.3]),
    k=st.integers(1, 8),
    seed=st.integers(0, 2**32 - 1),
)
def test_pruned_kernel_equals_full_distances(n_queries, n_rows, n_cat, n_cont, cardinality, code_type, missing, k, seed):
    if n_cat + n_cont == 0:
        n_cat = 1
    rng = np.random.default_rng(seed)
    search = random_search(rng, n_queries, n_rows, n_cat, n_cont, cardinality, code_type, missing)
    check(search, k if n_rows == 0 else min(k, n_rows + 2), seed)


@pytest.mark.parametrize(("n_cat", "n_cont", "cardinality"), [(7, 7, 8), (10, 2, 3), (0, 6, 1), (3, 0, 2)])
def test_many_tiles_with_ties(n_cat, n_cont, cardinality):
    """Blocks longer than the largest tile, whose bounds tighten from tile to tile."""
    rng = np.random.default_rng(n_cat * 10 + n_cont)
    search = random_search(rng, 12, 9000, n_cat, n_cont, cardinality, np.int8, 0.05)
    distances = check(search, 9, 5)
    assert (distances == distances.min(axis=1, keepdims=True)).sum(axis=1).max() > 1, "rows should tie at the minimum"


def test_counts_beyond_a_byte():
    """More than 255 categorical columns are counted in int32."""
    rng = np.random.default_rng(3)
    check(random_search(rng, 4, 700, 300, 2, 2, np.int8, 0.0), 4, 3)


def test_queries_no_block_code_can_match():
    """Every query code beyond the block's int8 codes: every row mismatches every column."""
    rng = np.random.default_rng(4)
    search = list(random_search(rng, 5, 1500, 4, 2, 3, np.int8, 0.0))
    search[0] = np.full_like(search[0], 1000)
    check(tuple(search), 3, 4)


def test_k_above_the_rows_pads():
    rng = np.random.default_rng(5)
    search = random_search(rng, 3, 4, 2, 2, 2, np.int8, 0.0)
    nearest, rows = k_nearest_rows(*search, 7, 100)
    assert (rows[:, 4:] == -1).all() and np.isinf(nearest[:, 4:]).all() and (rows[:, :4] >= 100).all()
    check(search, 7, 5)


@given(bound=st.floats(0.0, 1.0), n_columns=st.integers(1, 400))
def test_largest_sum_is_the_last_double_within_the_bound(bound, n_columns):
    t = largest_sum(bound, n_columns)
    assert t / n_columns <= bound < np.nextafter(t, np.inf) / n_columns


def pruned(search, k, offset):
    """`k_nearest_pruned` on a search laid out as for the scan."""
    q_codes, q_values, q_low, q_span, q_scale, codes, values, cat_columns, cont_columns = search
    return k_nearest_pruned(Query(q_codes, q_values, q_low, q_span, q_scale, cat_columns, cont_columns), codes, values, k, offset)


@settings(max_examples=80, deadline=None)
@given(
    n_queries=st.integers(1, 150),
    n_rows=st.integers(1, 3000),
    n_cat=st.integers(0, 5),
    n_cont=st.integers(0, 4),
    cardinality=st.integers(1, 6),
    code_type=st.sampled_from([np.int8, np.int16, np.int32]),
    missing=st.sampled_from([0.0, 0.3]),
    k=st.integers(1, 8),
    piece=st.sampled_from([700, 1 << 20]),
    most_read=st.sampled_from([0.0, 0.1, 2.0]),
    seed=st.integers(0, 2**32 - 1),
)
def test_sorted_search_equals_the_scan(n_queries, n_rows, n_cat, n_cont, cardinality, code_type, missing, k, piece, most_read, seed):
    """Whatever the pieces, and whether the search gives up on its bounds at once, at 10% or never
    (`MOST_READ` 0, 0.1, 2), the sorted search answers as the scan, to the last bit."""
    if n_cat + n_cont == 0:
        n_cat = 1
    search = random_search(np.random.default_rng(seed), n_queries, n_rows, n_cat, n_cont, cardinality, code_type, missing)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pruning, "PIECE", piece)
        patch.setattr(pruning, "MOST_READ", most_read)
        assert_same(pruned(search, k, 17), k_nearest_rows(*search, k, 17))


@pytest.mark.parametrize(("n_cat", "n_cont", "k"), [(6, 3, 1), (9, 5, 1), (0, 4, 2), (4, 0, 3)])
def test_sorted_search_of_many_groups_reads_little_and_answers_as_the_scan(n_cat, n_cont, k, monkeypatch):
    """People alike in places (40 000 rows copied from 300, one value in twenty changed, some
    missing) over many groups of blocks, asked for by some of them: the bounds skip most blocks (no
    query is left to the scan), and the answer is the scan's."""
    from alc_dask.data import EncodedTable
    from alc_dask.neighbors.nearest import KNearestSearch

    rng = np.random.default_rng(n_cat * 10 + n_cont)
    copies = rng.integers(0, 300, 40_000)
    codes = {f"c{j}": np.where(rng.random(40_000) < 0.05, 0, rng.integers(0, 12, 300)[copies]) for j in range(n_cat)}
    values = {f"x{j}": np.where(rng.random(40_000) < 0.05, np.nan, rng.normal(0, 1, 300)[copies]) for j in range(n_cont)}
    table = EncodedTable.build("t", codes, values)
    search = KNearestSearch.of(table.rows(rng.integers(0, 40_000, 300)), table, [*codes, *values], k)
    q = search.query
    scanned = k_nearest_rows(*q.arguments(), table.codes, table.values, q.cat_columns, q.cont_columns, k, 3)
    monkeypatch.setattr(pruning, "k_nearest_rows", lambda *a: pytest.fail("queries left to the scan"))
    assert_same(k_nearest_pruned(q, table.codes, table.values, k, 3), scanned)


def test_the_search_prunes_a_large_block_and_answers_as_the_scan(monkeypatch):
    """`KNearestSearch.block` takes the sorted search from `PRUNE_FROM` rows and `PRUNE_QUERIES`
    queries, with the same answer as the scan below them."""
    from alc_dask.data import EncodedTable
    from alc_dask.neighbors import nearest

    rng = np.random.default_rng(8)
    table = EncodedTable.build("t", {f"c{j}": rng.integers(0, 4, 5000) for j in range(4)}, {"x": rng.integers(0, 9, 5000) / 8.0})
    queries = table.rows(rng.integers(0, 5000, 200))
    search = nearest.KNearestSearch.of(queries, table, ["c0", "x", "c2", "c3"], 3)
    calls = []
    monkeypatch.setattr(nearest, "k_nearest_pruned", lambda *a: calls.append(a) or pruning.k_nearest_pruned(*a))
    scanned = search.block(table, 11)
    assert not calls
    monkeypatch.setattr(pruning, "PRUNE_FROM", 5000)
    monkeypatch.setattr(pruning, "PRUNE_QUERIES", 200)
    assert_same(search.block(table, 11), scanned)
    assert len(calls) == 1
