"""Everything `run` would refuse is refused at load (or expansion), before a cluster starts: settings
ranges, attack names and parameters, column names, empty expansions, unsafe names, YAML bombs,
duplicate keys, malformed paper files and odd encodings. Unattackable scenarios are skipped, not failed."""

import json
import math
import pickle

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from test_audit import verdict

from alc_dask import Release
from alc_dask.baseline import BaselineSettings
from alc_dask.cli import EXIT_BAD_INPUT, main
from alc_dask.jobs import JobSpecError, expand, load_job, validate_job
from alc_dask.measure import HaltingRules, MeasureSettings, SettingError
from alc_dask.report import as_text, audit_markdown, compare, summarize
from alc_dask.results import ResultsError, ResultStore, family_schema

BASE = {"name": "t", "release": {"original": "original.parquet", "anonymized": ["weak.parquet"]}, "scenarios": [{"generate": "each_column"}]}
FAST = {"candidates": ["majority", "logistic_regression"], "trees": 10}


def table(rows: int = 300, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 80, rows).astype(float),
            "sex": rng.choice(["f", "m"], rows),
            "region": rng.choice(["n", "s", "e", "w"], rows),
            "income": rng.choice(["low", "mid", "high"], rows),
            "status": "active",  # one value: no secret to infer
        }
    )


@pytest.fixture
def folder(tmp_path):
    data = table()
    data.to_parquet(tmp_path / "original.parquet")
    data.sample(frac=1, random_state=1).to_parquet(tmp_path / "weak.parquet")
    return tmp_path


@pytest.fixture(scope="module")
def release():
    data = table()
    return Release.load(data, [data])


def write(folder, data, name="job.yaml"):
    path = folder / name
    path.write_text(yaml.safe_dump(data, sort_keys=False) if name.endswith((".yaml", ".yml")) else json.dumps(data))
    return path


def load_error(folder, data, name="job.yaml") -> str:
    path = write(folder, data, name)
    with pytest.raises(JobSpecError) as error:
        load_job(path)
    message = str(error.value)
    assert str(path) in message
    return message


def expand_error(spec_data, release) -> str:
    with pytest.raises(JobSpecError) as error:
        expand(validate_job(spec_data), release, source="job.yaml")
    assert "job.yaml" in str(error.value)
    return str(error.value)


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def no_cluster(monkeypatch):
    """`run` must fail (or finish) without ever starting a cluster."""

    def refuse(*args, **kwargs):
        raise AssertionError("a cluster was started")

    monkeypatch.setattr("alc_dask.engine.cluster.connect", refuse)


# Item 3: baseline settings


@pytest.mark.parametrize(
    "settings, expected",
    [
        ({"candidates": ["random_forst"]}, ["baseline_settings.candidates[0]", "'random_forst'", "random_forest", "logistic_regression"]),
        ({"candidates": ["majority", "extra_tree"]}, ["baseline_settings.candidates[1]", "'extra_tree'", "extra_trees"]),
        ({"candidates": []}, ["baseline_settings.candidates", "at least one"]),
        ({"trees": -5}, ["baseline_settings.trees", "at least 1", "got -5"]),
        ({"selection_trees": 0}, ["baseline_settings.selection_trees", "at least 1", "got 0"]),
        ({"training_rows": 0}, ["baseline_settings.training_rows", "got 0"]),
        ({"selection_train_rows": 0}, ["baseline_settings.selection_train_rows", "got 0"]),
        ({"selection_test_rows": -1}, ["baseline_settings.selection_test_rows", "got -1"]),
    ],
)
def test_baseline_settings_are_checked_at_load(tmp_path, settings, expected):
    message = load_error(tmp_path, {**BASE, "baseline_settings": settings})
    for part in expected:
        assert part in message


