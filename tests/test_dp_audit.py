"""A differentially private generator's promise read against the membership attacks, on releases of
known ε: members included by randomized response (ε exactly), a copy (no ε at all), and a fresh
sample of the population (nothing to prove). Through real jobs on a local cluster, with the
declaration in the job (``release.generator``), job.json, the verdict and the report."""

import json
import math

import numpy as np
import pandas as pd
import pytest
import yaml
from distributed import Client, LocalCluster

from alc_dask import run_job
from alc_dask.apps.synthetic import make_population
from alc_dask.engine.runner import manifest
from alc_dask.families.membership.dp import at_least
from alc_dask.families.membership.section import DP_AUDIT
from alc_dask.jobs import JobSpecError, load_job, validate_job
from alc_dask.report import as_html, summarize
from alc_dask.verdict import verdict_of

ROWS = 1200
GENERATOR = {"name": "toy-dp", "version": "0.1", "epsilon": 0.5, "delta": 1e-5}


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as cluster, Client(cluster) as running:
        yield running


def people(rows: int, seed: int) -> pd.DataFrame:
    """Distinct people of the synthetic population: a released row is someone's own row, never a namesake's."""
    return make_population(3 * rows, seed=seed).drop_duplicates().head(2 * rows).reset_index(drop=True)


def job(folder, members: pd.DataFrame, others: pd.DataFrame, release: pd.DataFrame, generator: dict | None, attacks=("closest_distance",)) -> dict:
    folder.mkdir(exist_ok=True)
    for name, frame in (("original", members), ("control", others), ("release", release)):
        frame.to_parquet(folder / f"{name}.parquet")
    files = {name: str(folder / f"{name}.parquet") for name in ("original", "control")}
    return {
        "name": "dp",
        "release": {**files, "anonymized": [str(folder / "release.parquet")], **({"generator": generator} if generator else {})},
        "scenarios": [{"family": "membership", "attack": attack, "n_members": len(members), "n_non_members": len(others)} for attack in attacks],
        "output": str(folder / "out"),
    }


def randomized_inclusion(members: pd.DataFrame, others: pd.DataFrame, epsilon: float, seed: int) -> pd.DataFrame:
    """Each member released with chance e^ε / (1 + e^ε), each non-member with the rest: randomized
    response on every person's membership, ε-DP for it exactly."""
    rng = np.random.default_rng(seed)
    kept = math.exp(epsilon) / (1 + math.exp(epsilon))
    released = pd.concat([members[rng.random(len(members)) < kept], others[rng.random(len(others)) >= kept]])
    return released.sample(frac=1, random_state=seed).reset_index(drop=True)


def membership(scores: pd.DataFrame) -> dict[str, pd.Series]:
    return {row["attack"]: row for _, row in scores[scores["family"] == "membership"].iterrows()}


def test_a_copy_breaks_a_small_declared_epsilon_and_is_flagged_and_a_fresh_sample_is_not(tmp_path, client):
    population = people(ROWS, seed=3)
    members, others = population.iloc[:ROWS], population.iloc[ROWS:]
    copy = run_job(validate_job(job(tmp_path / "copy", members, others, members, GENERATOR)), client=client, progress=False)
    fresh_release = people(ROWS, seed=5).iloc[:ROWS]
    fresh = run_job(validate_job(job(tmp_path / "fresh", members, others, fresh_release, GENERATOR)), client=client, progress=False)

    leaked = membership(copy)["closest_distance"]
    assert leaked["epsilon_lower_bound"] > 4 and leaked["epsilon_declared"] == 0.5 and leaked["delta_declared"] == 1e-5
    assert json.loads(leaked["generator"]) == GENERATOR
    (evaluation,) = verdict_of(copy).evaluations
    assert evaluation.label == "flagged"
    assert evaluation.evidence == f"the attack proves ε ≥ {at_least(leaked['epsilon_lower_bound'], 0.5)} while the generator declares ε = 0.5 (δ = 1e-05)"

    unrelated = membership(fresh)["closest_distance"]
    assert unrelated["epsilon_lower_bound"] < 0.5
    assert verdict_of(fresh).evaluations[0].label != "flagged"

    summary = summarize(copy)
    table = summary.section("Membership").tables[DP_AUDIT]
    assert table.to_dict("records") == [
        {
            "evaluation": "closest_distance",
            "generator": "toy-dp 0.1, ε = 0.5, δ = 1e-05",
            "ε declared": 0.5,
            "δ declared": 1e-5,
            "ε lower bound": leaked["epsilon_lower_bound"],
            "promise": "broken",
        }
    ]
    report = as_html(summary)
    assert "Made by (as declared): <b>toy-dp 0.1, ε = 0.5, δ = 1e-05</b>" in report
    assert f"closest_distance: {evaluation.evidence}; flagged." in report
    assert "Made by" not in as_html(summarize(run_job(validate_job(job(tmp_path / "plain", members, others, members, None)), client=client, progress=False)))
    recorded = json.loads((tmp_path / "copy" / "out" / "job.json").read_text())
    assert recorded["settings"]["release"]["generator"] == GENERATOR


