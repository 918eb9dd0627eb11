"""Singling out: predicates that isolate one record, the counting kernel, risks on leaky and safe releases."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from alc_dask.apps.synthetic import make_population
from alc_dask.cli import EXIT_BAD_INPUT, main
from alc_dask.data import Release, ScenarioError
from alc_dask.families.wp29.common import MAX_ATTACKS
from alc_dask.families.wp29.predicates import EQ, GE, IS_NULL, LE, LT, NE, NOT_NULL, Predicates, RowMatrix, count_matches
from alc_dask.families.wp29.singling_out import MAX_ATTEMPTS, SinglingOut, multivariate_predicates, random_predicates, univariate_predicates
from alc_dask.measure import AttackCounts
from alc_dask.testing.truth import truth_releases
from alc_dask.verdict import judged

OPS = {EQ: "==", NE: "!=", LT: "<", LE: "<=", GE: ">="}


def brute_force_counts(predicates: Predicates, rows: RowMatrix) -> np.ndarray:
    """Rows meeting each predicate, capped at 2, by plain numpy masks."""
    counts = []
    for columns, ops, values in zip(predicates.column, predicates.op, predicates.value):
        mask = np.ones(len(rows.rows), dtype=bool)
        for column, op, value in zip(columns, ops, values):
            if column < 0:
                continue
            x = rows.rows[:, column]
            present = ~np.isnan(x)
            mask &= {
                IS_NULL: ~present,
                NOT_NULL: present,
                EQ: present & (x == value),
                NE: present & (x != value),
                LT: present & (x < value),
                LE: present & (x <= value),
                4: present & (x > value),
                GE: present & (x >= value),
            }[op]
        counts.append(min(int(mask.sum()), 2))
    return np.array(counts)


@pytest.fixture(scope="module")
def split_release():
    """Members (original), their leaky release (the original itself), and non-members (control)."""
    people = make_population(3000, seed=3)
    people.loc[people.sample(frac=0.05, random_state=1).index, "region"] = np.nan
    members, others = people.iloc[:1500].reset_index(drop=True), people.iloc[1500:].reset_index(drop=True)
    return members, others


def release_of(members, others, anonymized) -> Release:
    return Release.load(members, [anonymized], control=others)


def test_counting_kernel_agrees_with_numpy_masks(split_release):
    members, others = split_release
    release = release_of(members, others, members)
    rows = RowMatrix.of(release, release.original, release.original.columns, distinct=False)
    rng = np.random.default_rng(0)
    predicates = random_predicates(rows, 400, 3, rng)
    assert set(np.unique(predicates.op)) >= {EQ, NE, LE, GE}
    np.testing.assert_array_equal(count_matches(predicates, rows), brute_force_counts(predicates, rows))


def test_every_generated_predicate_isolates_one_anonymized_row(split_release):
    members, others = split_release
    release = release_of(members, others, members)
    synthetic = RowMatrix.of(release, release.anonymized[0], release.anonymized[0].columns)
    rng = np.random.default_rng(1)
    univariate = univariate_predicates(synthetic, 200, rng)
    multivariate, attempts = multivariate_predicates(synthetic, 200, 3, 100_000, rng)
    for predicates in (univariate, multivariate):
        assert len(predicates) > 0
        assert (brute_force_counts(predicates, synthetic) == 1).all()
        assert len(set(predicates.keys())) == len(predicates)
    assert len(multivariate) == 200 and attempts >= 200


def test_missing_value_is_a_category_and_duplicates_are_dropped():
    table = pd.DataFrame({"a": ["x", "x", None, "y", "y"], "b": [1.0, 1.0, 2.0, 3.0, 4.0]})
    release = Release.load(table, [table], control=table, columns={"b": "categorical"})
    rows = RowMatrix.of(release, release.original, ("a", "b"))
    assert len(rows.rows) == 4  # the duplicated ("x", 1) counts once
    only_missing = Predicates.stack([[(0, IS_NULL, 0.0)]])
    assert count_matches(only_missing, rows).tolist() == [1]


def test_leaky_release_singles_out_members_far_more_than_non_members(split_release):
    members, others = split_release
    leaky = SinglingOut(mode="multivariate", n_attacks=200).evaluate(release_of(members, others, members), seed=0).measures
    assert leaky["n_attacks"] == 200
    assert leaky["attack_rate"] > leaky["control_rate"] + 0.2
    assert leaky["privacy_risk_low"] > 0.2 and leaky["beats_baseline"]


def test_unrelated_release_gives_no_measurable_risk(split_release):
    members, others = split_release
    unrelated = make_population(1500, seed=99)
    result = SinglingOut(mode="multivariate", n_attacks=200).evaluate(release_of(members, others, unrelated), seed=0).measures
    assert result["privacy_risk_low"] == 0.0
    assert abs(result["attack_rate"] - result["control_rate"]) < 3 * max(result["attack_rate_err"], result["control_rate_err"])


def test_same_seed_same_result_other_seed_other_predicates(split_release):
    members, others = split_release
    release = release_of(members, others, members)
    family = SinglingOut(mode="multivariate", n_attacks=100)
    assert family.evaluate(release, seed=5).measures == family.evaluate(release, seed=5).measures
    assert family.evaluate(release, seed=5).measures != family.evaluate(release, seed=6).measures


def test_too_few_attempts_are_reported_and_scored_on_what_was_made(split_release):
    members, others = split_release
    result = SinglingOut(mode="multivariate", n_attacks=500, max_attempts=500).evaluate(release_of(members, others, members), seed=0).measures
    assert result["n_attacks"] < 500
    assert f"only {result['n_attacks']} of the 500 predicates" in result["warning"]
    assert "in 500 attempts" in result["warning"]


def test_not_beating_the_baseline_is_flagged():
    constant = pd.DataFrame({"a": ["x"] * 50 + ["y"] * 50, "b": ["u", "v"] * 50})
    result = SinglingOut(mode="univariate", n_attacks=10).evaluate(Release.load(constant, [constant], control=constant), seed=0).measures
    assert result["n_attacks"] == 0
    assert "does not beat the random baseline" in result["warning"]


def test_no_predicate_made_is_not_informative_and_its_evidence_says_so():
    """Nothing attacked gave Wilson's uninformed 0.5 [0, 1] as the risk and "nan%" for people not in the release."""
    constant = pd.DataFrame({"a": ["x"] * 50 + ["y"] * 50, "b": ["u", "v"] * 50})
    row = SinglingOut(mode="univariate", n_attacks=10).evaluate(Release.load(constant, [constant], control=constant), seed=0).measures
    assert row["n_attacks"] == 0
    reason = "no predicate singling out one person could be made from the release: nothing was attacked"
    assert SinglingOut.not_informative(row) == reason and SinglingOut.evidence(row) == reason
    verdict = judged(SinglingOut, pd.Series({**row, "scenario_id": "so", "params": "{}"}), SinglingOut.threshold.value)
    assert verdict.label == "not_informative" and "nan" not in verdict.evidence