def test_baseline_settings_reject_bad_values_from_python_too():
    with pytest.raises(ValueError, match=r"candidates\[0\] must be one of .*random_forest.*; got 'random_forst'"):
        BaselineSettings(candidates=("random_forst",))
    with pytest.raises(ValueError, match="trees must be a whole number at least 1; got -5"):
        BaselineSettings(trees=-5)
    assert BaselineSettings(training_rows=None).training_rows is None


# Item 5: halting, measure and attacks


@pytest.mark.parametrize(
    "change, expected",
    [
        ({"halting": {"min_pairs": 0}}, ["halting.min_pairs", "got 0"]),
        ({"halting": {"check_every": -3}}, ["halting.check_every", "got -3"]),
        ({"halting": {"tight_interval": -0.1}}, ["halting.tight_interval", "got -0.1"]),
        ({"halting": {"loose_interval": float("nan")}}, ["halting.loose_interval", "got nan"]),
        ({"halting": {"tight_interval": 0.3, "loose_interval": 0.2}}, ["halting.loose_interval", "tight_interval", "got 0.2"]),
        ({"halting": {"tight_low_alc": 0.5, "tight_high_alc": 0.2}}, ["halting.tight_high_alc", "tight_low_alc", "got 0.2"]),
        ({"halting": {"loose_low_alc": 0.95}}, ["halting.loose_high_alc", "loose_low_alc"]),
        ({"halting": {"diminishing_alc": 1.5}}, ["halting.diminishing_alc", "got 1.5"]),
        ({"halting": {"min_progress": -0.01}}, ["halting.min_progress", "got -0.01"]),
        ({"measure": {"confidence_level": 1.5}}, ["measure.confidence_level", "(0, 1)", "got 1.5"]),
        ({"measure": {"confidence_level": 0}}, ["measure.confidence_level", "got 0"]),
        ({"measure": {"rmin": 0}}, ["measure.rmin", "got 0"]),
        ({"measure": {"alpha": float("nan")}}, ["measure.alpha", "got nan"]),
        ({"measure": {"abs_weight": -0.5}}, ["measure.abs_weight", "[0, 1]", "got -0.5"]),
        ({"attacks": ["best_row_mach"]}, ["attacks[0].name", "'best_row_mach'", "best_row_match"]),
        ({"attacks": [{"name": "best_row_match", "params": {"batchsize": 5}}]}, ["attacks[0].params.batchsize", "batch_size, split_every"]),
        ({"attacks": [{"name": "best_row_match", "params": {"batch_size": 0}}]}, ["attacks[0].params.batch_size", "got 0"]),
        ({"attacks": [{"name": "best_row_match", "params": {"batch_size": "many"}}]}, ["attacks[0].params.batch_size", "got 'many'"]),
        ({"scenarios": [{"secret": "sex", "known": ["age"], "attack": {"name": "nope"}}]}, ["scenarios[0].attack.name", "'nope'"]),
        (
            {"scenarios": [{"secret": "sex", "known": ["age"], "attack": {"name": "closest_distance"}}]},
            ["scenarios[0].attack.name", "one of the attribute inference attacks:", "bayesian_group, best_row_match", "'closest_distance' is for membership"],
        ),
        ({"attacks": ["distance_ratio"]}, ["attacks[0].name", "one of the attribute inference attacks", "'distance_ratio' is for membership"]),
    ],
)
def test_halting_measure_and_attacks_are_checked_at_load(tmp_path, change, expected):
    message = load_error(tmp_path, {**BASE, **change})
    for part in expected:
        assert part in message


def test_settings_dataclasses_reject_nan_and_out_of_range():
    with pytest.raises(ValueError, match="confidence_level must be a number in \\(0, 1\\); got nan"):
        MeasureSettings(confidence_level=math.nan)
    with pytest.raises(ValueError, match="tight_high_alc must be at least tight_low_alc"):
        HaltingRules(tight_low_alc=0.5, tight_high_alc=0.2)
    assert HaltingRules(tight_high_alc=1.0).tight_high_alc == 1.0
    with pytest.raises(SettingError) as error:
        MeasureSettings(rmin=2.0)
    again = pickle.loads(pickle.dumps(error.value))  # it may travel from a Dask worker
    assert (again.field, again.value, str(again)) == ("rmin", 2.0, str(error.value))


