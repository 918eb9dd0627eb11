"""``alc-dask check`` and ``alc_dask.evaluate``: the default battery, the inputs refused before any
cluster starts, and the verdict on a copy of the original and on a fresh sample."""

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from alc_dask.apps.battery import battery_entries, battery_job, battery_tables, quasi_identifiers_of, secrets_of, skipped_without_control
from alc_dask.apps.synthetic import make_demo_release, make_population
from alc_dask.cli import main
from alc_dask.cli_exit_codes import EXIT_BAD_INPUT, EXIT_OK, EXIT_RELEASE_FLAGGED
from alc_dask.jobs import validate_job

ROWS = 2000


@pytest.fixture(scope="module")
def tables():
    return make_demo_release(ROWS, 0)


@pytest.fixture(scope="module")
def control():
    """Other people of the population, as many as the original: singling out counts predicates that
    match exactly one person, which a smaller control table makes rarer whatever the release."""
    return make_population(ROWS, 1000)


def written(folder, tables: dict[str, pd.DataFrame]) -> dict:
    paths = {}
    for name, table in tables.items():
        paths[name] = folder / f"{name}.parquet"
        table.to_parquet(paths[name], index=False)
    return paths


def test_battery_secrets_are_those_of_each_kind_the_fewest_share_and_the_quasi_identifiers_the_first_others(tables):
    original = tables["original"]
    secrets = secrets_of(original)
    assert secrets == ["age", "region", "occupation", "hours_per_week"]  # continuous: age, hours; categorical: region 20%, occupation 26%
    assert quasi_identifiers_of(original, secrets) == ["sex", "education", "income", "married"]


def test_battery_secrets_leave_out_what_tells_nothing():
    """A constant or empty column, an identifier, and a value 90% of people share are never the battery's secrets."""
    rows = 1000
    frame = pd.DataFrame(
        {
            "spread": [str(i % 5) for i in range(rows)],
            "constant": ["x"] * rows,
            "empty": [None] * rows,
            "identifier": [f"id{i}" for i in range(rows)],
            "dominant": ["common"] * 900 + ["rare"] * 100,
        }
    )
    assert secrets_of(frame) == ["spread"]


NEEDS_CONTROL = {"disclosure"}
COMPARED_WITH_THE_ORIGINAL = {"membership", "singling_out", "linkability", "inference"}
"""Without a control table these compare the members with the original's other people (``reference: original``)."""
NEEDS_NONE = {"alc", "identification", "near_copies"}
"""These need no one but the members and the release, with a control table or without."""


def test_battery_without_a_control_table_has_only_the_families_that_need_none(tables):
    original = tables["original"]
    entries = battery_entries(original, original, has_control=False)
    assert {entry.get("family", "alc") for entry in entries} == NEEDS_NONE | COMPARED_WITH_THE_ORIGINAL
    assert all(entry.get("reference") == "original" for entry in entries if entry.get("family") in COMPARED_WITH_THE_ORIGINAL)
    with_control = {entry.get("family", "alc") for entry in battery_entries(original, original, has_control=True)}
    assert with_control == NEEDS_NONE | COMPARED_WITH_THE_ORIGINAL | NEEDS_CONTROL
    assert set(skipped_without_control(original, original)) == NEEDS_CONTROL
    assert {entry.get("family", "alc") for entry in battery_entries(original, original, True, ["membership"])} == {"membership"}
    with pytest.raises(ValueError, match="nonsense"):
        battery_entries(original, original, True, ["nonsense"])


def test_special_uniques_join_the_battery_only_where_a_release_of_other_people_can_pass():
    from alc_dask.families.special_uniques.family import BATTERY_MIN_ROWS

    people = make_population(BATTERY_MIN_ROWS, 3)

    def families(original):
        return {entry.get("family", "alc") for entry in battery_entries(original, original, has_control=True)}

    assert "special_uniques" in families(people) and "special_uniques" not in families(people.iloc[:-1])


def test_identification_runs_only_on_a_release_of_the_originals_own_records(tables):
    """Its forecast reads the original alone: it speaks of a release that publishes people's records
    (a copy, a lightly swapped one), not of a release of other people or of made-up rows."""
    original = tables["original"]

    def families(release):
        return {entry.get("family", "alc") for entry in battery_entries(original, release, has_control=True)}

    assert battery_tables(original, original.sample(frac=0.3, random_state=1), True).microdata_share == 1.0
    assert "identification" in families(original) and "identification" in families(tables["weak"])
    assert "identification" not in families(tables["strong"]) and "identification" not in families(make_population(ROWS, 7))