def stored_row(n_attacks, n_success, n_control_success):
    counts = AttackCounts(n_attacks, n_success, n_attacks, 0, n_attacks, n_control_success)
    return {
        **counts.measures(),
        "n_attacks": n_attacks,
        "n_success": n_success,
        "n_baseline_attacks": n_attacks,
        "n_baseline_success": 0,
        "n_control_attacks": n_attacks,
        "n_control_success": float(n_control_success),
        "confidence_level": 0.95,
        "warning": None,
        "scenario_id": "so",
        "params": "{}",
    }


def test_too_few_predicates_to_flag_anything_are_not_informative():
    """A bootstrap of other people of a table of few categories gave 2 univariate predicates, both
    singling out a person among members and other people alike: the risk's interval reached 0.69
    and the evaluation held the release inconclusive, though no outcome of 2 predicates could flag it."""
    few = stored_row(2, 0, 0)
    reason = SinglingOut.not_informative(few)
    assert (
        reason == "only 2 predicates singling out one row could be made from the release: even if every one succeeded, the risk's interval could not reach 0.09"
    )
    assert judged(SinglingOut, pd.Series(few), SinglingOut.threshold.value).label == "not_informative"
    enough = stored_row(2000, 480, 500)
    assert SinglingOut.not_informative(enough) is None
    assert judged(SinglingOut, pd.Series(enough), SinglingOut.threshold.value).label == "pass"
    assert judged(SinglingOut, pd.Series(stored_row(2000, 1500, 500)), SinglingOut.threshold.value).label == "flagged"


def test_an_inconclusive_risk_says_the_smallest_risk_it_could_flag():
    """With the risk clipped at 0 the reach below its value was 0, and the evidence claimed a risk
    "above 0.09" (the threshold itself) would have been flagged."""
    verdict = judged(SinglingOut, pd.Series(stored_row(300, 90, 80)), SinglingOut.threshold.value)
    first_flagged = next(s for s in range(301) if AttackCounts(300, s, 300, 0, 300, 80).measures()["privacy_risk_low"] >= 0.09)
    smallest = AttackCounts(300, first_flagged, 300, 0, 300, 80).measures()["privacy_risk"]
    assert verdict.label == "inconclusive" and smallest > 0.15
    assert verdict.evidence.endswith(f"with these tables, a privacy_risk above {smallest:.2f} would have been flagged")