@pytest.mark.parametrize(
    "change, expected",
    [
        ({"baseline_settings": {"candidates": ["random_forst"]}}, "baseline_settings.candidates[0]"),
        ({"measure": {"confidence_level": 1.5}}, "measure.confidence_level"),
        ({"halting": {"tight_low_alc": 0.5, "tight_high_alc": 0.2}}, "halting.tight_high_alc"),
        ({"attacks": [{"name": "best_row_match", "params": {"batch_size": 0}}]}, "attacks[0].params.batch_size"),
        ({"scenarios": [{"generate": "each_column", "secrets": ["incme"]}]}, "scenarios[0].secrets[0]"),
        ({"targets": {"conditions": [{"column": "salary", "op": "eq", "value": 1}]}}, "targets"),
        ({"baselines": ["control"]}, "baselines"),
    ],
)
def test_plan_and_run_reject_the_same_jobs_before_a_cluster_starts(folder, no_cluster, change, expected):
    job = write(folder, {**BASE, **change, "output": "out"})
    for command in ("plan", "run"):
        result = invoke(command, job)
        assert result.exit_code == EXIT_BAD_INPUT, (command, result.output)
        assert str(job) in result.output and expected in result.output, (command, result.output)
    assert not list((folder / "out" / "scores").glob("**/*.parquet"))


# Item 7: empty expansions, unknown columns, skipped scenarios


def fake_jobs_file(folder, entries=None):
    entries = (
        entries
        if entries is not None
        else [
            {"approach": "ours", "dataset": "adult.parquet", "known_columns": ["age", "sex"], "job_num": 0},
            {"approach": "prior", "dataset": "census.parquet", "known_columns": ["age"], "job_num": 1},
        ]
    )
    path = folder / "jobs.json"
    path.write_text(json.dumps(entries) if not isinstance(entries, str) else entries)
    return path


def test_paper_dataset_without_entries_is_an_error_naming_the_entry(tmp_path, release):
    jobs = fake_jobs_file(tmp_path)
    paper = {"generate": "paper", "jobs_file": str(jobs), "dataset": "adultt"}
    message = expand_error({**BASE, "scenarios": [{"generate": "each_column"}, paper]}, release)
    assert f"scenarios[1] (paper): dataset 'adultt' has no entries in {jobs}" in message
    assert "datasets there: adult, census" in message
    message = expand_error({**BASE, "scenarios": [{**paper, "dataset": "census"}]}, release)
    assert "approach 'ours'" in message and "prior" in message


@pytest.mark.parametrize(
    "scenario, expected",
    [
        ({"generate": "each_column", "secrets": ["income", "incme"]}, "scenarios[0].secrets[1]: unknown column 'incme'"),
        ({"generate": "sampled_known", "secrets": ["nope"]}, "scenarios[0].secrets[0]: unknown column 'nope'"),
        ({"secret": "incme", "known": ["age"]}, "scenarios[0].secret: unknown column 'incme'"),
        ({"secret": "income", "known": ["age", "sexx"]}, "scenarios[0].known[1]: unknown column 'sexx'"),
        ({"secret": "income", "known": ["age", "income"]}, "scenarios[0].known[1]: 'income' is the secret"),
    ],
)
def test_unknown_columns_are_errors_naming_the_field(release, scenario, expected):
    message = expand_error({**BASE, "scenarios": [scenario]}, release)
    assert expected in message
    if "unknown column" in expected:
        assert "the release has age, sex, region, income, status" in message


def test_empty_secrets_list_is_refused():
    with pytest.raises(JobSpecError, match=r"scenarios\[0\]\.secrets"):
        validate_job({**BASE, "scenarios": [{"generate": "each_column", "secrets": []}]})


