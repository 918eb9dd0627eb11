"""Values float64 cannot hold: integers beyond 2^53, floats near the largest double, datetimes.

A release must keep them apart exactly as they are apart in the data: a code table that merged two
account ids, or a scaling that overflowed to NaN distances, makes a leaking release look safe.
"""

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv
import pyarrow.parquet as pq
import pytest

from alc_dask import Release
from alc_dask.baseline import BaselineSettings
from alc_dask.data import Bins, ColumnKind, ReleaseError, ReleaseWarning
from alc_dask.families.alc.loop import run_attack
from alc_dask.neighbors.best_match import best_matches

FAST = dict(baseline_settings=BaselineSettings(candidates=("majority", "logistic_regression"), trees=10))
BIG = 2**60
ACCOUNTS = 123_456_789_012_345_678 + np.arange(40, dtype=np.int64) * 3  # 18 digits, 3 apart: merged as floats


def codes_of(table, column):
    return table.codes[table.categorical.index(column)]


def write_accounts(tmp_path, fmt: str, with_missing: bool) -> str:
    """The same table as original and anonymized: 40 distinct 18-digit ids, as Parquet int64 or CSV digits."""
    ids = pa.array([None if with_missing and i == 5 else int(v) for i, v in enumerate(ACCOUNTS)], pa.int64())
    table = pa.table({"account": ids, "group": pa.array(np.arange(40) % 3)})
    path = tmp_path / f"accounts.{fmt}"
    if fmt == "parquet":
        pq.write_table(table, path)
    else:
        pa.csv.write_csv(table, path)
    return str(path)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
@pytest.mark.parametrize("with_missing", [False, True])
@pytest.mark.parametrize("kind", [None, "categorical"])
def test_18_digit_ids_keep_distinct_codes(tmp_path, fmt, with_missing, kind):
    path = write_accounts(tmp_path, fmt, with_missing)
    release = Release.load(path, [path], columns={"account": "categorical"} if kind else None)
    column = release.columns["account"]
    assert column.kind is ColumnKind.CATEGORICAL or kind is None
    if column.kind is ColumnKind.CATEGORICAL:
        codes = codes_of(release.original, "account")
        assert len(np.unique(codes)) == 40, "every account id keeps its own code"
        np.testing.assert_array_equal(codes, codes_of(release.anonymized[0], "account"))
        decoded = release.decode("account", codes)
        assert [v for i, v in enumerate(decoded) if not (with_missing and i == 5)] == [int(v) for i, v in enumerate(ACCOUNTS) if not (with_missing and i == 5)]
    else:  # continuous: measured from the smallest id, every id stays apart as a float
        values = release.original.values[release.original.continuous.index("account")]
        assert column.origin == ACCOUNTS[0] and len(np.unique(values[~np.isnan(values)])) == 40 - with_missing
        np.testing.assert_array_equal(values[:3], [0.0, 3.0, 6.0])


def test_two_valued_int64_secret_has_two_codes():
    frame = pd.DataFrame({"secret": np.array([BIG, BIG + 1] * 10, dtype=np.int64), "k": np.arange(20) % 4})
    release = Release.load(frame, [frame])
    codes = release.columns["secret"].codes
    assert list(codes.values) == [BIG, BIG + 1]
    np.testing.assert_array_equal(codes_of(release.original, "secret"), [0, 1] * 10)


@pytest.mark.parametrize(
    "values",
    [
        pd.Series([2**64 - 1, 2**64 - 2, 3] * 4, dtype=np.uint64),
        pd.Series([2**70, 2**70 + 1, 1.5] * 4, dtype=object),
        pd.Series([BIG, BIG + 1, None, BIG + 2] * 3, dtype="Int64"),
    ],
    ids=["uint64", "python-ints-and-floats", "nullable-int64"],
)
def test_exact_integers_of_every_type(values):
    frame = pd.DataFrame({"v": values, "k": np.arange(12) % 2})
    release = Release.load(frame, [frame.iloc[::-1].reset_index(drop=True)])
    codes = release.columns["v"].codes
    assert codes.n_codes == 4, "three distinct values and the missing code"
    np.testing.assert_array_equal(codes_of(release.anonymized[0], "v"), codes_of(release.original, "v")[::-1])


def test_big_integers_written_as_text_in_another_table_are_the_same_values(tmp_path):
    frame = pd.DataFrame({"v": np.array([BIG + 1, BIG + 2, BIG + 3] * 3, dtype=np.int64), "k": np.arange(9) % 2})
    frame.to_csv(tmp_path / "anonymized.csv", index=False)
    release = Release.load(frame, [tmp_path / "anonymized.csv"])
    assert list(release.columns["v"].codes.values) == [BIG + 1, BIG + 2, BIG + 3]
    mixed = frame.assign(v=frame["v"].astype(object).where(frame.index != 0, "unknown"))
    declared = Release.load(frame, [mixed], columns={"v": "categorical"})
    assert list(declared.columns["v"].codes.values) == [str(BIG + 1), str(BIG + 2), str(BIG + 3), "unknown"]