def test_a_control_as_long_as_the_original_is_not_scaled_whatever_its_duplicates():
    """Two samples of one population as large hold different numbers of distinct rows by chance:
    read as tables of other sizes, the control's count was scaled and the risk's interval widened
    (0.7% to 36.8% for 6 997 and 7 004 distinct rows of 7 500), a null release left inconclusive."""
    truth = truth_releases(rows=400)
    duplicated = truth.control.copy()
    duplicated.iloc[:20] = duplicated.iloc[20:40].to_numpy()  # 380 distinct rows of 400
    family = SinglingOut(n_attacks=200)

    def measured(control):
        return family.evaluate(Release.load(truth.members, [truth.releases["bootstrap"]], control=control), seed=0).measures

    distinct, fewer_distinct, fewer_rows = measured(truth.control), measured(duplicated), measured(truth.control.iloc[:300])
    assert fewer_distinct["control_success_low"] is None and fewer_distinct["control_success_high"] is None
    assert fewer_distinct["n_control_success"] == int(fewer_distinct["n_control_success"])  # counted, not scaled
    head, equal = SinglingOut.headline_interval(fewer_distinct), SinglingOut.headline_interval(distinct)
    assert head.low == 0.0 and head.high - head.low < (equal.high - equal.low) + 0.03
    assert "another size" not in SinglingOut.evidence(fewer_distinct)
    assert fewer_rows["control_success_low"] is not None  # a control of fewer rows is still read at the original's size


def test_bad_parameters_name_the_field(split_release):
    members, others = split_release
    release = release_of(members, others, members)
    with pytest.raises(ScenarioError, match="n_cols: 40 is more than"):
        SinglingOut(n_cols=40).check(release)
    with pytest.raises(ScenarioError, match="release.control"):
        SinglingOut().check(Release.load(members, [members]))
    with pytest.raises(ScenarioError, match="columns: 'nope' is not a column"):
        SinglingOut(columns=["nope"]).check(release)
    with pytest.raises(ValueError, match="n_colls"):
        SinglingOut(n_colls=3)
    with pytest.raises(ValueError, match="mode"):
        SinglingOut(mode="bivariate")


def singling_out_job(folder, **params) -> Path:
    """A job file (JSON, where 1e9 is a number) of one singling-out scenario on a leaky release."""
    members, others = make_population(600, seed=4), make_population(600, seed=5)
    members.to_parquet(folder / "original.parquet")
    members.to_parquet(folder / "leaky.parquet")
    others.to_parquet(folder / "control.parquet")
    job = {
        "name": "so",
        "release": {"original": "original.parquet", "anonymized": ["leaky.parquet"], "control": "control.parquet"},
        "scenarios": [{"family": "singling_out", **params}],
        "output": "out",
    }
    (folder / "job.json").write_text(json.dumps(job))
    return folder / "job.json"


@pytest.mark.parametrize(
    "params, named",
    [
        ({"n_attacks": 1e9}, "scenarios[0].n_attacks: Input should be less than or equal to 1000000; got 1000000000"),
        ({"n_attacks": 1e9, "mode": "univariate"}, "scenarios[0].n_attacks: Input should be less than or equal to 1000000; got 1000000000"),
        ({"max_attempts": 10**12}, "scenarios[0].max_attempts: Input should be less than or equal to 100000000; got 1000000000000"),
        ({"n_attacks": 500, "max_attempts": 300}, "max_attempts: 300 is fewer than n_attacks: 500"),
    ],
)
def test_unbounded_work_is_refused_by_plan_at_once(tmp_path, params, named, monkeypatch):
    """Refused by the job's validation, before the release is read or a scenario made."""
    job = singling_out_job(tmp_path, **params)

    def read(*args, **kwargs):
        raise AssertionError("the release was read before the job was refused")

    monkeypatch.setattr("alc_dask.engine.prepare.prepare_release", read)
    result = CliRunner().invoke(main, ["plan", str(job)])
    assert result.exit_code == EXIT_BAD_INPUT, result.output
    assert named in result.output


def test_a_large_legitimate_n_attacks_is_planned_and_runs(tmp_path):
    job = singling_out_job(tmp_path, n_attacks=MAX_ATTACKS, max_attempts=MAX_ATTEMPTS)
    planned = CliRunner().invoke(main, ["plan", str(job)])
    assert planned.exit_code == 0, planned.output
    members, others = make_population(600, seed=4), make_population(600, seed=5)
    result = SinglingOut(mode="univariate", n_attacks=20_000).evaluate(release_of(members, others, members), seed=0).measures
    assert result["n_baseline_attacks"] == 20_000 and 0 < result["n_attacks"] < 20_000
    assert f"only {result['n_attacks']} of the 20000 predicates asked for could be made" in result["warning"]


