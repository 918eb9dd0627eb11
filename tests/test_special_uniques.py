"""The special-uniques family: MSUs against a brute force over every subset of the key variables,
the same summaries on 1 and N blocks (and on a real local cluster), a copy of the original flagged
and a fresh sample not, and bad input refused with errors naming it."""

from itertools import combinations

import dask
import numpy as np
import pandas as pd
import pytest

from alc_dask.apps.synthetic import make_population
from alc_dask.data import EncodedTable, Release, ScenarioError
from alc_dask.data.partitioned import partition, partition_table
from alc_dask.families.special_uniques.family import SpecialUniques
from alc_dask.families.special_uniques.keys import KeySpace
from alc_dask.families.special_uniques.search import block_counts, block_msus, counts_of, summary_of
from alc_dask.measure.suda import msu_weights
from alc_dask.measure.verdict import REIDENTIFICATION, Label, interval_label


def _unique_on(rows: np.ndarray, record: int, subset) -> bool:
    return int((rows[:, list(subset)] == rows[record, list(subset)]).all(axis=1).sum()) == 1


def brute_force_msus(rows: np.ndarray, max_size: int) -> list[set]:
    """Per record, every subset of at most ``max_size`` columns on which it is unique while unique on no smaller subset of it."""
    n_keys = rows.shape[1]
    return [
        {
            s
            for k in range(1, max_size + 1)
            for s in combinations(range(n_keys), k)
            if _unique_on(rows, r, s) and not any(_unique_on(rows, r, c) for j in range(1, k) for c in combinations(s, j))
        }
        for r in range(len(rows))
    ]


def _table(rows: np.ndarray, name: str = "t") -> EncodedTable:
    return EncodedTable.build(name, {f"c{i}": rows[:, i] for i in range(rows.shape[1])}, {})


def _found(table: EncodedTable, space: KeySpace) -> list[set]:
    minimal, _ = block_msus(table, space, block_counts(table, space))
    return [{s for i, s in enumerate(space.subsets) if minimal[i, r]} for r in range(table.n_rows)]


def _random_rows(rng, n_rows: int, n_keys: int, cardinality: int) -> np.ndarray:
    return rng.integers(0, cardinality, size=(n_rows, n_keys))


def test_msus_equal_a_brute_force_over_every_subset():
    rng = np.random.default_rng(31)
    sizes = []
    for _ in range(100):
        n_keys = int(rng.integers(1, 6))
        max_size, cardinality = int(rng.integers(1, n_keys + 1)), int(rng.integers(1, 5))
        rows = _random_rows(rng, int(rng.integers(1, 50)), n_keys, cardinality)
        space = KeySpace(tuple(f"c{i}" for i in range(n_keys)), (cardinality,) * n_keys, max_size)
        expected = brute_force_msus(rows, max_size)
        assert _found(_table(rows), space) == expected
        sizes += [len(s) for found in expected for s in found]
    assert np.bincount(sizes)[1:].min() > 20 and len(sizes) > 500  # many MSUs of every size 1 to 5, not tables of none


def test_hashed_keys_find_the_same_msus():
    """Key variables of many values (their radices' product past 63 bits) are hashed, not packed."""
    rows = _random_rows(np.random.default_rng(4), 80, 4, 3)
    exact = KeySpace(("c0", "c1", "c2", "c3"), (3,) * 4, 3)
    hashed = KeySpace(("c0", "c1", "c2", "c3"), (2**40,) * 4, 3)
    assert _found(_table(rows), hashed) == _found(_table(rows), exact) == brute_force_msus(rows, 3)


def _summary(table, space, release=None):
    weights = msu_weights(len(space.columns), space.max_size)
    release_counts = counts_of(release, space) if release is not None else None
    return dask.compute(summary_of(table, space, counts_of(table, space), weights, 7, release_counts))[0]


def test_summaries_are_the_same_on_one_and_many_blocks():
    rng = np.random.default_rng(8)
    original, released = _table(_random_rows(rng, 400, 5, 4)), _table(_random_rows(rng, 300, 5, 4), "r")
    space = KeySpace(tuple(f"c{i}" for i in range(5)), (4,) * 5, 3)
    whole = _summary(original, space, released)
    for rows_per_block in (1, 37, 100):
        parts = _summary(partition_table(original, rows_per_block), space, partition_table(released, 53))
        for name in whole.__dataclass_fields__:
            np.testing.assert_array_equal(getattr(parts, name), getattr(whole, name), err_msg=name)


def test_replicated_special_uniques_are_msus_held_once_by_the_release():
    rng = np.random.default_rng(12)
    original, released = _random_rows(rng, 120, 4, 3), _random_rows(rng, 90, 4, 3)
    space = KeySpace(("c0", "c1", "c2", "c3"), (3,) * 4, 3)
    msus = brute_force_msus(original, 3)
    expected = [r for r, found in enumerate(msus) if any(((released[:, list(s)] == original[r, list(s)]).all(axis=1)).sum() == 1 for s in found)]
    summary = _summary(_table(original), space, _table(released, "r"))
    assert summary.replicated_rows.tolist() == expected and 0 < len(expected) < sum(bool(m) for m in msus)