def test_battery_is_a_valid_job_for_the_engine(tables, tmp_path):
    paths = written(tmp_path, tables)
    entries = battery_entries(tables["original"], tables["weak"], has_control=True)
    spec = validate_job(battery_job(str(paths["original"]), str(paths["weak"]), str(paths["control"]), str(tmp_path / "out"), entries))
    assert len(spec.scenarios) == len(entries)
    assert NEEDS_CONTROL <= {entry.family for entry in spec.scenarios}


@pytest.fixture
def no_cluster(monkeypatch):
    """A check that reached the cluster would fail with an internal error (exit 1), not exit 2."""

    def refuse(*args, **kwargs):
        raise AssertionError("a cluster was started")

    monkeypatch.setattr("alc_dask.engine.connect", refuse)


def bad_input(*args) -> str:
    result = CliRunner().invoke(main, ["check", *map(str, args)])
    assert result.exit_code == EXIT_BAD_INPUT, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    return lines[0]


def test_check_refuses_a_path_that_does_not_exist(tables, tmp_path, no_cluster):
    paths = written(tmp_path, tables)
    line = bad_input(paths["original"], tmp_path / "missing.parquet")
    assert "missing.parquet" in line and "no such file" in line


def test_check_refuses_an_empty_table(tables, tmp_path, no_cluster):
    paths = written(tmp_path, {"original": tables["original"], "empty": tables["original"].iloc[:0]})
    line = bad_input(paths["original"], paths["empty"])
    assert "empty.parquet" in line and "empty" in line


def test_check_refuses_a_release_with_a_column_the_original_lacks(tables, tmp_path, no_cluster):
    paths = written(tmp_path, {"original": tables["original"], "release": tables["weak"].assign(postcode="x")})
    line = bad_input(paths["original"], paths["release"])
    assert "release.parquet" in line and "'postcode'" in line


@pytest.mark.parametrize(
    ("change", "column"), [(lambda t: t.drop(columns=["income"]), "'income'"), (lambda t: t.assign(postcode="x"), "'postcode'")], ids=["lacks", "extra"]
)
def test_check_refuses_a_control_table_with_other_columns(tables, tmp_path, no_cluster, change, column):
    paths = written(tmp_path, {"original": tables["original"], "release": tables["weak"], "control": change(tables["control"])})
    line = bad_input(paths["original"], paths["release"], "--control", paths["control"])
    assert "control.parquet" in line and column in line


@pytest.mark.long  # the whole battery on a local cluster: 40-90 s each
def test_check_on_a_copy_of_the_original_is_flagged_and_evaluate_agrees(tables, control, tmp_path):
    paths = written(tmp_path, {"original": tables["original"], "copy": tables["original"], "control": control})
    output = tmp_path / "check"
    result = CliRunner().invoke(main, ["check", str(paths["original"]), str(paths["copy"]), "--control", str(paths["control"]), "--output", str(output)])
    assert result.exit_code == EXIT_RELEASE_FLAGGED, result.output
    assert result.stdout.startswith("VERDICT: FLAGGED"), result.stdout  # the progress bar is on stderr
    verdict = json.loads((output / "verdict.json").read_text())
    assert verdict["verdict"] == "flagged"
    flagged = {item["family"] for item in verdict["evaluations"] if item["label"] == "flagged"}
    assert {"singling_out", "inference", "membership"} <= flagged
    assert (output / "report" / "report.html").exists()

    from alc_dask import evaluate

    answer = evaluate(tables["original"], tables["original"].copy(), control, output=tmp_path / "evaluate")
    assert answer.verdict.verdict == "flagged"
    assert answer.evaluations[["family", "label"]].values.tolist() == [[item["family"], item["label"]] for item in verdict["evaluations"]]
    assert json.loads(answer.to_json())["verdict"] == "flagged"
    assert "<html" in answer.to_html().lower() and "flagged" in answer._repr_html_()


@pytest.mark.long  # the whole battery on a local cluster: 40-90 s each
def test_a_copy_without_a_control_table_is_flagged_and_the_families_left_out_are_named(tables, tmp_path):
    """A narrow table: a copy, rows shuffled, passed with the quasi-identifiers alone; the
    attacker who knows every other column finds each person's row."""
    narrow = tables["original"][["sex", "region", "education", "occupation", "income"]]
    paths = written(tmp_path, {"original": narrow, "copy": narrow.sample(frac=1.0, random_state=3)})
    output = tmp_path / "check"
    result = CliRunner().invoke(main, ["check", str(paths["original"]), str(paths["copy"]), "--output", str(output)])
    assert result.exit_code == EXIT_RELEASE_FLAGGED, result.output
    assert "not run: disclosure" in result.stdout and "give --control" in result.stdout
    verdict = json.loads((output / "verdict.json").read_text())
    assert verdict["releases"] == {"copy": "flagged"}
    assert any(item["family"] == "alc" and item["label"] == "flagged" for item in verdict["evaluations"])
    assert {"singling_out", "linkability", "inference"} <= {item["family"] for item in verdict["evaluations"]}  # against the original's other people