def accounts_release(secret_values, rng):
    frame = pd.DataFrame({"account": rng.permutation(ACCOUNTS[0] + np.arange(300, dtype=np.int64)), "secret": secret_values})
    return Release.load(frame, [frame], columns={"account": "categorical"})


@pytest.mark.parametrize("secret_kind", ["text secret, big-int known", "big-int secret"])
def test_original_released_unchanged_leaks_through_big_integers(secret_kind):
    """The original as its own release: the account id points at the target's row, so the secret leaks."""
    rng = np.random.default_rng(4)
    if secret_kind == "big-int secret":
        secret = (BIG + rng.integers(0, 4, 300)).astype(np.int64)
    else:
        secret = rng.choice(list("abcde"), 300)
    release = accounts_release(secret, rng)
    result = run_attack(release, "secret", ["account"], seed=0, **FAST)
    assert result.alc > 0.8, result.alc


def huge_release():
    rng = np.random.default_rng(3)
    huge = rng.choice([1.7e308, -1.7e308, 1e308, -5e307], 200) * rng.uniform(0.5, 1, 200)
    frame = pd.DataFrame({"huge": huge, "secret": rng.choice(list("abcd"), 200), "weak": rng.integers(0, 2, 200)})
    return Release.load(frame, [frame], columns={"huge": "continuous"})


def test_values_near_the_largest_double_give_finite_distances():
    release = huge_release()
    matches = best_matches(release.original, release.anonymized, release.column("secret"), ["huge"])
    assert np.isfinite(matches.distance).all()
    np.testing.assert_array_equal(matches.distance, 0.0)  # every target finds its own row
    assert (matches.histogram.sum(axis=1) == 1).all(), "the huge values are all distinct: one match each"


def test_a_secret_near_the_largest_double_is_binned_over_its_range():
    release = huge_release()
    bins = release.secret_codes("huge")
    codes = release.true_codes("huge", release.original)
    values = release.original.values[release.original.continuous.index("huge")]
    assert codes[np.argmin(values)] == 0 and codes[np.argmax(values)] == bins.n_bins - 1
    assert np.isfinite(bins.edges).all() and len(np.unique(codes)) > 2
    result = run_attack(release, "huge", ["secret", "weak"], seed=0, **FAST)
    assert np.isfinite(result.alc)


def test_known_values_near_the_largest_double_still_point_at_the_row():
    release = huge_release()
    assert run_attack(release, "secret", ["huge", "weak"], seed=0, **FAST).alc > 0.8


@pytest.mark.parametrize("low, high", [(-1.7e308, 1.7e308), (0.0, 2e-322), (-np.finfo(float).max, np.finfo(float).max)])
def test_bins_spread_any_finite_range(low, high):
    bins = Bins(low, high, n_bins=4)
    values = np.array([low, low + (high / 4 - low / 4), high / 2 + low / 2, high])
    np.testing.assert_array_equal(bins.encode(values), [0, 1, 2, 3])
    assert np.isfinite(bins.edges).all() and bins.edges[0] == low and bins.edges[-1] == high


# --- extreme values ----------------------------------------------------------------------------


def measured(n=2000, seed=5):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n).astype(float),
            "income": rng.lognormal(10, 1, n),  # a long tail, but no few values dominate
            "benefit": np.where(rng.random(n) < 0.99, 0.0, rng.uniform(100, 1e5, n)),  # mostly 0: nothing to flatten
            "sex": rng.choice(["f", "m"], n),
        }
    )


@pytest.mark.parametrize("extreme, rows", [(1e300, [7]), (-1e300, [7]), (1.7e308, [3, 9, 11]), (99_999_999.0, [0])])
def test_a_column_a_few_extreme_values_dominate_is_named_in_a_warning(extreme, rows):
    original = measured()
    original.loc[rows, "age"] = extreme
    with pytest.warns(ReleaseWarning) as caught:
        Release.load(original, [measured(seed=6)])
    (warning,) = caught
    message = str(warning.message)
    assert message.startswith(f"column 'age': a few extreme values (e.g. {extreme:.6g} in original) stretch its range"), message
    assert "more than 1000 times the span of the other values (18 to 89)" in message


def test_a_single_extreme_value_of_a_small_table_is_found():
    small = measured(n=40)
    small.loc[0, "income"] = 1e12
    with pytest.warns(ReleaseWarning, match="column 'income'"):
        Release.load(measured(n=40), [small])


def test_spread_columns_get_no_warning(recwarn):
    tail = measured()
    tail.loc[:5, "income"] = tail["income"].max() * 50  # extreme, yet within 1000 times the span of the rest
    Release.load(measured(), [tail], control=measured(seed=7))
    huge_release()  # values near the largest double, spread over the whole range
    assert not [w for w in recwarn if issubclass(w.category, ReleaseWarning)]


