"""Loading, typing and encoding a release; every kind of bad input gives a clear error."""

import fsspec
import numpy as np
import pandas as pd
import pytest

from alc_dask import Release
from alc_dask.data import Bins, ColumnKind, ReleaseError, ScenarioError


@pytest.fixture
def frames(make_table):
    rng = np.random.default_rng(21)
    return make_table(rng, 40), make_table(rng, 60, extra_letter="z"), make_table(rng, 30, extra_letter="q")


def codes_of(table, column):
    return table.codes[table.categorical.index(column)]


def test_files_and_frames_encode_alike(frames, tmp_path):
    original, anonymized, _ = frames
    original.to_csv(tmp_path / "original.csv", index=False)
    anonymized.to_parquet(tmp_path / "anonymized.parquet")
    from_files = Release.load(tmp_path / "original.csv", [str(tmp_path / "anonymized.parquet")])
    from_frames = Release.load(original, [anonymized])
    assert from_files.anonymized[0].name.endswith("anonymized.parquet")
    for a, b in [(from_files.original, from_frames.original), (from_files.anonymized[0], from_frames.anonymized[0])]:
        assert a.categorical == b.categorical and a.continuous == b.continuous
        np.testing.assert_array_equal(a.codes, b.codes)
        np.testing.assert_allclose(a.values, b.values)


def test_fsspec_url(frames):
    original, anonymized, _ = frames
    with fsspec.open("memory://release/original.csv", "w") as f:
        original.to_csv(f, index=False)
    with fsspec.open("memory://release/anonymized.csv", "w") as f:
        anonymized.to_csv(f, index=False)
    release = Release.load("memory://release/original.csv", ["memory://release/anonymized.csv"])
    assert release.original.n_rows == len(original) and release.anonymized[0].n_rows == len(anonymized)


def test_one_code_table_for_all_tables(frames):
    original, anonymized, control = frames
    release = Release.load(original, [anonymized], control=control)
    codes = release.columns["c0"].codes
    for frame, table in [(original, release.original), (anonymized, release.anonymized[0]), (control, release.control)]:
        decoded = release.decode("c0", codes_of(table, "c0"))
        assert list(decoded) == [None if pd.isna(v) else v for v in frame["c0"]]
    assert {"z", "q"} <= set(codes.values), "values only in an anonymized or control table are coded too"


def test_missing_values_are_kept(frames):
    original, anonymized, _ = frames
    release = Release.load(original, [anonymized])
    assert release.original.n_rows == len(original)
    missing_code = release.columns["c1"].codes.missing_code
    np.testing.assert_array_equal(codes_of(release.original, "c1") == missing_code, original["c1"].isna())
    x0 = release.original.values[release.original.continuous.index("x0")]
    np.testing.assert_array_equal(np.isnan(x0), original["x0"].isna())


def test_kinds_inferred_and_overridden(frames):
    original, anonymized, _ = frames
    inferred = Release.load(original, [anonymized])
    assert inferred.columns["x0"].kind is ColumnKind.CONTINUOUS
    assert inferred.columns["k"].kind is ColumnKind.CATEGORICAL
    assert inferred.columns["c0"].kind is ColumnKind.CATEGORICAL
    overridden = Release.load(original, [anonymized], columns={"x0": "categorical", "k": "continuous"})
    assert overridden.columns["x0"].kind is ColumnKind.CATEGORICAL
    assert overridden.columns["k"].kind is ColumnKind.CONTINUOUS


def test_continuous_secret_discretized_over_released_tables(frames):
    original, anonymized, control = frames
    control.loc[0, "x0"] = 1000.0
    release = Release.load(original, [anonymized], control=control)
    bins = release.secret_codes("x0__discretized")
    assert bins is release.secret_codes("x0") and bins.n_bins == 20
    assert bins.low == min(original["x0"].min(), anonymized["x0"].min())
    assert bins.high == max(original["x0"].max(), anonymized["x0"].max())
    codes = release.true_codes("x0", release.targets(np.arange(len(control)), source="control"))
    assert codes[0] == 19, "a control value above the range falls in the last bin"
    values = original["x0"].to_numpy()
    codes = release.true_codes("x0", release.original)
    present = ~np.isnan(values)
    assert (codes[~present] == bins.missing_code).all()
    lefts = np.array([interval.left for interval in release.decode("x0", codes[present])])
    rights = np.array([interval.right for interval in release.decode("x0", codes[present])])
    assert ((lefts <= values[present]) & ((values[present] < rights) | (values[present] == bins.high))).all()


def test_csv_text_is_typed_over_the_whole_release(tmp_path):
    pd.DataFrame({"a": ["1", "2", "3"], "b": ["1", "2", "N"]}).to_csv(tmp_path / "o.csv", index=False)
    pd.DataFrame({"a": ["2", "3", "4"], "b": ["5", "6", "7"]}).to_csv(tmp_path / "s.csv", index=False)
    release = Release.load(tmp_path / "o.csv", [tmp_path / "s.csv"])
    assert list(release.columns["a"].codes.values) == [1.0, 2.0, 3.0, 4.0]
    assert list(release.columns["b"].codes.values) == ["1", "2", "5", "6", "7", "N"]


def test_tables_holding(frames):
    original, anonymized, _ = frames
    release = Release.load(original, [anonymized, anonymized[["c0", "x1"]]])
    assert [t.n_rows for t in release.tables_holding(["c0"])] == [60, 60]
    assert len(release.tables_holding(["c0", "k"])) == 1
    assert len(release.usable_tables("x1", ["c0", "k"])) == 2
    with pytest.raises(ScenarioError, match="unknown column"):
        release.tables_holding(["nope"])