def test_a_one_column_table_leaves_nothing_to_know(tmp_path):
    data = pd.DataFrame({"only": ["a", "b"] * 20})
    lonely = Release.load(data, [data])
    for generator in ("each_column", "sampled_known"):
        message = expand_error({**BASE, "scenarios": [{"generate": generator}]}, lonely)
        assert f"scenarios[0] ({generator})" in message and "'only'" in message and "no other column" in message


def test_a_constant_secret_is_skipped_with_its_reason(release):
    scenarios = expand(validate_job(BASE), release)
    skipped = {s.params.secret: s.skipped for s in scenarios if s.skipped}
    assert list(skipped) == ["status"] and "constant secret" in skipped["status"]
    assert all(s.skipped is None for s in scenarios if s.params.secret != "status")


def test_plan_lists_skipped_scenarios(folder):
    result = invoke("plan", write(folder, BASE))
    assert result.exit_code == 0, result.output
    lines = [line.split("\t") for line in result.output.splitlines() if "\t" in line]
    status = {line[2]: line[-1] for line in lines}
    assert status["status"].startswith("skipped: constant secret") and status["income"] == "to run"
    assert "5 scenarios (1 skipped)" in result.output


def test_run_writes_a_skipped_row_and_never_retries_it(folder, no_cluster):
    job = write(folder, {**BASE, "scenarios": [{"generate": "each_column", "secrets": ["status"]}], "output": "out"})
    result = invoke("run", job)
    assert result.exit_code == 0, result.output
    assert "1 scenarios, 0 failed, 1 skipped" in result.output
    scores = pd.read_parquet(folder / "out" / "scores" / "alc")
    assert list(scores["status"]) == ["skipped"] and "constant secret" in scores["error"].iloc[0]
    assert ResultStore(folder / "out").completed() == set(scores["scenario_id"])
    part = next((folder / "out" / "scores" / "alc").glob("*.parquet"))
    written = part.stat().st_mtime_ns
    assert invoke("run", job).exit_code == 0 and part.stat().st_mtime_ns == written


def scores_frame(rows):
    frame = pd.DataFrame(rows, columns=["scenario_id", "status", "alc", "risk", "error"]).assign(release="r", secret="s", known="[]", baseline="ml")
    return frame.assign(**MEASURED).reindex(columns=family_schema("alc").names)


MEASURED = {
    f"{side}_{name}": value
    for side in ("attack", "base")
    for name, value in (("precision", 0.6), ("recall", 0.5), ("interval_low", 0.5), ("interval_high", 0.7))
}
MEASURED |= {"attack_n": 100, "attack_correct": 60, "base_n": 100, "base_correct": 60, "pairs": 200}
"""What the verdict reads of an ALC row beside the ALC: its precisions, recalls, intervals and counts."""


def test_summaries_and_audits_count_skipped_scenarios_apart():
    scores = scores_frame([("a", "ok", 0.1, "safe", None), ("b", "skipped", np.nan, None, "constant secret: 'status'"), ("c", "failed", np.nan, None, "boom")])
    summary = summarize(scores)
    assert len(summary.scores) == 1 and len(summary.failed) == 1 and len(summary.skipped) == 1 and summary.total == 3
    assert list(summary.skipped["reason"]) == ["constant secret: 'status'"]

    only_skipped = scores.iloc[:2]
    judged = verdict(("a", "pass", 0.1, 0.0, 0.2), family="alc")  # skipped and failed evaluations have no verdict of their own
    diff = compare(only_skipped, judged, None)
    assert diff.passed and list(diff.skipped["scenario_id"]) == ["b"]
    assert dict(zip(diff.table["scenario_id"], diff.table["change"].astype(str))) == {"a": "new", "b": "skipped"}
    text = audit_markdown(diff, "r", "stamp", None)
    assert "PASSED" in text and "1 skipped" in text and "constant secret: 'status'" in text
    assert not compare(scores, judged, judged).passed  # the failed one still flags


