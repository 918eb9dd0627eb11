"""The verdict on releases whose truth is known: a copy of the original is flagged by singling out,
inference and membership; a fresh sample of the same population is flagged by nothing. And
verdict.json: written beside the results, valid against its schema."""

import json
from pathlib import Path

import jsonschema
import pandas as pd
import pytest
from distributed import Client, LocalCluster

import alc_dask
from alc_dask import run_job
from alc_dask.apps.synthetic import make_population
from alc_dask.families import get_family
from alc_dask.jobs import validate_job
from alc_dask.verdict import Verdict, schema, verdict_of

ROWS = 1200


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as cluster, Client(cluster) as running:
        yield running


def job(folder, release: pd.DataFrame, control_rows: int = ROWS, **audit) -> dict:
    original, control = make_population(ROWS, seed=3), make_population(control_rows, seed=4)
    original.to_parquet(folder / "original.parquet")
    control.to_parquet(folder / "control.parquet")
    release.to_parquet(folder / "release.parquet")
    return {
        "name": "verdict",
        "release": {"original": str(folder / "original.parquet"), "anonymized": [str(folder / "release.parquet")], "control": str(folder / "control.parquet")},
        "scenarios": [
            {"family": "singling_out", "mode": "multivariate", "n_cols": 4, "n_attacks": 400},
            {"family": "inference", "aux_cols": ["age", "sex", "region", "education", "occupation", "hours_per_week"], "secret": "income", "n_attacks": 400},
            {"family": "membership", "attack": "closest_distance", "n_members": 600, "n_non_members": 600},
        ],
        "output": str(folder / "out"),
        "audit": audit,
    }


def test_a_copy_of_the_original_is_flagged_by_each_family_and_a_fresh_sample_by_none(tmp_path, client):
    (tmp_path / "copy").mkdir()
    (tmp_path / "fresh").mkdir()
    copy = run_job(validate_job(job(tmp_path / "copy", make_population(ROWS, seed=3))), client=client, progress=False)
    fresh = run_job(validate_job(job(tmp_path / "fresh", make_population(ROWS, seed=5))), client=client, progress=False)

    leaked = verdict_of(copy)
    assert leaked.verdict == "flagged"
    assert {e.family: e.label for e in leaked.evaluations} == {"singling_out": "flagged", "inference": "flagged", "membership": "flagged"}
    assert all(e.label == "flagged" for e in leaked.evaluations[:3])  # worst first

    safe = verdict_of(fresh)
    assert safe.verdict != "flagged" and not [e for e in safe.evaluations if e.label == "flagged"]

    written = json.loads((tmp_path / "copy" / "out" / "verdict.json").read_text())
    read_back = Verdict.model_validate(written)  # the run wrote it beside its results, valid against its model
    jsonschema.validate(written, schema())  # and against the published JSON Schema
    assert read_back.verdict == "flagged" and [(e.id, e.label, e.headline) for e in read_back.evaluations] == [
        (e.id, e.label, e.headline) for e in leaked.evaluations
    ]
    evaluation = written["evaluations"][0]
    assert {"family", "id", "params", "label", "headline", "measures"} <= set(evaluation)
    assert {"name", "value", "low", "high", "threshold"} <= set(evaluation["headline"])
    assert "single out" in next(e["evidence"] for e in written["evaluations"] if e["family"] == "singling_out")


