"""Group-based test releases: Mondrian generalization and Anatomy, checked directly and by pycanon."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from pycanon import anonymity

from alc_dask.anonymize import anatomize, mondrian

QI = ["age", "income", "city", "sex"]
ADULT_QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "label"]


def _people(n_rows: int, seed: int) -> pd.DataFrame:
    """Integer, half-integer and text quasi-identifiers, a sensitive `disease` of 8 values, and a `row` id."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "row": np.arange(n_rows),
            "age": rng.integers(17, 90, n_rows),
            "income": rng.integers(0, 200, n_rows) / 2,
            "city": rng.choice(["Aarhus", "Bergen", "Cork", "Delft", "Espoo"], n_rows),
            "sex": rng.choice(["F", "M"], n_rows),
            "disease": rng.choice([f"d{i}" for i in range(8)], n_rows),
        },
        index=pd.RangeIndex(1000, 1000 + n_rows),
    )


@pytest.fixture
def adult(shared_data) -> pd.DataFrame:
    path = shared_data / "alc-paper" / "adult" / "original.parquet"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return pd.read_parquet(path).sample(n=5692, random_state=0)


def _pycanon_k_l(table: pd.DataFrame, quasi_identifiers: list[str], sensitive: str) -> tuple[int, int]:
    """pycanon finds rows by position from index labels, so it needs a 0..n−1 index.

    With one quasi-identifier it groups by a one-element list, which pandas warns about; only the
    keys of the groups change, and pycanon reads their rows.
    """
    table = table.reset_index(drop=True)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="In a future version, the keys of `groups`")
        return anonymity.k_anonymity(table, quasi_identifiers), anonymity.l_diversity(table, quasi_identifiers, [sensitive])


def _covers(cell: str, value) -> bool:
    if cell.startswith("["):
        low, high = (float(bound) for bound in cell[1:-1].split(", "))
        return low <= value <= high
    if cell.startswith("{"):
        return str(value) in cell[1:-1].split(", ")
    return cell == str(value)


def _assert_mondrian_release(frame: pd.DataFrame, out: pd.DataFrame, quasi_identifiers: list[str], sensitive: str, k: int, ell: int | None) -> None:
    assert list(out.columns) == [*frame.columns, "group"]
    assert out.index.equals(frame.index)
    pd.testing.assert_frame_equal(out.drop(columns=[*quasi_identifiers, "group"]), frame.drop(columns=quasi_identifiers))
    groups = out.groupby("group")
    assert sorted(groups.groups) == list(range(groups.ngroups))
    assert groups.size().min() >= k
    assert (groups[quasi_identifiers].nunique() == 1).all().all()
    assert len(out[quasi_identifiers].drop_duplicates()) == groups.ngroups
    if ell is not None:
        assert groups[sensitive].nunique().min() >= ell
    for name in quasi_identifiers:
        assert all(_covers(cell, value) for cell, value in zip(out[name], frame[name])), name
    pycanon_k, pycanon_l = _pycanon_k_l(out, quasi_identifiers, sensitive)
    assert pycanon_k >= k
    assert pycanon_l >= (ell or 1)


@pytest.mark.parametrize(("k", "ell"), [(1, None), (3, None), (5, 3), (10, 6)])
def test_mondrian_release_is_k_anonymous_l_diverse_and_covers_the_original(k, ell):
    frame = _people(400, seed=k)
    out = mondrian(frame, QI, "disease", k, l=ell)
    _assert_mondrian_release(frame, out, QI, "disease", k, ell)
    assert out["group"].nunique() > len(frame) // (4 * k)


def test_mondrian_writes_values_like_the_original():
    frame = pd.DataFrame({"age": [30, 39, 50, 50], "city": ["b", "a", "c", "c"], "disease": ["x", "y", "x", "y"]})
    out = mondrian(frame, ["age", "city"], "disease", k=2)
    assert out["age"].tolist() == ["[30, 39]", "[30, 39]", "50", "50"]
    assert out["city"].tolist() == ["{a, b}", "{a, b}", "c", "c"]
    assert out["group"].tolist() == [0, 0, 1, 1]
    assert mondrian(frame.astype({"age": float}), ["age"], "disease", k=2)["age"].tolist() == ["[30.0, 39.0]", "[30.0, 39.0]", "50.0", "50.0"]


def test_mondrian_cuts_at_the_median_or_tries_the_next_widest_attribute():
    frame = pd.DataFrame({"age": [0, 0, 0, 10], "city": ["a", "a", "b", "b"], "disease": ["x", "y", "x", "y"]})
    out = mondrian(frame, ["age", "city"], "disease", k=2)
    assert out[["age", "city"]].to_numpy().tolist() == [["0", "a"], ["0", "a"], ["[0, 10]", "b"], ["[0, 10]", "b"]]
    skewed = pd.DataFrame({"age": [0, 10, 10, 10], "disease": ["x", "y", "z", "x"]})
    assert mondrian(skewed, ["age"], "disease", k=1)["age"].tolist() == ["0", "10", "10", "10"]
    assert mondrian(skewed, ["age"], "disease", k=1, l=2)["age"].tolist() == ["[0, 10]"] * 4