def test_summary_text_mentions_skipped():
    scores = scores_frame([("a", "ok", 0.1, "safe", None), ("b", "skipped", np.nan, None, "constant secret: 'status'")])
    text = as_text(summarize(scores))
    assert "2 scenarios, 0 failed, 1 skipped" in text and "constant secret: 'status'" in text


def test_an_audit_of_a_job_expanding_to_nothing_fails(folder, no_cluster):
    jobs = fake_jobs_file(folder)
    job = write(folder, {**BASE, "scenarios": [{"generate": "paper", "jobs_file": "jobs.json", "dataset": "adultt"}], "output": "out"})
    result = invoke("audit", job)
    assert result.exit_code == EXIT_BAD_INPUT and "PASSED" not in result.output
    assert str(job) in result.output and f"dataset 'adultt' has no entries in {jobs}" in result.output


# Empty column lists, and every bad scenario entry named at once (0.7.0)


@pytest.mark.parametrize("family", ["membership", "singling_out"])
def test_an_empty_columns_list_is_refused_not_read_as_every_column(folder, family):
    job = write(folder, {**BASE, "scenarios": [{"generate": "each_column"}, {"family": family, "columns": []}]})
    result = invoke("plan", job)
    assert result.exit_code == EXIT_BAD_INPUT, result.output
    assert f"{job}: invalid job spec:" in result.output
    assert "scenarios[1].columns: Value error, lists no column; leave the field out to use every column" in result.output


def test_plan_names_every_bad_scenario_entry_in_order(folder):
    scenarios = [
        {"secret": "income", "known": ["agee"]},
        {"generate": "each_column"},
        {"generate": "each_column", "secrets": ["regon"]},
        {"secret": "income", "known": ["age"], "targets": {"conditions": [{"column": "salary", "op": "eq", "value": 1}]}},
    ]
    result = invoke("plan", write(folder, {**BASE, "scenarios": scenarios}))
    assert result.exit_code == EXIT_BAD_INPUT, result.output
    lines = result.output.splitlines()
    header = next(i for i, line in enumerate(lines) if "3 problems in the scenarios:" in line)
    assert [line.split(":")[0].strip() for line in lines[header + 1 : header + 4]] == [
        "scenarios[0].known[0]",
        "scenarios[2].secrets[0]",
        "scenarios[3].targets",
    ]
    assert "unknown column 'agee'" in lines[header + 1] and "unknown column 'regon'" in lines[header + 2] and "salary" in lines[header + 3]


def test_one_bad_scenario_entry_keeps_its_one_line_message(release):
    message = expand_error({**BASE, "scenarios": [{"generate": "each_column"}, {"secret": "income", "known": ["agee"]}]}, release)
    assert message.startswith("job.yaml: scenarios[1].known[0]: unknown column 'agee'") and "\n" not in message


def test_a_job_wide_field_at_fault_is_named_once(release):
    message = expand_error({**BASE, "baselines": ["control"], "scenarios": [{"generate": "each_column"}, {"secret": "income", "known": ["age"]}]}, release)
    assert message.count("baseline 'control' needs a release with a control table") == 1


# Extreme and infinite values (the warning of extreme values: 0.7.0)