@pytest.mark.long  # the whole battery on a local cluster: 40-90 s each
def test_check_on_a_fresh_sample_flags_no_evaluation_of_the_release(tables, control, tmp_path):
    fresh = make_population(ROWS, 7)
    paths = written(tmp_path, {"original": tables["original"], "fresh": fresh, "control": control})
    output = tmp_path / "check"
    result = CliRunner().invoke(main, ["check", str(paths["original"]), str(paths["fresh"]), "--control", str(paths["control"]), "--output", str(output)])
    verdict = json.loads((output / "verdict.json").read_text())
    assert [item for item in verdict["evaluations"] if item["label"] == "flagged"] == []
    assert result.exit_code == EXIT_OK, result.output


def inconclusive_verdict():
    from alc_dask.verdict import EvaluationVerdict, Headline, Verdict

    headline = Headline(name="privacy_risk", value=0.1, low=0.05, high=0.15, threshold=0.09, threshold_source="EMA Policy 0070")
    item = EvaluationVerdict(
        family="inference",
        id="income-1",
        release="release",
        params={},
        label="inconclusive",
        headline=headline,
        evidence="10% guessed.",
        settle=4200,
        measures={},
    )
    return Verdict(verdict="inconclusive", evaluations=[item], thresholds={"inference": 0.09})


@pytest.mark.parametrize(("strict", "code"), [([], EXIT_OK), (["--strict"], EXIT_RELEASE_FLAGGED)], ids=["default", "strict"])
def test_an_inconclusive_check_exits_0_with_a_warning_naming_the_open_evaluations_or_4_when_strict(tables, tmp_path, monkeypatch, strict, code):
    """The battery's run replaced by its scores' verdict: the exit code and the lines are the command's."""
    from alc_dask.apps import check

    paths = written(tmp_path, {"original": tables["original"], "release": tables["weak"]})

    def run_check(inputs, output, seed, **options):  # as the battery's run does: its verdict written once
        from alc_dask.verdict import write_verdict

        write_verdict(inconclusive_verdict(), output)
        return check.CheckRun(pd.DataFrame(), inconclusive_verdict(), output, 0.0, {})

    monkeypatch.setattr(check, "run_check", run_check)
    result = CliRunner().invoke(main, ["check", str(paths["original"]), str(paths["release"]), "--output", str(tmp_path / "out"), *strict])
    assert result.exit_code == code, result.output
    assert result.stdout.startswith("VERDICT: INCONCLUSIVE (0 flagged, 1 inconclusive, 0 pass)\n  inconclusive: inference release income-1: 10% guessed.")
    assert "warning: the verdict is inconclusive: 1 evaluation(s) straddle their threshold (inference income-1)" in result.stderr
    assert json.loads((tmp_path / "out" / "verdict.json").read_text())["verdict"] == "inconclusive"


def test_battery_links_the_two_halves_of_the_columns(tables):
    """As Anonymeter splits them: four quasi-identifiers against three other columns linked a copy of
    tx2019 for 10% of people where the halves link 99.7% (the generators benchmark)."""
    original = tables["original"]
    (entry,) = [e for e in battery_entries(original, original, has_control=True) if e.get("family") == "linkability"]
    left, right = entry["aux_cols"]
    assert left + right == list(original.columns) and abs(len(left) - len(right)) <= 1


def test_battery_measures_membership_by_closest_distance_distance_and_density_ratio(tables):
    """The closest distance is the plain test; density_ratio adds power at low false-positive rates
    on near copies (the generators benchmark): all run, at the same population's skew, so the
    verdict corrects for choosing the strongest."""
    original = tables["original"]
    entries = [e for e in battery_entries(original, original, has_control=True) if e.get("family") == "membership"]
    assert [e["attack"] for e in entries] == ["closest_distance", "distance_ratio", "density_ratio"]
    assert len({e["population"] for e in entries}) == 1


def test_a_check_stops_its_local_cluster_behind_the_report_and_before_it_returns(tables, tmp_path):
    """The cluster's 0.6 s stop runs beside the report (``run_check``); nothing of it outlives the call."""
    import multiprocessing
    import threading

    from alc_dask.apps.check import read_inputs, run_check

    inputs = read_inputs(tables["original"].head(300), tables["strong"].head(300))
    run = run_check(inputs, tmp_path / "out", families=["near_copies"], workers=1, progress=False)
    assert (tmp_path / "out" / "report" / "report.html").exists() and run.verdict.verdict in {"flagged", "pass", "inconclusive"}
    assert multiprocessing.active_children() == []
    assert not any(thread.name.startswith("alc-dask-closing") for thread in threading.enumerate())