def test_real_release_with_five_anonymized_tables(shared_data):
    folder = shared_data / "tx2019"
    release = Release.load(folder / "original.csv", [folder / f"syn_{i}.csv" for i in range(5)])
    assert release.original.n_rows == 9276
    assert [t.n_rows for t in release.anonymized] == [9274, 9276, 9274, 9275, 9277]
    assert release.columns["DENSITY"].kind is ColumnKind.CONTINUOUS
    assert release.columns["SEX"].kind is ColumnKind.CATEGORICAL


# --- bad input -------------------------------------------------------------------------------


def test_unreadable_file(frames, tmp_path):
    (tmp_path / "broken.parquet").write_text("not parquet")
    with pytest.raises(ReleaseError, match=r"broken\.parquet: cannot read parquet"):
        Release.load(frames[0], [tmp_path / "broken.parquet"])
    with pytest.raises(ReleaseError, match=r"absent\.csv: cannot read csv"):
        Release.load(tmp_path / "absent.csv", [frames[1]])


def test_unknown_format(frames, tmp_path):
    (tmp_path / "table.xlsx").write_text("x")
    with pytest.raises(ReleaseError, match=r"table\.xlsx: unknown table format"):
        Release.load(frames[0], [tmp_path / "table.xlsx"])


def test_anonymized_column_absent_from_original(frames):
    original, anonymized, _ = frames
    with pytest.raises(ReleaseError, match=r"anonymized\[1\]: column 'extra' is not in the original"):
        Release.load(original, [anonymized, anonymized.assign(extra=1)])


def test_duplicate_columns(frames, tmp_path):
    (tmp_path / "dup.csv").write_text("a,b,a\n1,2,3\n")
    with pytest.raises(ReleaseError, match=r"dup\.csv: duplicate column names \['a'\]"):
        Release.load(frames[0], [tmp_path / "dup.csv"])
    twice = pd.concat([frames[1], frames[1][["c1"]]], axis=1)
    with pytest.raises(ReleaseError, match=r"anonymized\[0\]: duplicate column names \['c1'\]"):
        Release.load(frames[0], [twice])


def test_empty_tables(frames, tmp_path):
    (tmp_path / "empty.csv").write_text("c0,c1\n")
    with pytest.raises(ReleaseError, match=r"empty\.csv: the table is empty \(0 rows"):
        Release.load(frames[0], [tmp_path / "empty.csv"])
    with pytest.raises(ReleaseError, match="at least one anonymized table"):
        Release.load(frames[0], [])


def test_column_that_cannot_be_typed(frames, tmp_path):
    original, anonymized, _ = frames
    anonymized.assign(k=anonymized["k"].astype(object).where(anonymized["k"] != 2.0, "two")).to_csv(tmp_path / "text.csv", index=False)
    expected = r"column 'k' cannot be typed consistently: numbers in original but text in .*text\.csv \(e\.g\. 'two'\)"
    with pytest.raises(ReleaseError, match=expected):
        Release.load(original, [tmp_path / "text.csv"])
    release = Release.load(original, [tmp_path / "text.csv"], columns={"k": "categorical"})
    assert {"1", "2", "3", "two"} <= set(release.columns["k"].codes.values)
    mixed = anonymized.assign(k=[1, "one"] * 30)
    with pytest.raises(ReleaseError, match=r"anonymized\[0\]: column 'k' mixes numbers and text"):
        Release.load(original, [mixed])
    odd = anonymized.assign(k=[[1]] * 60)
    with pytest.raises(ReleaseError, match=r"anonymized\[0\]: column 'k' holds values that are neither"):
        Release.load(original, [odd])


def test_bad_overrides(frames):
    original, anonymized, _ = frames
    with pytest.raises(ReleaseError, match=r"original: column 'c0' is declared continuous but holds text"):
        Release.load(original, [anonymized], columns={"c0": "continuous"})
    with pytest.raises(ReleaseError, match=r"columns\['x0'\]: unknown kind 'ordinal'"):
        Release.load(original, [anonymized], columns={"x0": "ordinal"})
    with pytest.raises(ReleaseError, match=r"columns: \['nope'\] are not columns"):
        Release.load(original, [anonymized], columns={"nope": "categorical"})


def test_control_must_hold_every_column(frames):
    original, anonymized, control = frames
    with pytest.raises(ReleaseError, match=r"control: the control table lacks column 'x2'"):
        Release.load(original, [anonymized], control=control.drop(columns=["x2"]))


def test_infinite_values(frames):
    original, anonymized, _ = frames
    anonymized.loc[3, "x1"] = np.inf
    with pytest.raises(ReleaseError, match=r"anonymized\[0\]: column 'x1' holds infinite values"):
        Release.load(original, [anonymized])


def test_bins_of_a_constant_or_spread_column():
    constant = Bins(3.0, 3.0)
    np.testing.assert_array_equal(constant.encode(np.array([3.0, np.nan, 3.0])), [0, 20, 0])
    spread = Bins(0.0, 10.0, n_bins=5)
    np.testing.assert_array_equal(spread.encode(np.array([-1.0, 0.0, 1.99, 2.0, 10.0, 11.0])), [0, 0, 0, 1, 4, 4])
