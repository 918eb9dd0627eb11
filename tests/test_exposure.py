"""Who is exposed, record by record: the WP29 families name the records their attacks hit (as many
as their counts say), every family says which records it exposes, and the exposure table shows the
same people exposed by several families of a copy of the original, and far fewer of a fresh sample
of the same population; its evidence never holds a value of the data."""

import json

import pandas as pd
import pytest
from distributed import Client, LocalCluster

from alc_dask import run_job
from alc_dask.apps.synthetic import make_population
from alc_dask.data import Release
from alc_dask.families import get_family
from alc_dask.families.wp29.inference import Inference
from alc_dask.families.wp29.linkability import Linkability
from alc_dask.families.wp29.predicates import EQ, GE, LE, Predicates, RowMatrix, count_matches, isolated_records
from alc_dask.families.wp29.singling_out import SinglingOut
from alc_dask.jobs import validate_job
from alc_dask.report.exposure import exposure_of, exposure_of_results
from alc_dask.results import read_predictions, read_scores
from alc_dask.testing.leak import values_in

ROWS = 1200
AUX = ["age", "sex", "region", "education", "occupation", "hours_per_week"]
HALVES = [["age", "sex", "region"], ["education", "income", "hours_per_week"]]


@pytest.fixture(scope="module")
def people():
    return make_population(ROWS, seed=3), make_population(ROWS, seed=4)


WP29 = [
    SinglingOut(mode="multivariate", n_cols=4, n_attacks=300),
    SinglingOut(mode="univariate", n_attacks=80),
    Inference(aux_cols=AUX, secret="income", n_attacks=300),
    Linkability(aux_cols=HALVES, n_attacks=300),
]


@pytest.mark.parametrize("family", WP29, ids=lambda f: f"{f.name}-{f.describe()}")
@pytest.mark.parametrize("released", ["copy", "fresh"])
def test_wp29_predictions_name_as_many_records_as_the_measures_count(people, family, released):
    original, control = people
    release = Release.load(original, [original if released == "copy" else make_population(ROWS, seed=5)], control=control)
    evaluation = family.evaluate(release, seed=1)
    measures, predictions = evaluation.measures, evaluation.predictions.to_pandas()
    attack, held_out = (predictions[predictions["side"] == side] for side in ("attack", "control"))
    assert attack["correct"].sum() == measures["n_success"] and held_out["correct"].sum() == measures["n_control_success"]  # tables of one size: unscaled
    if family.name == "singling_out":
        assert len(attack) == measures["n_success"] and attack["correct"].all()  # one per predicate that isolates a record
    else:
        assert len(attack) == measures["n_attacks"] and attack["target"].is_unique and len(held_out) == measures["n_control_attacks"]
    assert attack["target"].between(0, ROWS - 1).all() and held_out["target"].between(0, ROWS - 1).all()
    exposed = type(family).exposed(predictions, {**measures, "params": json.dumps(family.identity())})
    assert exposed["record"].tolist() == sorted(set(attack.loc[attack["correct"], "target"]))


def test_inference_on_a_copy_is_right_for_almost_every_target(people):
    """Inference on a copy guesses (almost) every target's secret right: its nearest row is itself."""
    original, control = people
    evaluation = Inference(aux_cols=AUX, secret="income", n_attacks=300).evaluate(Release.load(original, [original], control=control), seed=1)
    attack = evaluation.predictions.to_pandas().query("side == 'attack'")
    assert attack["correct"].mean() > 0.95


def test_a_record_isolated_by_a_predicate_is_named_by_its_row_in_the_table_read():
    """Rows 0 and 3 are identical (the first names them), row 1 is alone on a = 5, rows 2 and 4 share b = 9."""
    table = pd.DataFrame({"a": [1.0, 5.0, 2.0, 1.0, 3.0], "b": [7.0, 8.0, 9.0, 7.0, 9.0]})
    release = Release.load(table, [table])
    rows = RowMatrix.of(release, release.original, ("a", "b"))
    assert rows.source.tolist() == [0, 1, 2, 4]
    a, b = rows.rows[:, 0], rows.rows[:, 1]  # as the release stores them (shifted, or codes)
    predicates = Predicates.stack([[(0, EQ, a[1])], [(1, EQ, b[2])], [(0, LE, a[0])], [(0, GE, a[3]), (1, GE, b[3])], [(0, EQ, -1.0)]])
    assert isolated_records(predicates, rows).tolist() == [1, -1, 0, 4, -1]
    assert ((isolated_records(predicates, rows) >= 0) == (count_matches(predicates, rows) == 1)).all()


def test_families_without_per_record_evidence_expose_no_one():
    assert get_family("identification").exposed(pd.DataFrame(columns=["target", "side"]), {}).empty