# --- datetimes -------------------------------------------------------------------------------


def dated(n=30, tz=None, unit="ns"):
    rng = np.random.default_rng(8)
    when = pd.Series(pd.to_datetime("2021-03-01") + pd.to_timedelta(rng.integers(0, 10**6, n), unit="s")).dt.as_unit(unit)
    if tz:
        when = when.dt.tz_localize(tz)
    return pd.DataFrame({"when": when, "day": when.dt.floor("D"), "k": rng.integers(0, 3, n)})


def test_datetime_columns_are_continuous_timestamps():
    frame = dated()
    release = Release.load(frame, [frame])
    assert release.columns["when"].kind is ColumnKind.CONTINUOUS
    values = release.original.values[release.original.continuous.index("when")]
    nanoseconds = frame["when"].astype("int64")  # beyond 2^53: measured exactly from the earliest
    assert release.columns["when"].origin == nanoseconds.min()
    np.testing.assert_array_equal(values, (nanoseconds - nanoseconds.min()).to_numpy(np.float64))


def test_datetime_declared_categorical_keeps_every_instant():
    frame = dated()
    frame.loc[1, "when"] = frame.loc[0, "when"] + pd.Timedelta(1, "ns")
    release = Release.load(frame, [frame], columns={"when": "categorical", "day": "categorical"})
    codes = codes_of(release.original, "when")
    assert len(np.unique(codes)) == frame["when"].nunique() and codes[0] != codes[1]
    assert release.columns["day"].codes.n_codes == frame["day"].nunique() + 1


def test_tz_aware_datetimes_compare_as_instants_across_units_and_zones(tmp_path):
    original = dated(tz="UTC")
    anonymized = original.assign(when=original["when"].dt.tz_convert("Asia/Tokyo").dt.as_unit("us"))
    pq.write_table(pa.Table.from_pandas(anonymized), tmp_path / "anonymized.parquet")
    release = Release.load(original, [tmp_path / "anonymized.parquet"], columns={"when": "categorical"})
    np.testing.assert_array_equal(codes_of(release.original, "when"), codes_of(release.anonymized[0], "when"))


def test_an_unused_datetime_column_does_not_block_an_attack():
    frame = dated(300).assign(secret=lambda f: np.where(f["k"] == 0, "low", "high"), ident=np.arange(300))
    release = Release.load(frame, [frame])
    result = run_attack(release, "secret", ["ident"], seed=0, **FAST)
    assert np.isfinite(result.alc)


# --- files -----------------------------------------------------------------------------------


def test_duplicate_parquet_column_names(tmp_path):
    table = pa.Table.from_arrays([pa.array([1, 2]), pa.array([3, 4]), pa.array([5, 6])], names=["a", "b", "a"])
    pq.write_table(table, tmp_path / "dup.parquet")
    with pytest.raises(ReleaseError, match=r"dup\.parquet: duplicate column names \['a'\]"):
        Release.load(tmp_path / "dup.parquet", [tmp_path / "dup.parquet"])


@pytest.mark.parametrize("name", ["folder.csv", "folder.parquet"])
def test_a_table_folder_without_part_files_is_named(tmp_path, name):
    (tmp_path / name).mkdir()
    (tmp_path / name / "notes.txt").write_text("not a table")
    frame = pd.DataFrame({"a": [1, 2]})
    with pytest.raises(ReleaseError, match=rf"{name.replace('.', '[.]')}': holds no .parquet or .csv file"):
        Release.load(frame, [tmp_path / name])


def test_check_files_says_a_directory_without_parts_holds_none(tmp_path):
    from alc_dask.jobs import check_files, validate_job

    (tmp_path / "original.parquet").mkdir()
    folder = str(tmp_path / "original.parquet")
    spec = validate_job({"name": "j", "release": {"original": folder, "anonymized": [folder]}, "scenarios": [{"generate": "each_column"}]})
    with pytest.raises(ReleaseError, match=r"release\.original: .*original\.parquet': the directory holds no part file"):
        check_files(spec, "job.yaml")


def test_iso_text_of_a_csv_table_matches_datetimes_of_a_parquet_table(tmp_path):
    original = dated(tz="Europe/Paris")
    original.to_csv(tmp_path / "anonymized.csv", index=False)
    release = Release.load(original, [tmp_path / "anonymized.csv"])
    assert release.columns["when"].kind is ColumnKind.CONTINUOUS and release.columns["day"].kind is ColumnKind.CATEGORICAL
    np.testing.assert_array_equal(codes_of(release.original, "day"), codes_of(release.anonymized[0], "day"))
    when = [table.values[table.continuous.index("when")] for table in (release.original, release.anonymized[0])]
    np.testing.assert_array_equal(*when)