def test_a_copy_breaks_the_promise_even_where_its_alc_alone_would_not_flag_it(tmp_path, client):
    """With few members the copy's membership ALC at 1:1000 stays below the threshold, yet the attack
    proves an ε no generator declaring 0.5 may show: the promise decides."""
    population = people(150, seed=8)
    members, others = population.iloc[:150], population.iloc[150:]
    spec = job(tmp_path, members, others, members, {"name": "toy-dp", "epsilon": 0.5})
    spec["scenarios"][0]["skew"] = "1:1000"
    scores = run_job(validate_job(spec), client=client, progress=False)
    row = membership(scores)["closest_distance"]
    (evaluation,) = verdict_of(scores).evaluations
    assert evaluation.headline.low < 0.5  # the ALC's interval reaches below its threshold: not flagged on its own
    assert evaluation.label == "flagged" and evaluation.evidence.startswith("the attack proves ε ≥ ") and "(δ" not in evaluation.evidence
    assert row["epsilon_lower_bound"] > 0.5


def test_randomized_inclusion_of_known_epsilon_the_bound_stays_below_it_and_grows_with_the_members(tmp_path, client):
    epsilon, bounds = 1.0, {}
    population = people(4000, seed=11)
    for n in (500, 4000):
        members, others = population.iloc[:n], population.iloc[4000 : 4000 + n]
        release = randomized_inclusion(members, others, epsilon, seed=n)
        spec = job(
            tmp_path / str(n), members, others, release, {"name": "randomized inclusion", "epsilon": epsilon}, attacks=("closest_distance", "distance_ratio")
        )
        scores = run_job(validate_job(spec), client=client, progress=False)
        bounds[n] = {attack: row["epsilon_lower_bound"] for attack, row in membership(scores).items()}
        assert not [e for e in verdict_of(scores).evaluations if e.evidence.startswith("the attack proves")]  # the promise is kept
    for attack in ("closest_distance", "distance_ratio"):
        assert 0 < bounds[500][attack] < bounds[4000][attack] < epsilon
    assert bounds[4000]["closest_distance"] > 0.7


@pytest.mark.parametrize(
    ("generator", "message"),
    [
        ({"name": "mst", "epsilon": 1, "budget": 2}, "release.generator.budget"),
        ({"name": "mst", "delta": 1e-5}, "delta (1e-05) is declared without epsilon"),
        ({"name": "mst", "epsilon": 0}, "release.generator.epsilon"),
        ({"name": "mst", "epsilon": 1, "delta": 1}, "release.generator.delta"),
        ({"version": "1"}, "release.generator.name"),
    ],
)
def test_a_bad_generator_declaration_is_refused_naming_the_job_file_and_field(tmp_path, generator, message):
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump({"name": "t", "release": {"original": "o.parquet", "anonymized": ["a.parquet"], "generator": generator}, "scenarios": [{}]}))
    with pytest.raises(JobSpecError) as error:
        load_job(path)
    assert str(path) in str(error.value) and message in str(error.value)


def stored(**measures) -> pd.DataFrame:
    """A membership row whose ALC at 1:100 passes: the best precision's interval lies near the all-member guess."""
    alc = {"skew": "1:100", "baseline_precision": 0.0099, "best_precision": 0.0101, "best_precision_low": 0.0099, "best_precision_high": 0.0103}
    row = {"best_recall": 1.0, "membership_alc": 0.001, "n_members": 1000, "n_non_members": 1000, **alc, **measures}
    return pd.DataFrame([{"family": "membership", "status": "ok", "scenario_id": "m-1", "release": "r", "params": "{}", **row}])


def test_a_broken_promise_flags_an_evaluation_whose_alc_passes_and_a_kept_or_absent_one_does_not():
    broken = verdict_of(stored(epsilon_lower_bound=3.26, epsilon_declared=1.0, delta_declared=float("nan")))
    assert broken.verdict == "flagged" and broken.evaluations[0].evidence == "the attack proves ε ≥ 3.2 while the generator declares ε = 1"
    assert broken.evaluations[0].headline.high < 0.5  # the ALC alone passes
    assert verdict_of(stored(epsilon_lower_bound=0.8, epsilon_declared=1.0)).verdict == "pass"
    assert verdict_of(stored(epsilon_lower_bound=3.26, epsilon_declared=float("nan"))).verdict == "pass"
    assert verdict_of(stored()).verdict == "pass"  # results written before the audit existed


def test_an_undeclared_generator_leaves_the_jobs_fingerprint_as_it_was(tmp_path):
    """Results measured before ``release.generator`` existed still resume; declaring one is a change of settings."""
    make_population(50, seed=1).to_parquet(tmp_path / "o.parquet")
    files = {"original": str(tmp_path / "o.parquet"), "anonymized": [str(tmp_path / "o.parquet")]}
    spec = {"name": "t", "release": files, "scenarios": [{"family": "membership"}]}
    plain = manifest(validate_job(spec))
    assert "generator" not in plain["settings"]["release"]
    declared = manifest(validate_job({**spec, "release": {**spec["release"], "generator": {"name": "mst", "epsilon": 1}}}))
    assert declared["settings"]["release"]["generator"] == {"name": "mst", "version": None, "epsilon": 1.0, "delta": None}


def test_at_least_rounds_down_only_as_far_as_keeps_the_bound_above_the_promise():
    assert at_least(3.249, 1.0) == "3.2"
    assert at_least(4.0, 1.0) == "4"
    assert at_least(1.0042, 1.0) == "1.004"