def test_distinct_rows_and_column_orders_are_those_of_pandas_and_numpy():
    """The row matrix's fast paths (hashed distinct rows, counting sorts) give what pandas'
    drop_duplicates and numpy's stable argsort give, missing values and -0.0 included."""
    from alc_dask.families.wp29.predicates import _first_of_distinct_rows, _increasing

    rng = np.random.default_rng(5)
    for _ in range(50):
        n, m = int(rng.integers(1, 300)), int(rng.integers(1, 5))
        matrix = rng.integers(-3, int(rng.integers(1, 6)), (n, m)).astype(float)
        matrix[rng.random((n, m)) < 0.2] = np.nan
        matrix[rng.random((n, m)) < 0.1] = -0.0
        matrix[:, 0] *= rng.choice([1.0, 0.5, 1e5])  # fractions and wide ranges take numpy's sort
        expected = pd.DataFrame(matrix).drop_duplicates().index.to_numpy()
        np.testing.assert_array_equal(_first_of_distinct_rows(matrix.T), expected)
        order, present = _increasing(np.ascontiguousarray(matrix.T))
        np.testing.assert_array_equal(order, np.argsort(matrix.T, axis=1, kind="stable"))
        rows = RowMatrix(tuple(range(m)), np.ascontiguousarray(matrix.T), np.ones(m, dtype=bool), np.arange(n))
        np.testing.assert_array_equal(rows.sorted_values, np.sort(matrix.T, axis=1))
        np.testing.assert_array_equal(present, (~np.isnan(matrix)).sum(axis=0))


def test_row_matrices_are_contiguous_for_the_kernels(split_release):
    """numpy returns a column selection column-major; the Numba kernels, compiled for contiguous
    arrays, would run another, slower specialization on it."""
    members, others = split_release
    release = release_of(members, others, members)
    rows = RowMatrix.of(release, release.original, release.original.columns)
    for matrix in (rows.by_column, rows.subset(np.arange(0, len(rows.source), 2)).by_column, rows.order, rows.sorted_values):
        assert matrix.flags["C_CONTIGUOUS"]


def test_the_batterys_predicates_take_as_many_columns_as_single_people_out():
    """On a table of a few categories per column no 3 columns single anyone out: the battery made
    few predicates and a release of other people could not pass."""
    from alc_dask.families.wp29.singling_out import BATTERY_COLUMNS, predicate_columns

    rng = np.random.default_rng(0)
    categories = pd.DataFrame({f"c{i}": rng.integers(0, 3, 5000) for i in range(12)})
    n_cols = predicate_columns(categories)
    assert BATTERY_COLUMNS < n_cols < 12
    assert (~categories[[f"c{i}" for i in range(n_cols)]].duplicated(keep=False)).mean() >= 0.01
    with_a_number = categories.assign(income=rng.normal(size=5000))
    assert predicate_columns(with_a_number[["income", "c0", "c1", "c2"]]) == BATTERY_COLUMNS


def test_the_columns_chosen_from_codes_are_those_chosen_from_the_values():
    """``predicate_columns`` factorizes each column once (pandas' ``duplicated`` on the values of
    each random choice of columns took most of the battery's 51 s on 1e7 rows): it chooses what the
    values choose, missing values, mixed objects and wide integers included."""
    from alc_dask.families.wp29.singling_out import BATTERY_COLUMNS, UNIQUE_SHARE, predicate_columns

    def from_values(release, repeats=10):
        columns, rng = list(release.columns), np.random.default_rng(0)
        for n_cols in range(min(BATTERY_COLUMNS, len(columns)), len(columns)):
            chosen = [list(rng.choice(columns, n_cols, replace=False)) for _ in range(repeats)]
            if np.mean([(~release[c].duplicated(keep=False)).mean() for c in chosen]) >= UNIQUE_SHARE:
                return n_cols
        return len(columns)

    rng = np.random.default_rng(11)
    chosen = set()
    for trial in range(12):
        n, spread = 2000, int(rng.integers(2, 6))
        table = pd.DataFrame(
            {
                "text": pd.Series(rng.choice(["a", "b", "c", None][:spread], n), dtype="str"),
                "mixed": pd.Series(rng.choice([1, "1", 1.0, None, True], n), dtype=object),
                "few": rng.integers(0, spread, n),
                "floats": np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, spread, n) / 2),
                "more": rng.integers(0, spread, n),
                "wide": rng.integers(0, 2**40, n) if trial % 4 == 0 else rng.integers(0, spread, n),
                "last": rng.integers(0, spread, n),
            }
        )
        assert predicate_columns(table) == from_values(table)
        chosen.add(predicate_columns(table))
    assert len(chosen) >= 2  # the tables ask for different numbers of columns