def test_plan_and_run_warn_of_a_column_extreme_values_dominate(folder, no_cluster):
    original = table()
    original.loc[4, "age"] = 1e300  # every other age is 18 to 79: their distances would all be about 0
    original.to_parquet(folder / "original.parquet")
    job = write(folder, {**BASE, "scenarios": [{"generate": "each_column", "secrets": ["status"]}], "output": "out"})
    expected = f"warning: column 'age': a few extreme values (e.g. 1e+300 in {folder / 'original.parquet'}) stretch its range"
    for command in ("plan", "run"):
        result = invoke(command, job)
        assert result.exit_code == 0, (command, result.output)
        shown = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
        assert len(shown) == 1 and shown[0].startswith(expected), (command, result.stderr)
    table().to_parquet(folder / "original.parquet")
    assert "warning" not in invoke("plan", job).stderr


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
@pytest.mark.parametrize("role", ["original", "anonymized", "control"])
def test_an_infinite_value_is_an_error_naming_the_table_and_column(tmp_path, fmt, role):
    paths = {}
    for name in ("original", "anonymized", "control"):
        data = table(seed=len(name))
        if name == role:
            data.loc[7, "age"] = -np.inf if fmt == "csv" else np.inf
        paths[name] = tmp_path / f"{name}.{fmt}"
        data.to_parquet(paths[name]) if fmt == "parquet" else data.to_csv(paths[name], index=False)
    release = {"original": paths["original"].name, "anonymized": [paths["anonymized"].name], "control": paths["control"].name}
    result = invoke("plan", write(tmp_path, {**BASE, "release": release}))
    assert result.exit_code == EXIT_BAD_INPUT, result.output
    assert f"{paths[role]}: column 'age' holds infinite values" in result.output


# Item 9: YAML aliases and duplicate keys


def test_yaml_alias_expansion_is_bounded(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"] + [
        f"{b}: &{b} [*{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}]" for a, b in zip("abcdefgh", "bcdefghi")
    ]
    bomb.write_text("\n".join(lines) + "\n")  # 10**9 values once expanded
    assert len(bomb.read_bytes()) < 800
    with pytest.raises(JobSpecError, match=f"{bomb}: .*aliases expand this document to [0-9,]{{13}} values, more than the 100,000 allowed"):
        load_job(bomb)
    recursive = tmp_path / "recursive.yaml"
    recursive.write_text("name: &a [*a]\n")
    with pytest.raises(JobSpecError, match="recursive structure"):
        load_job(recursive)


def test_small_aliases_and_merges_load(tmp_path):
    shared = ["income", "region"]  # PyYAML's dumper writes a repeated list as an anchor and aliases
    job = {**BASE, "scenarios": [{"generate": "each_column", "secrets": shared}, {"generate": "sampled_known", "secrets": shared}]}
    path = write(tmp_path, job)
    assert "*id001" in path.read_text()
    assert load_job(path).scenarios[1].secrets == shared
    merge = tmp_path / "merge.yaml"
    merge.write_text(
        "name: t\nrelease: {original: o.csv, anonymized: [a.csv]}\n"
        "scenarios: [&each {generate: each_column, secrets: [income]}, {<<: *each, secrets: [region]}]\n"
    )
    assert [s.secrets for s in load_job(merge).scenarios] == [["income"], ["region"]]  # a merged key may be overridden


def test_duplicate_keys_are_refused_at_any_depth(tmp_path):
    top = tmp_path / "top.yaml"
    top.write_text("name: t\nrelease: {original: o.csv, anonymized: [a.csv]}\nscenarios: [{generate: each_column}]\nscenarios: [{secret: a, known: [b]}]\n")
    with pytest.raises(JobSpecError, match=r"duplicate key 'scenarios' \(line 4\)"):
        load_job(top)
    nested = tmp_path / "nested.yaml"
    nested.write_text("name: t\nrelease:\n  original: o.csv\n  anonymized: [a.csv]\n  original: p.csv\nscenarios: [{generate: each_column}]\n")
    with pytest.raises(JobSpecError, match=r"duplicate key 'original' \(line 5\)"):
        load_job(nested)
    as_json = tmp_path / "job.json"
    as_json.write_text('{"name": "t", "release": {"original": "o.csv", "anonymized": ["a.csv"]}, "scenarios": [], "scenarios": [{"generate": "each_column"}]}')
    with pytest.raises(JobSpecError, match=f"{as_json}.*duplicate key 'scenarios'"):
        load_job(as_json)


# Item 11: names used as path components


@pytest.mark.parametrize("name", ["../../x", "..", ".", "a/b", "a b", ""])
def test_release_and_job_names_must_be_safe_path_components(tmp_path, name):
    message = load_error(tmp_path, {**BASE, "release": {**BASE["release"], "name": name}})
    assert "release.name" in message
    message = load_error(tmp_path, {**BASE, "name": name})
    assert "name" in message


