"""Partitioned search: the same matches for any split, several tables, threads and a real cluster."""

import dask
import numpy as np
import pytest

from alc_dask import Release
from alc_dask.data.partitioned import partition, partition_table
from alc_dask.neighbors.best_match import Matches, best_matches

KNOWN = ["c0", "c1", "k", "x0", "x1"]


@pytest.fixture
def release(make_table):
    rng = np.random.default_rng(11)
    return Release.load(
        make_table(rng, 50),
        [make_table(rng, 700, extra_letter="e"), make_table(rng, 400).drop(columns=["x0", "c1"])],
        columns={"x2": "continuous"},
    )


def assert_same(a: Matches, b: Matches):
    np.testing.assert_array_equal(a.distance, b.distance)
    np.testing.assert_array_equal(a.histogram, b.histogram)


@pytest.mark.parametrize("rows_per_partition", [1, 13, 256, 10_000])
@pytest.mark.parametrize("secret", ["c2", "x2"])
def test_partitions_do_not_change_matches(release, rows_per_partition, secret):
    whole = best_matches(release.original, release.anonymized, release.column(secret), KNOWN)
    parts = partition(release, rows_per_partition)
    with dask.config.set(scheduler="threads"):
        split = best_matches(release.original, parts.anonymized, parts.column(secret), KNOWN, split_every=3)
    assert_same(whole, split)
    assert whole.histogram.sum(axis=1).min() >= 1


def test_several_tables_reduce_like_one_at_a_time(release):
    secret = release.column("c2")
    both = best_matches(release.original, release.anonymized, secret, KNOWN)
    first, second = (best_matches(release.original, [t], secret, KNOWN) for t in release.anonymized)
    np.testing.assert_array_equal(both.distance, np.minimum(first.distance, second.distance))
    expected = first.histogram * (first.distance == both.distance)[:, None] + second.histogram * (second.distance == both.distance)[:, None]
    np.testing.assert_array_equal(both.histogram, expected)
    assert (first.distance != second.distance).any() and (first.distance == second.distance).any()


def test_mixed_in_process_and_partitioned_tables(release):
    secret = release.column("x2")
    whole = best_matches(release.original, release.anonymized, secret, KNOWN)
    mixed = [release.anonymized[0], partition_table(release.anonymized[1], 50)]
    assert_same(whole, best_matches(release.original, mixed, secret, KNOWN))


def test_query_batch_does_not_change_a_query(release):
    secret = release.column("c2")
    batch = best_matches(release.original, release.anonymized, secret, KNOWN)
    for row in (0, 17, 49):
        alone = best_matches(release.targets([row]), release.anonymized, secret, KNOWN)
        np.testing.assert_array_equal(alone.distance, batch.distance[[row]])
        np.testing.assert_array_equal(alone.histogram, batch.histogram[[row]])


def test_local_cluster_equals_in_process(release):
    distributed = pytest.importorskip("distributed")
    expected = best_matches(release.original, release.anonymized, release.column("x2"), KNOWN)
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
        distributed.Client(cluster) as client,
    ):
        parts = partition(release, 97, client=client)
        on_cluster = best_matches(release.original, parts.anonymized, parts.column("x2"), KNOWN)  # the blocks hold their client
    assert_same(expected, on_cluster)


def test_partition_size_must_be_positive(release):
    with pytest.raises(ValueError, match="rows_per_partition"):
        partition(release, 0)


@pytest.mark.parametrize(
    "index",
    [
        slice(None),
        slice(100, 450),
        np.arange(30, 60),
        np.array([5, 3, 4, 699, 0]),
        np.array([7]),
        np.arange(700) % 2 == 0,
        np.sort(np.random.default_rng(1).permutation(700)[:350]),
        np.array([3, 9, 690]),
    ],
    ids=["all", "slice", "consecutive", "unordered", "one", "mask", "random-half", "sparse"],
)
def test_rows_gathered_from_parts_are_the_rows_of_the_table(release, index):
    """Consecutive rows of a part are asked of it as a slice (a whole table gathered carried every
    row's index in its graph), many increasing rows as a bit mask, others by their indices: the same
    rows either way."""
    table = release.anonymized[0]
    parted = partition_table(table, 64)
    gathered, expected = parted.rows(index), table.rows(index)
    np.testing.assert_array_equal(gathered.codes, expected.codes)
    np.testing.assert_array_equal(gathered.values, expected.values)


def test_a_block_codes_a_secret_once_for_every_search_of_it(release):
    """Each batch's search arrives pickled: the secret coded the same way is found by content, and
    the codes, read-only, are the block's; a secret coded otherwise is coded anew."""
    import pickle
    from dataclasses import replace

    from alc_dask.data.encoding import ValuePoints
    from alc_dask.neighbors.best_match import searched_secret, secret_codes, secret_key

    def searched(block, column):
        return searched_secret(block, column, secret_key(column))

    block, column = release.anonymized[0], release.column("x2")
    first = searched(block, column)
    assert searched(block, pickle.loads(pickle.dumps(column))) is first
    assert not first.flags.writeable and first.dtype == np.int32
    np.testing.assert_array_equal(first, secret_codes(block, column))
    points = replace(column, bins=ValuePoints.of(block.values[block.continuous.index("x2")]))
    assert searched(block, points) is not first
    np.testing.assert_array_equal(searched(block, points), secret_codes(block, points))


def test_rows_asked_of_a_part_travel_in_few_bytes():
    """A random half of a part's rows as one bit a row (the density-ratio attack's halves of a control
    of 1e7 rows made a 38 MiB graph of int64 indices); a slice for consecutive rows; few or
    unordered rows as they are."""
    from alc_dask.data.partitioned import RowMask, _compact

    half = np.sort(np.random.default_rng(2).permutation(100_000)[:50_000])
    packed = _compact(half)
    assert isinstance(packed, RowMask) and packed.bits.nbytes * 30 < half.nbytes
    np.testing.assert_array_equal(packed.positions(), half)
    assert _compact(np.arange(5, 90)) == slice(5, 90)
    for kept in (np.array([3, 9, 90_000]), np.array([9, 3, 4, 5]), np.array([4])):
        assert _compact(kept) is kept