def test_mondrian_is_deterministic_and_can_leave_the_group_out():
    frame = _people(300, seed=1)
    out = mondrian(frame, QI, "disease", k=4, l=3)
    pd.testing.assert_frame_equal(out, mondrian(frame, QI, "disease", k=4, l=3))
    pd.testing.assert_frame_equal(mondrian(frame, QI, "disease", k=4, l=3, group_column=None), out.drop(columns="group"))


@pytest.mark.parametrize(
    ("change", "arguments", "message"),
    [
        (None, {"quasi_identifiers": ["age", "zip"]}, "zip"),
        (None, {"sensitive": "diagnosis"}, "diagnosis"),
        (None, {"k": 0}, "k = 0"),
        (None, {"k": 31}, "fewer than k = 31"),
        (None, {"l": 9}, "'disease' has 8 distinct values, fewer than l = 9"),
        ({"city": "Cork, IE"}, {}, "'Cork, IE'"),
        ({"city": "{Cork"}, {}, "'{Cork'"),
        ({"city": "Cork}"}, {}, "'Cork}'"),
        ({"city": None}, {}, "'city' has missing values"),
        (None, {"group_column": "sex"}, "group column 'sex' is already"),
    ],
)
def test_mondrian_errors(change, arguments, message):
    frame = _people(30, seed=2)
    frame["disease"] = [f"d{i % 8}" for i in range(30)]
    if change:
        frame.loc[frame.index[0], "city"] = change["city"]
    with pytest.raises(ValueError, match=re.escape(message)):
        mondrian(frame, **{"quasi_identifiers": QI, "sensitive": "disease", "k": 2, **arguments})


def _assert_anatomy_release(
    frame: pd.DataFrame, quasi_table: pd.DataFrame, sensitive_table: pd.DataFrame, quasi_identifiers: list[str], sensitive: str, ell: int
) -> None:
    """``frame`` has a `row` id (its position) among ``quasi_identifiers``, so each released quasi-identifier row names its original row."""
    assert list(quasi_table.columns) == [*quasi_identifiers, "group"]
    assert list(sensitive_table.columns) == ["group", sensitive, "count"]
    sizes = quasi_table.groupby("group").size()
    assert sizes.index.tolist() == list(range(len(frame) // ell))
    assert sizes.min() >= ell
    assert (sizes - ell).sum() == len(frame) % ell
    assert (sensitive_table["count"] == 1).all()
    pd.testing.assert_series_equal(sensitive_table.groupby("group")["count"].sum(), sizes, check_names=False)
    by_row = quasi_table.sort_values("row").reset_index(drop=True)
    pd.testing.assert_frame_equal(by_row[quasi_identifiers], frame[quasi_identifiers].reset_index(drop=True))
    held = pd.DataFrame({"group": by_row["group"], sensitive: frame[sensitive].to_numpy()})
    pd.testing.assert_frame_equal(held.groupby(["group", sensitive]).size().reset_index(name="count"), sensitive_table)
    joined = quasi_table.merge(sensitive_table, on="group")
    assert _pycanon_k_l(joined, ["group"], sensitive)[1] >= ell


@pytest.mark.parametrize("ell", [1, 2, 3, 5, 7])
def test_anatomy_groups_hold_l_distinct_values_and_every_row(ell):
    frame = _people(403, seed=ell)
    quasi_table, sensitive_table = anatomize(frame, ["row", *QI], "disease", ell, seed=3)
    _assert_anatomy_release(frame, quasi_table, sensitive_table, ["row", *QI], "disease", ell)


def test_anatomy_is_seeded():
    frame = _people(200, seed=5)
    first = anatomize(frame, QI, "disease", 4, seed=11)
    for table, again in zip(first, anatomize(frame, QI, "disease", 4, seed=11)):
        pd.testing.assert_frame_equal(table, again)
    assert not first[0].equals(anatomize(frame, QI, "disease", 4, seed=12)[0])


def test_anatomy_refuses_a_value_in_more_than_n_over_l_rows():
    frame = _people(100, seed=6)
    frame["disease"] = ["flu"] * 34 + [f"d{i % 8}" for i in range(66)]
    anatomize(frame, QI, "disease", 2)
    with pytest.raises(ValueError, match=r"'flu' is in 34 of 100 rows, more than N/l = 33.3"):
        anatomize(frame, QI, "disease", 3)


@pytest.mark.parametrize(
    ("arguments", "message"), [({"quasi_identifiers": ["zip"]}, "zip"), ({"sensitive": "diagnosis"}, "diagnosis"), ({"l": 0}, "l must be")]
)
def test_anatomy_errors(arguments, message):
    with pytest.raises(ValueError, match=message):
        anatomize(_people(50, seed=7), **{"quasi_identifiers": QI, "sensitive": "disease", "l": 2, **arguments})


@pytest.mark.parametrize("k", [4, 6])
def test_mondrian_on_adult(adult, k):
    out = mondrian(adult, ADULT_QI, "occupation", k, l=k)
    _assert_mondrian_release(adult, out, ADULT_QI, "occupation", k, k)


@pytest.mark.parametrize("ell", [4, 6])
def test_anatomy_on_adult(adult, ell):
    frame = adult.assign(row=np.arange(len(adult)))
    quasi_table, sensitive_table = anatomize(frame, ["row", *ADULT_QI], "occupation", ell)
    _assert_anatomy_release(frame, quasi_table, sensitive_table, ["row", *ADULT_QI], "occupation", ell)