def _release(original: pd.DataFrame, released: pd.DataFrame, control: pd.DataFrame | None) -> Release:
    return Release.load(original, [released], control)


@pytest.fixture(scope="module")
def people():
    population = make_population(3000, seed=5)
    return population.iloc[:1000].reset_index(drop=True), population.iloc[1000:2000].reset_index(drop=True), population.iloc[2000:].reset_index(drop=True)


def _label(row) -> Label:
    return interval_label(row["replicated_risk_low"], row["replicated_risk_high"], REIDENTIFICATION.value)


def test_a_copy_of_the_original_is_flagged_and_a_fresh_sample_is_not(people):
    original, control, fresh = people
    copied = SpecialUniques().evaluate(_release(original, original, control), 0)
    sampled = SpecialUniques().evaluate(_release(original, fresh, control), 0).measures
    assert copied.measures["n_replicated"] == copied.measures["n_special_original"] > 0  # every special unique, held once
    assert _label(copied.measures) is Label.FLAGGED and copied.measures["replicated_risk"] > 0.8
    assert _label(sampled) is not Label.FLAGGED and sampled["replicated_risk"] < copied.measures["replicated_risk_low"]
    exposed = SpecialUniques.exposed(copied.predictions.to_pandas(), copied.measures)
    assert len(exposed) == copied.measures["n_replicated"] and set(exposed.columns) == {"record", "evidence"}


def test_measures_of_the_original_and_of_the_release(people):
    original, control, fresh = people
    m = SpecialUniques({"max_size": 2, "highest": 5}).evaluate(_release(original, fresh, control), 0).measures
    assert m["key_columns"] == '["sex", "region", "education", "occupation", "married", "condition"]'
    assert 0 < m["n_special_original"] <= m["n_original"] == 1000 and m["n_special_release"] > 0
    assert sum(m["msus_by_size_original"]) >= m["n_special_original"] and len(m["msus_by_size_original"]) == 2
    assert 0 < m["mean_dis_suda_original"] <= m["max_dis_suda_original"] <= 1
    assert len(m["highest_risk_records"]) == 5 and m["highest_risk_dis_suda"] == sorted(m["highest_risk_dis_suda"], reverse=True)
    assert m["highest_risk_dis_suda"][0] == pytest.approx(m["max_dis_suda_original"])


def test_without_control_the_risk_is_the_original_share_and_says_so(people):
    original, _, fresh = people
    m = SpecialUniques().evaluate(_release(original, fresh, None), 0).measures
    assert m["replicated_risk"] == pytest.approx(m["replicated_share"]) and "no control table" in m["warning"]


def test_a_key_column_missing_from_the_release_is_named(people):
    original, control, fresh = people
    release = _release(original, fresh.drop(columns=["region"]), control)
    with pytest.raises(ScenarioError, match=r"columns: \['region'\] are not columns of anonymized"):
        SpecialUniques({"columns": ["sex", "region"], "max_size": 2}).check(release)


def test_a_maximum_size_above_the_key_variables_is_named_after_an_unknown_column(people):
    """An unknown key column was reported as "max_size: 3 is larger than the 2 key variables"."""
    original, control, fresh = people
    release = _release(original, fresh, control)
    with pytest.raises(ScenarioError, match=r"max_size: 3 is larger than the 2 key variables \['sex', 'region'\]"):
        SpecialUniques({"columns": ["sex", "region"]}).check(release)
    with pytest.raises(ScenarioError, match=r"columns: \['nope'\] are not columns of the release"):
        SpecialUniques({"columns": ["sex", "nope"]}).check(release)


def test_continuous_and_repeated_key_variables_are_refused(people):
    original, control, fresh = people
    with pytest.raises(ScenarioError, match=r"columns: \['income'\] are continuous"):
        SpecialUniques({"columns": ["sex", "income"], "max_size": 1}).check(_release(original, fresh, control))
    with pytest.raises(ValueError, match=r"names \['sex'\] more than once"):
        SpecialUniques({"columns": ["sex", "sex"], "max_size": 1})


def test_the_same_on_one_and_four_partitions_of_a_local_cluster(people):
    distributed = pytest.importorskip("distributed")
    original, control, fresh = people
    release = _release(original, fresh, control)
    family = SpecialUniques({"max_size": 3})
    expected = family.evaluate(release, 0)
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
        distributed.Client(cluster) as client,
    ):
        results = [family.evaluate(partition(release, rows, client=client), 0) for rows in (1000, 250)]
    for result in results:
        assert result.measures == expected.measures
        assert result.predictions.equals(expected.predictions)


def test_a_missing_value_is_a_category_of_its_own():
    """sdcMicro leaves missing values out of MSUs; here the one record missing its region is unique on it."""
    frame = pd.DataFrame({"sex": ["f", "m"] * 10, "region": ["north", "south"] * 9 + ["north", None]})
    m = SpecialUniques({"max_size": 2}).evaluate(_release(frame, frame, None), 0)
    assert m.measures["msus_by_size_original"] == [1, 0] and m.measures["highest_risk_records"] == [19]
