"""Job specs: strict validation with errors naming file, field and value; scenario generators; ids and seeds."""

import json
import random
import re

import numpy as np
import pandas as pd
import pytest
import yaml

from alc_dask import Release
from alc_dask.apps.synthetic import make_population
from alc_dask.data import ReleaseError
from alc_dask.data.combinations import alone, combined_ranks
from alc_dask.families.alc.family import AlcFamily
from alc_dask.families.alc.paper import paper_secrets
from alc_dask.families.alc.params import AttackSpec
from alc_dask.families.alc.planning import UniqueShares
from alc_dask.jobs import JobSpecError, check_files, expand, load_job, scenario_id, scenario_seed, validate_job

BASE = {"name": "t", "release": {"original": "original.parquet", "anonymized": ["weak.parquet"]}, "scenarios": [{"generate": "each_column"}]}


@pytest.fixture(scope="module")
def release():
    population = make_population(800, seed=1)
    return Release.load(population, [population])


def write(tmp_path, data, name="job.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data) if name.endswith((".yaml", ".yml")) else json.dumps(data))
    return path


def test_yaml_and_json_load_with_paths_relative_to_the_job_file(tmp_path):
    (tmp_path / "jobs").mkdir()
    for name in ("job.yaml", "job.json"):
        spec = load_job(write(tmp_path / "jobs", {**BASE, "output": "../out"}, name))
        assert spec.release.original == str(tmp_path / "jobs" / "original.parquet")
        assert spec.output == str(tmp_path / "out")
        assert spec.release.label == "weak"


@pytest.mark.parametrize(
    "change, expected",
    [
        ({"seeds": 3}, ["seeds", "Extra inputs are not permitted", "got 3"]),
        ({"scenarios": [{"secret": "age", "known": ["sex"], "atack": "x"}]}, ["scenarios[0].atack", "got 'x'"]),
        ({"scenarios": [{"generate": "sampled_known", "per_secret": "many"}]}, ["scenarios[0].per_secret", "got 'many'", "integer"]),
        ({"scenarios": [{"generate": "every_column"}]}, ["scenarios[0]", "each_column, sampled_known, paper, key_sets or quasi_identifier_sets"]),
        ({"halting": {"min_pair": 10}}, ["halting.min_pair"]),
        ({"baselines": ["ML"]}, ["baselines[0]", "got 'ML'", "'ml'"]),
        ({"release": {"original": "a.csv"}}, ["release:", "needs anonymized tables or a grouped"]),
    ],
)
def test_bad_fields_are_named_with_their_value(tmp_path, change, expected):
    path = write(tmp_path, {**BASE, **change})
    with pytest.raises(JobSpecError) as error:
        load_job(path)
    message = str(error.value)
    assert str(path) in message
    for part in expected:
        assert part in message


def test_malformed_yaml_missing_and_unknown_files(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    with pytest.raises(JobSpecError, match="malformed YAML"):
        load_job(bad)
    with pytest.raises(JobSpecError, match="job file not found"):
        load_job(tmp_path / "absent.yaml")
    (tmp_path / "job.toml").write_text("")
    with pytest.raises(JobSpecError, match="expected .yaml, .yml or .json"):
        load_job(tmp_path / "job.toml")
    with pytest.raises(JobSpecError, match="top level"):
        validate_job(["not", "a", "mapping"])


def test_missing_release_file_names_the_field(tmp_path):
    spec = load_job(write(tmp_path, BASE))
    with pytest.raises(ReleaseError, match=r"job\.yaml: release\.original: '.*original\.parquet': no such file or directory"):
        check_files(spec, "job.yaml")


def test_each_column_makes_every_column_a_secret_with_all_others_known(release):
    scenarios = expand(validate_job(BASE), release)
    columns = list(release.columns)
    assert [s.params.secret for s in scenarios] == columns
    for s in scenarios:
        assert set(s.params.known) == set(columns) - {s.params.secret}


def test_sampled_known_sets_are_distinct_sized_and_mostly_unique(release):
    spec = validate_job({**BASE, "scenarios": [{"generate": "sampled_known", "per_secret": 3, "size": 3, "min_unique": 0.4, "secrets": ["income", "sex"]}]})
    scenarios = expand(spec, release)
    assert len(scenarios) == 6
    for secret in ("income", "sex"):
        sets = [s.params.known for s in scenarios if s.params.secret == secret]
        assert len(set(sets)) == 3 and all(len(k) == 3 and secret not in k for k in sets)
        assert all(UniqueShares(release)(k) >= 0.4 for k in sets)


def test_unique_share_counts_rows_alone_with_their_combination():
    table = pd.DataFrame({"a": ["x", "x", "y", "z"], "b": [1.0, 1.0, 2.0, np.nan], "c": ["p", "q", "p", "q"]})
    release = Release.load(table, [table], columns={"b": "categorical"})
    shares = UniqueShares(release)
    assert shares(["a", "b"]) == 0.5  # the two x/1 rows share their combination
    assert shares(["a", "b", "c"]) == 1.0


def test_unique_shares_read_each_column_once(monkeypatch):
    table = pd.DataFrame({"a": [1, 1, 2, 3], "b": [0.5, 0.5, 0.5, np.nan], "c": ["p", "q", "p", "q"]})
    release = Release.load(table, [table])
    read = []
    original_column = type(release.original).column_array
    monkeypatch.setattr(type(release.original), "column_array", lambda table, name: read.append(name) or original_column(table, name))
    shares = UniqueShares(release)
    assert [shares(["a", "b"]), shares(["a", "c"]), shares(["b", "c"]), shares(["a", "b"])] == [0.5, 1.0, 0.5, 0.5]
    assert sorted(read) == ["a", "b", "c"]


def _share_by_np_unique(rows: np.ndarray) -> float:
    _, inverse, counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    return float(np.mean(counts[inverse.ravel()] == 1))


@pytest.mark.parametrize("seed", range(20))
def test_rows_alone_are_counted_as_np_unique_over_rows_counts_them(seed):
    """Rows compared by their columns' ranks find the combinations ``np.unique(axis=0)`` finds: ties,
    -0.0 beside 0.0, infinities (a continuous column's missing values), one row, one column."""
    rng = np.random.default_rng(seed)
    values = np.array([0.0, -0.0, 1.0, 2.5, np.inf, -np.inf, 3.0])
    for _ in range(50):
        rows = rng.choice(values[: rng.integers(1, len(values) + 1)], size=(rng.integers(1, 40), rng.integers(1, 5)))
        ranked = [(np.unique(column, return_inverse=True)[1].reshape(-1), len(np.unique(column))) for column in rows.T]
        assert np.mean(alone(combined_ranks(ranked))) == _share_by_np_unique(rows)


def test_combined_ranks_are_ranked_again_rather_than_overflow():
    """Three columns of 2**31 possible ranks: their product overflows an int64, the key never does."""
    rng = np.random.default_rng(0)
    ranks = rng.integers(0, 3, size=(200, 3)) * (2**31 - 1) // 2
    key = combined_ranks([(ranks[:, j], 2**31) for j in range(3)])
    assert key.min() >= 0
    assert np.mean(alone(key)) == _share_by_np_unique(ranks)
    assert len(np.unique(key)) == len(np.unique(ranks, axis=0))


def test_ids_are_stable_and_seeds_do_not_depend_on_order(release):
    spec = validate_job({**BASE, "baselines": ["ml", "prior"]})
    first, again = expand(spec, release), expand(spec, release)
    assert [s.id for s in first] == [s.id for s in again]
    assert len({s.id for s in first}) == len(first) == 2 * len(release.columns)
    reversed_spec = validate_job({**BASE, "baselines": ["prior", "ml"]})
    seeds = {s.id: s.seed for s in expand(reversed_spec, release)}
    assert seeds == {s.id: s.seed for s in first}
    assert all(s.seed == scenario_seed(0, s.id) for s in first)
    assert scenario_seed(1, first[0].id) != first[0].seed


# Ids of existing output folders: a name already safe keeps its id, so resumption still finds its parts.
KEPT_IDS = {
    "income": "income-7d42898d4f",
    "hours_per_week": "hours_per_week-d167925ba1",
    "marital-status": "marital_status-1f53728c14",
    "Age2 ": "Age2_-a021355fa5",
    "a" * 30: "a" * 24 + "-b046a32f9a",
}


def test_ids_of_safe_names_are_unchanged():
    attack = AttackSpec(name="best_row_match")
    assert {secret: scenario_id(AlcFamily(secret=secret, known=["k"], attack=attack, baseline="ml")) for secret in KEPT_IDS} == KEPT_IDS


@pytest.mark.parametrize(("secret", "prefix"), [("âge", "ge"), ("地区", "s"), (" x", "x"), ("_x", "x"), (".x", "x"), ("", "s"), ("-", "s"), ("__", "s")])
def test_ids_start_with_a_letter_or_digit_whatever_the_column_name(secret, prefix):
    """A part named ``_…`` or ``.…`` is skipped by Parquet dataset readers."""
    identifier = scenario_id(AlcFamily(secret=secret, known=["k"]))
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_]*-[0-9a-f]{10}", identifier) and identifier.startswith(prefix + "-")


def test_explicit_scenarios_keep_their_own_settings_and_duplicates_are_dropped(release):
    explicit = {
        "secret": "income",
        "known": ["age", "sex"],
        "baseline": "prior",
        "targets": {"conditions": [{"column": "income", "op": "top_quantile", "value": 0.1}]},
    }
    spec = validate_job({**BASE, "scenarios": [explicit, explicit, {"secret": "income", "known": ["sex", "age"], "baseline": "prior"}]})
    scenarios = expand(spec, release)
    assert len(scenarios) == 2  # the repeat is dropped; without targets it is another scenario
    assert scenarios[0].params.baseline == "prior" and scenarios[0].params.targets is not None and scenarios[1].params.targets is None


def test_paper_secrets_match_the_papers_global_shuffle():
    columns, known = [f"c{i}" for i in range(12)], ["c3", "c7"]
    candidates = [c for c in columns if c not in known]
    random.seed(42)
    random.shuffle(candidates)
    assert paper_secrets(columns, known) == candidates[:5]


def test_paper_protocol_on_adult(shared_data):
    paper = shared_data / "alc-paper"
    release = Release.load(paper / "adult" / "original.parquet", [paper / "adult" / "weak.parquet"])
    spec = validate_job(
        {**BASE, "scenarios": [{"generate": "paper", "jobs_file": str(paper / "jobs.json"), "dataset": "adult", "approach": "prior", "entries": 3}]}
    )
    scenarios = expand(spec, release)
    entries = [e for e in json.loads((paper / "jobs.json").read_text()) if e["approach"] == "prior" and e["dataset"] == "adult.parquet"][:3]
    expected = {(s, tuple(e["known_columns"])) for e in entries for s in paper_secrets(list(release.columns), e["known_columns"])}
    assert {(s.params.secret, s.params.known) for s in scenarios} == expected
    assert {s.params.baseline for s in scenarios} == {"prior"}


def test_paper_protocol_both_approaches_on_a_seeded_sample(shared_data):
    paper = shared_data / "alc-paper"
    release = Release.load(paper / "child" / "original.parquet", [paper / "child" / "weak.parquet"])
    entry = {"generate": "paper", "jobs_file": str(paper / "jobs.json"), "dataset": "child", "approach": "both", "sample": 30}
    scenarios = expand(validate_job({**BASE, "scenarios": [entry]}), release)
    attacks = {(s.params.secret, s.params.known) for s in scenarios}
    assert len(attacks) == 30 and len(scenarios) == 60
    for secret, known in attacks:
        assert {s.params.baseline for s in scenarios if (s.params.secret, s.params.known) == (secret, known)} == {"ml", "prior"}
    again = expand(validate_job({**BASE, "scenarios": [entry]}), release)
    assert [s.id for s in again] == [s.id for s in scenarios]
    other_seed = expand(validate_job({**BASE, "seed": 1, "scenarios": [entry]}), release)
    assert {(s.params.secret, s.params.known) for s in other_seed} != attacks
    everything = expand(validate_job({**BASE, "scenarios": [{**entry, "sample": None}]}), release)
    assert attacks < {(s.params.secret, s.params.known) for s in everything}
