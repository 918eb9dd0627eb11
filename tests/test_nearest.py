"""k-nearest rows: against a numpy brute force and the `gower` package, for any partitioning, on a cluster."""

import dask
import gower
import numpy as np
import pandas as pd
import pytest

from alc_dask import Release
from alc_dask.data import EncodedTable
from alc_dask.data.partitioned import partition_table
from alc_dask.neighbors.nearest import k_nearest

CATEGORICAL = ["c0", "c1", "c2"]
CONTINUOUS = ["x0", "x1"]


def random_tables(rng, n_queries, n_rows, missing=0.15):
    """Queries and candidates with few categories and continuous values on a coarse grid (many ties),
    the candidates' columns in another order than the queries'."""

    def table(name, n, order):
        codes = {c: rng.integers(0, 3, n).astype(np.int32) for c in CATEGORICAL}
        values = {c: np.where(rng.random(n) < missing, np.nan, rng.integers(0, 5, n) * 0.5) for c in CONTINUOUS}
        return EncodedTable.build(name, {c: codes[c] for c in order(CATEGORICAL)}, {c: values[c] for c in order(CONTINUOUS)})

    return table("queries", n_queries, list), table("candidates", n_rows, lambda c: c[::-1])


def brute_force(queries, candidates, columns, k):
    """Every query against every row: continuous distances over the range of both tables, summed in
    column order, plus the categorical mismatches, over the number of columns; then sorted by
    (distance, row)."""
    continuous = np.zeros((queries.n_rows, candidates.n_rows))
    mismatches = np.zeros((queries.n_rows, candidates.n_rows), dtype=np.int64)
    for c in columns:
        if c in CONTINUOUS:
            x = queries.values[queries.continuous.index(c)][:, None]
            y = candidates.values[candidates.continuous.index(c)][None, :]
            span = np.nanmax([np.nanmax(x), np.nanmax(y)]) - np.nanmin([np.nanmin(x), np.nanmin(y)])
            both_missing, one_missing = np.isnan(x) & np.isnan(y), np.isnan(x) ^ np.isnan(y)
            continuous += np.where(both_missing, 0.0, np.where(one_missing, 1.0, np.abs(x - y) / (span or 1.0)))
        else:
            x = queries.codes[queries.categorical.index(c)][:, None]
            mismatches += x != candidates.codes[candidates.categorical.index(c)][None, :]
    distances = (continuous + mismatches) / len(columns)
    order = np.lexsort((np.broadcast_to(np.arange(candidates.n_rows), distances.shape), distances), axis=1)[:, :k]
    return np.take_along_axis(distances, order, axis=1), order


def assert_same(actual, expected):
    np.testing.assert_array_equal(actual[0], expected[0])
    np.testing.assert_array_equal(actual[1], expected[1])


@pytest.mark.parametrize(
    ("seed", "columns", "k"),
    [
        (0, ["x1", "c0", "x0", "c2", "c1"], 10),
        (1, ["c1", "c0"], 7),
        (2, ["x0"], 25),
        (3, ["x1", "c2"], 1),
    ],
)
def test_equals_brute_force_with_ties(seed, columns, k):
    queries, candidates = random_tables(np.random.default_rng(seed), 60, 5000)
    actual = k_nearest(queries, candidates, columns, k)
    expected, one_more = brute_force(queries, candidates, columns, k + 1)
    assert_same(actual, (expected[:, :k], one_more[:, :k]))
    assert (expected[:, k - 1] == expected[:, k]).any(), "rows should tie at the k-th distance"


def test_equals_gower_package():
    rng = np.random.default_rng(5)

    def frame(n):  # no missing values: `gower` counts two missing categories as a mismatch
        return pd.DataFrame(
            {
                "c": rng.choice(list("abc"), n).astype(object),
                "x": rng.uniform(1, 50, n),
                "y": rng.uniform(-3, 8, n),
                "d": rng.choice(list("pq"), n).astype(object),
            }
        )

    release = Release.load(frame(40), frame(900), columns={"x": "continuous", "y": "continuous"})
    original, anonymized = release.original, release.anonymized[0]
    distances, indices = k_nearest(original, anonymized, ["c", "x", "y", "d"], 8)
    columns = ["c", "x", "y", "d"]  # `gower` takes the range over both tables, as Anonymeter does
    expected = gower.gower_matrix(
        frame_of(release, original, columns), frame_of(release, anonymized, columns), cat_features=[c in original.categorical for c in columns]
    )
    np.testing.assert_allclose(distances, np.sort(expected, axis=1)[:, :8], atol=1e-6)
    np.testing.assert_allclose(distances, np.take_along_axis(expected, indices, axis=1), atol=1e-6)


def frame_of(release, table, columns):
    """The table's rows decoded, categories as Python objects (what `gower` compares)."""
    return pd.DataFrame(
        {
            c: pd.Series(release.decode(c, table.codes[table.categorical.index(c)]), dtype=object)
            if c in table.categorical
            else table.values[table.continuous.index(c)]
            for c in columns
        }
    )


@pytest.mark.parametrize("rows_per_partition", [1, 7, 1000])
def test_partitions_do_not_change_the_answer(rows_per_partition):
    queries, candidates = random_tables(np.random.default_rng(8), 30, 1500)
    columns = ["c0", "x0", "c1", "x1"]
    whole = k_nearest(queries, candidates, columns, 12)
    with dask.config.set(scheduler="threads"):
        split = k_nearest(queries, partition_table(candidates, rows_per_partition), columns, 12, split_every=3)
    assert_same(split, whole)