@pytest.mark.parametrize(
    "anonymized, label", [("weak.parquet", "weak"), ("dir/Région sûre.parquet", "R_gion_s_re"), ("..parquet", "release"), ("s3://bucket/x.y.parquet", "x")]
)
def test_the_label_from_a_file_stem_is_a_safe_name(anonymized, label):
    spec = validate_job({**BASE, "release": {"original": "o.parquet", "anonymized": [anonymized]}})
    assert spec.release.label == label


def test_an_audit_writes_only_under_its_output(tmp_path):
    result = invoke("audit", write(tmp_path, {**BASE, "release": {**BASE["release"], "name": "../../escape"}}))
    assert result.exit_code == EXIT_BAD_INPUT and "release.name" in result.output
    assert not (tmp_path.parent / "escape").exists()


# Item 14: malformed paper files, one-column tables


@pytest.mark.parametrize(
    "content, expected",
    [
        ("[{not json", "malformed JSON"),
        ('{"approach": "ours"}', "expected a list of entries"),
        ([{"approach": "ours", "dataset": "adult.parquet", "job_num": 3}], "entry [0] lacks 'known_columns'"),
        ([{"approach": "ours", "dataset": "adult.parquet", "known_columns": "age", "job_num": 3}], "entry [0]: known_columns must be a list of column names"),
        ([{"approach": "ours", "dataset": "adult.parquet", "known_columns": ["agee"], "job_num": 3}], "entry [0]: known column 'agee' is not in the release"),
    ],
)
def test_malformed_paper_jobs_file_names_file_and_field(tmp_path, release, content, expected):
    jobs = fake_jobs_file(tmp_path, content)
    message = expand_error({**BASE, "scenarios": [{"generate": "paper", "jobs_file": str(jobs), "dataset": "adult"}]}, release)
    assert "scenarios[0].jobs_file" in message and str(jobs) in message and expected in message


# Item 15: encodings, manifests, audit errors


def test_non_utf8_job_file_is_named(tmp_path):
    path = tmp_path / "job.yaml"
    path.write_bytes("name: caf\u00e9\n".encode("latin-1"))
    with pytest.raises(JobSpecError, match=f"{path}: not UTF-8 text"):
        load_job(path)


def test_json_with_a_byte_order_mark_loads(tmp_path):
    path = tmp_path / "job.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(BASE).encode())
    assert load_job(path).name == "t"


def test_a_directory_is_not_a_job_file(tmp_path):
    with pytest.raises(JobSpecError, match=f"{tmp_path}: is a directory, not a job file"):
        load_job(tmp_path)


def test_a_corrupt_manifest_is_named(tmp_path):
    """A manifest holds a folder only beside results (since 0.2.0), so there is a part here."""
    (tmp_path / "scores" / "alc").mkdir(parents=True)
    (tmp_path / "scores" / "alc" / "part-00000001.parquet").write_bytes(b"")
    (tmp_path / "job.json").write_text("{ corrupt")
    with pytest.raises(ResultsError, match=f"{tmp_path / 'job.json'}: corrupt manifest"):
        ResultStore.create(tmp_path, {"job": "t", "fingerprint": "x", "settings": {}})


def test_audit_errors_name_the_job_file(tmp_path, no_cluster):
    job = write(tmp_path, {**BASE, "output": "out"})  # its release files do not exist
    result = invoke("audit", job)
    assert (
        result.exit_code == EXIT_BAD_INPUT and f"{job}: release.original: " in result.output and "original.parquet': no such file or directory" in result.output
    )


def test_settings_errors_show_numpy_numbers_as_numbers():
    with pytest.raises(SettingError) as error:
        HaltingRules(min_pairs=np.int64(-3))
    assert str(error.value).endswith("got -3"), str(error.value)