def test_a_control_a_quarter_of_the_originals_size_never_flags_a_fresh_sample_and_still_flags_a_copy(tmp_path, client):
    """Anonymeter's curve read the control's singling-out rate at the original's size far too low
    (0.04 for 0.23): a fresh sample of the population was flagged. The risk's interval now spans every
    rate the small control allows."""

    def singling_out(name, release):
        (tmp_path / name).mkdir()
        spec = validate_job(job(tmp_path / name, release, control_rows=ROWS // 4))
        return next(e for e in verdict_of(run_job(spec, client=client, progress=False)).evaluations if e.family == "singling_out")

    fresh, copy = singling_out("fresh", make_population(ROWS, seed=5)), singling_out("copy", make_population(ROWS, seed=3))
    assert fresh.label != "flagged" and fresh.headline.low == 0.0
    assert copy.label == "flagged" and copy.headline.low > 0.5
    assert fresh.measures["control_success_low"] < fresh.measures["n_control_success"] <= fresh.measures["control_success_high"]
    assert "a control table of another size than the original allows" in fresh.evidence


def test_the_jobs_threshold_replaces_the_familys_and_is_recorded(tmp_path, client):
    spec = validate_job(job(tmp_path, make_population(ROWS, seed=5), thresholds={"singling_out": 0.999}))
    verdict = verdict_of(run_job(spec, client=client, progress=False), spec.audit.thresholds)
    singling_out = next(e for e in verdict.evaluations if e.family == "singling_out")
    assert singling_out.headline.threshold == 0.999 and singling_out.headline.threshold_source == "the job's audit.thresholds"
    assert verdict.thresholds["singling_out"] == 0.999 and verdict.thresholds["inference"] == get_family("inference").threshold.value


def test_unknown_families_in_thresholds_are_refused(tmp_path):
    with pytest.raises(ValueError, match="thresholds: unknown family 'singling_outt'"):
        validate_job(job(tmp_path, make_population(50, seed=5), thresholds={"singling_outt": 0.1}))


def stored(family: str, **measures) -> pd.DataFrame:
    return pd.DataFrame([{"family": family, "status": "ok", "scenario_id": "s-1", "release": "r", "params": "{}", **measures}])


def test_a_point_past_the_threshold_whose_interval_straddles_it_is_inconclusive_with_the_attacks_to_settle():
    wp29 = dict(attack_rate=0.2, control_rate=0.05, n_attacks=100)
    straddles = verdict_of(stored("singling_out", privacy_risk=0.12, privacy_risk_low=0.05, privacy_risk_high=0.19, **wp29))
    (evaluation,) = straddles.evaluations
    assert straddles.verdict == "inconclusive" and evaluation.label == "inconclusive"
    assert evaluation.settle > 100
    assert verdict_of(stored("singling_out", privacy_risk=0.12, privacy_risk_low=0.09, privacy_risk_high=0.15, **wp29)).verdict == "flagged"
    assert verdict_of(stored("singling_out", privacy_risk=0.03, privacy_risk_low=0.0, privacy_risk_high=0.0899, **wp29)).verdict == "pass"


def test_failed_evaluations_make_a_passing_verdict_inconclusive():
    wp29 = dict(attack_rate=0.0, control_rate=0.0, n_attacks=100, privacy_risk=0.0, privacy_risk_low=0.0, privacy_risk_high=0.01)
    scores = pd.concat([stored("singling_out", **wp29), stored("singling_out").assign(status="failed", scenario_id="s-2")], ignore_index=True)
    verdict = verdict_of(scores)
    assert verdict.verdict == "inconclusive" and verdict.failed == 1


def test_the_schema_names_the_contract_and_the_published_file_is_the_generated_one():
    properties = schema()["properties"]
    assert {"schema_version", "verdict", "evaluations", "thresholds"} <= set(properties)
    published = Path(alc_dask.__file__).parent / "verdict.schema.json"
    assert json.loads(published.read_text()) == schema(), "regenerate it: make schema"


def test_a_pass_is_read_from_the_one_sided_bound_and_a_flag_from_the_two_sided_one():
    """Census's bootstrap of other people: 'weeks worked in year' right for 73.9% of members and 73.2%
    of other people, 5 000 each. Its 95% interval reaches 0.0897 with these counts, straddling 0.09
    a little more on the release's own (0.029 [0, 0.092]): the pass is an intersection of claims,
    read from the one-sided 95% bound (the 90% interval's upper end, 0.079 here), while a flag keeps
    the two-sided lower end."""
    counts = dict(n_attacks=5000, n_success=3695, n_baseline_attacks=5000, n_baseline_success=0, n_control_attacks=5000, n_control_success=3660)
    wp29 = dict(secret="weeks worked in year", attack_rate=0.739, control_rate=0.732, confidence_level=0.95, **counts)
    verdict = verdict_of(stored("inference", privacy_risk=0.029, privacy_risk_low=0.0, privacy_risk_high=0.092, **wp29))
    (evaluation,) = verdict.evaluations
    assert verdict.verdict == "pass" and evaluation.headline.high > 0.09 > evaluation.headline.pass_bound
    assert evaluation.headline.pass_bound == pytest.approx(0.0795, abs=0.001)
    flagged = dict(wp29, n_success=4500)
    assert verdict_of(stored("inference", privacy_risk=0.6, privacy_risk_low=0.55, privacy_risk_high=0.65, **flagged)).verdict == "flagged"
    beyond = dict(wp29, n_success=3760)  # the one-sided bound past 0.09 too: still inconclusive
    assert verdict_of(stored("inference", privacy_risk=0.05, privacy_risk_low=0.0, privacy_risk_high=0.12, **beyond)).verdict == "inconclusive"