@pytest.mark.parametrize("rows_per_partition", [None, 2])
def test_fewer_rows_than_k_are_padded(rows_per_partition):
    queries, candidates = random_tables(np.random.default_rng(9), 4, 3)
    table = candidates if rows_per_partition is None else partition_table(candidates, rows_per_partition)
    distances, indices = k_nearest(queries, table, ["c0", "x0"], 5)
    expected = brute_force(queries, candidates, ["c0", "x0"], 3)
    assert_same((distances[:, :3], indices[:, :3]), expected)
    assert np.isinf(distances[:, 3:]).all() and (indices[:, 3:] == -1).all()


def test_missing_value_is_a_category_of_its_own():
    """Two missing values match, missing against present is a full mismatch, continuous or not."""
    missing_code = 9
    queries = EncodedTable.build("q", {"c": np.array([missing_code, 0], dtype=np.int32)}, {"x": np.array([np.nan, 4.0])})
    candidates = EncodedTable.build("t", {"c": np.array([missing_code, 0, missing_code, 0], dtype=np.int32)}, {"x": np.array([np.nan, np.nan, 0.0, 2.0])})
    distances, indices = k_nearest(queries, candidates, ["c", "x"], 4)
    np.testing.assert_array_equal(indices, [[0, 1, 2, 3], [3, 1, 0, 2]])
    np.testing.assert_array_equal(distances, [[0.0, 0.5, 0.5, 1.0], [0.25, 0.5, 1.0, 1.0]])


@pytest.mark.parametrize("scale", [1e308, 1e-322, 1e-300])
def test_huge_and_tiny_values_scale_without_overflow(scale):
    queries = EncodedTable.build("q", {}, {"x": np.array([-1.0, 1.0]) * scale})
    candidates = EncodedTable.build("t", {}, {"x": np.array([1.0, 0.0, -1.0]) * scale})
    distances, indices = k_nearest(queries, candidates, ["x"], 3)
    np.testing.assert_array_equal(indices, [[2, 1, 0], [0, 1, 2]])
    np.testing.assert_array_equal(distances, [[0.0, 0.5, 1.0]] * 2)


def test_constant_column_has_no_distance():
    queries = EncodedTable.build("q", {}, {"x": np.array([3.0])})
    candidates = EncodedTable.build("t", {}, {"x": np.array([3.0, np.nan, 3.0])})
    assert_same(k_nearest(queries, candidates, ["x"], 3), ([[0.0, 0.0, 1.0]], [[0, 2, 1]]))


def test_rejects_bad_arguments():
    queries, candidates = random_tables(np.random.default_rng(3), 2, 10)
    with pytest.raises(ValueError, match="k must be"):
        k_nearest(queries, candidates, ["c0"], 0)
    with pytest.raises(ValueError, match=r"\['nope'\]"):
        k_nearest(queries, candidates, ["c0", "nope"], 1)
    with pytest.raises(ValueError, match="at least one column"):
        k_nearest(queries, candidates, [], 1)


def test_local_cluster_equals_in_process():
    distributed = pytest.importorskip("distributed")
    queries, candidates = random_tables(np.random.default_rng(4), 25, 2000)
    columns = ["x0", "c2", "x1", "c0"]
    expected = k_nearest(queries, candidates, columns, 6)
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
        distributed.Client(cluster) as client,
    ):
        on_cluster = k_nearest(queries, partition_table(candidates, 97, client=client), columns, 6)
    assert_same(on_cluster, expected)


def test_searches_of_the_same_queries_at_the_same_time_run_once():
    """Two evaluations on two workers searching the same records at once (two membership attacks):
    named, their block tasks share keys and the scheduler computes each once; unnamed, each runs its own."""
    distributed = pytest.importorskip("distributed")
    queries, candidates = random_tables(np.random.default_rng(5), 3000, 40_000)
    columns = ["x0", "c2", "x1", "c0"]
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
        distributed.Client(cluster) as client,
    ):
        table = partition_table(candidates, 10_000, client=client)
        workers = sorted(client.scheduler_info()["workers"])

        def search(shared_as):  # in a task, as a scenario searches
            return k_nearest(queries, table, columns, 1, shared_as=shared_as)

        def searched_blocks(shared_as):
            with distributed.get_task_stream(client) as stream:
                tasks = [client.submit(search, shared_as, workers=[worker], pure=False) for worker in workers]
                first, second = client.gather(tasks)
            assert_same(first, second)
            return sum(str(task["key"]).startswith("search_block") for task in stream.data)

        assert searched_blocks("the same 3000 records") == 4
        assert searched_blocks(None) == 8


@pytest.mark.parametrize("k", [1, 3, 40])
def test_shuffled_table_reads_only_what_can_be_nearest_and_answers_as_the_whole_table(k):
    """The shuffled search reads the first k of each distinct row and each distinct query once; it
    must answer what a search of the whole shuffled table answers, ties (frequent here) included."""
    from alc_dask.neighbors.nearest import ShuffledTable

    rng = np.random.default_rng(11)
    queries, candidates = random_tables(rng, 200, 600)
    queries = queries.rows(np.concatenate([np.arange(200), np.arange(50)]))  # repeated queries too
    for columns in (["c0", "x1"], ["c2"], CATEGORICAL + CONTINUOUS):
        shuffled = ShuffledTable.of(candidates, np.random.default_rng(3))
        _, found = k_nearest(queries, candidates.rows(shuffled.order), columns, k)
        np.testing.assert_array_equal(shuffled.k_nearest(queries, columns, k), np.where(found >= 0, shuffled.order[np.maximum(found, 0)], -1))
    small = candidates.rows(np.arange(5))
    assert (ShuffledTable.of(small, rng).k_nearest(queries, ["c0"], 8)[:, 5:] == -1).all()  # fewer rows than k