def job(folder, release: pd.DataFrame) -> dict:
    original, control = make_population(ROWS, seed=3), make_population(ROWS, seed=4)
    for name, table in (("original", original), ("control", control), ("release", release)):
        table.to_parquet(folder / f"{name}.parquet")
    return {
        "name": "exposure",
        "release": {"original": str(folder / "original.parquet"), "anonymized": [str(folder / "release.parquet")], "control": str(folder / "control.parquet")},
        "scenarios": [
            {"family": "singling_out", "mode": "multivariate", "n_cols": 4, "n_attacks": 400},
            {"family": "singling_out", "mode": "univariate", "n_attacks": 100},
            {"family": "inference", "aux_cols": AUX, "secret": "income", "n_attacks": 400},
            {"family": "membership", "attack": "closest_distance", "n_members": 600, "n_non_members": 600},
            {"secret": "education", "known": ["age", "sex", "region", "occupation", "income", "hours_per_week"]},
        ],
        "baseline_settings": {"candidates": ["majority", "logistic_regression"], "trees": 10},
        "output": str(folder / "out"),
    }


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    folders = {}
    with (
        LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster) as client,
    ):
        for name, seed in (("copy", 3), ("fresh", 5)):
            folder = tmp_path_factory.mktemp(name)
            run_job(validate_job(job(folder, make_population(ROWS, seed=seed))), client=client, progress=False)
            folders[name] = folder / "out"
    return folders


def test_a_copy_exposes_the_same_records_to_several_families_and_a_fresh_sample_far_fewer(outputs):
    copy, fresh = (exposure_of_results(outputs[name]) for name in ("copy", "fresh"))
    assert list(copy.columns) == list(fresh.columns) == ["record", "families", "n_families", "evidence"]
    several = {name: int((table["n_families"] >= 2).sum()) for name, table in (("copy", copy), ("fresh", fresh))}
    assert several["copy"] >= 0.4 * len(copy) and several["copy"] >= 300  # the families attack random samples of 1200 people: 431 of 943
    assert several["fresh"] * 5 <= several["copy"] and len(fresh) * 5 <= len(copy)
    hits = read_predictions(outputs["fresh"]).query("side == 'attack' and correct == True")
    assert len(hits) > 100  # the attacks hit people of a fresh sample too, as often as people not in it: no exposure
    assert set(copy["families"].str.split(", ").explode()) == {"alc", "inference", "membership", "singling_out"}
    assert (copy["n_families"] == copy["families"].str.split(", ").str.len()).all()
    assert (copy["families"].str.split(", ").map(sorted) == copy["families"].str.split(", ")).all()
    assert list(zip(-copy["n_families"], copy["record"])) == sorted(zip(-copy["n_families"], copy["record"]))
    assert copy["record"].between(0, ROWS - 1).all() and copy["record"].is_unique


def test_evidence_holds_no_value_of_the_original(outputs):
    original = make_population(ROWS, seed=3)
    evidence = exposure_of_results(outputs["copy"])["evidence"].unique()
    assert len(evidence) > 5 and not [text for text in evidence if values_in(text, original)]
    income, region = f"{original['income'].iloc[0]:g}", original["region"].iloc[0]
    assert {income, region} <= set(values_in(f"income inferred; {income}, {region}", original))  # the check sees values


def test_each_familys_records_agree_with_its_measures(outputs):
    scores, predictions = read_scores(outputs["copy"]), read_predictions(outputs["copy"])
    for row in scores.to_dict("records"):
        exposed = get_family(row["family"]).exposed(predictions[predictions["scenario_id"] == row["scenario_id"]], row)
        if row["family"] == "membership":
            assert len(exposed) == round(row["best_recall"] * row["n_members"]) > 0  # the members above the best cut
        elif row["family"] == "alc":
            assert len(exposed) >= row["attack_correct"] > 0  # the right predictions kept at the cut, on the targets it was measured on and after
        else:
            assert 0 < len(exposed) <= row["n_success"]


def test_strongest_evidence_per_family_comes_from_its_highest_headline():
    """Only flagged evaluations name records: an inconclusive one (its interval from 0.05) named
    everyone its attack hit, who may be hit as often among people not in the release."""

    def inference(scenario, status, risk, low, secret):
        identity = {"scenario_id": scenario, "family": "inference", "status": status, "release": "r", "secret": secret, "n_attacks": 100}
        return identity | {"privacy_risk": risk, "privacy_risk_low": low, "privacy_risk_high": risk + 0.05}

    scores = pd.DataFrame(
        [
            inference("weak", "ok", 0.15, 0.1, "income"),
            inference("inconclusive", "ok", 0.1, 0.05, "occupation"),
            inference("strong", "ok", 0.9, 0.85, "region"),
            inference("failed", "failed", 1.0, 0.95, "sex"),
            inference("no excess", "ok", 0.02, 0.0, "married"),
        ]
    )
    predictions = pd.DataFrame(
        {
            "scenario_id": ["weak", "weak", "strong", "failed", "no excess", "no excess", "inconclusive"],
            "target": [4, 7, 7, 4, 4, 9, 11],
            "side": "attack",
            "correct": True,
        }
    )
    table = exposure_of(scores, predictions)
    assert table.to_dict("records") == [
        {"record": 4, "families": "inference", "n_families": 1, "evidence": "income inferred"},
        {"record": 7, "families": "inference", "n_families": 1, "evidence": "region inferred"},
    ]
    two_releases = exposure_of(pd.concat([scores, scores.assign(release="s", scenario_id=scores["scenario_id"] + "-s")]), predictions)
    assert list(two_releases.columns) == ["release", "record", "families", "n_families", "evidence"]
    assert two_releases["release"].tolist() == ["r", "r"]  # the other release's scenarios have no predictions here
