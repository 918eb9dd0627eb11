"""Anonymeter's three evaluators without a control table (``reference: original``): the members
compared with the original's other people. Known truth: a release made from the members must be
flagged, a release of other people of the same population must not."""

import json

import numpy as np
import pandas as pd
import pytest

from alc_dask.anonymize.swap import swap_frame
from alc_dask.data import Release, ScenarioError
from alc_dask.families.wp29.common import OthersOfTheOriginal, without_own_rows
from alc_dask.families.wp29.inference import Inference
from alc_dask.families.wp29.linkability import Linkability
from alc_dask.families.wp29.singling_out import SinglingOut
from alc_dask.measure.verdict import REIDENTIFICATION
from alc_dask.testing.truth import truth_releases

THRESHOLD = REIDENTIFICATION.value
AUX = ["age", "sex", "region", "occupation", "income", "hours_per_week", "married", "condition"]
HALVES = [["age", "sex", "region", "education"], ["occupation", "income", "hours_per_week", "married", "condition"]]


@pytest.fixture(scope="module")
def truth():
    truth = truth_releases(rows=2000, seed=3)
    truth.releases["swap_20"] = swap_frame(truth.members, 0.2, 3)
    return truth


def _measured(family, truth, release: str) -> dict:
    return family.evaluate(Release.load(truth.members, [truth.releases[release]]), seed=0).measures


@pytest.mark.parametrize("release", ["copy", "noisy_5", "swap_20"])
def test_inference_flags_a_release_of_the_members_without_a_control_table(truth, release):
    """Before, inference needed a control table: a 20% swap checked without one was never flagged."""
    row = _measured(Inference(aux_cols=AUX, secret="education", n_attacks=2000, reference="original"), truth, release)
    assert row["privacy_risk_low"] > THRESHOLD, row


def test_inference_of_a_release_of_other_people_is_their_success_among_the_original(truth):
    row = _measured(Inference(aux_cols=AUX, secret="education", n_attacks=2000, reference="original"), truth, "bootstrap")
    assert row["privacy_risk_high"] < THRESHOLD
    assert abs(row["attack_rate"] - row["control_rate"]) < 0.05  # two samples of other people, as large: alike up to chance
    assert row["n_control_attacks"] == row["n_attacks"] == 2000


def test_the_evidence_says_whom_the_members_were_set_against(truth):
    row = _measured(Inference(aux_cols=AUX, secret="education", n_attacks=500, reference="original"), truth, "copy")
    assert "from the original's other people, for the same people" in Inference.evidence({**row, "params": json.dumps({"reference": "original"})})
    assert "for people not in it" in Inference.evidence({**row, "params": json.dumps({"reference": "control"})})


def test_linkability_flags_a_copy_and_not_other_people_without_a_control_table(truth):
    linkability = Linkability(aux_cols=HALVES, n_neighbors=10, n_attacks=2000, reference="original")
    assert _measured(linkability, truth, "copy")["privacy_risk_low"] > THRESHOLD
    assert _measured(linkability, truth, "bootstrap")["privacy_risk_high"] < THRESHOLD


def test_singling_out_flags_republished_rare_values_without_a_control_table(truth):
    """The members' columns shuffled apart keep every rare value of theirs: a univariate predicate
    made from one singles its member out; predicates from other people's rows rarely do."""
    univariate = SinglingOut(mode="univariate", n_attacks=500, reference="original")
    assert _measured(univariate, truth, "marginals")["privacy_risk_low"] > THRESHOLD
    bootstrap = _measured(univariate, truth, "bootstrap")
    assert bootstrap["privacy_risk_high"] < 0.15 and bootstrap["privacy_risk_low"] == 0.0
    hits = univariate.evaluate(Release.load(truth.members, [truth.releases["marginals"]]), seed=0).predictions.to_pandas()
    assert set(hits["side"]) == {"attack", "others"} and hits["target"].between(0, len(truth.members) - 1).all()


def test_other_people_of_the_original_meet_as_many_rows_as_the_release_holds():
    table = Release.load(pd.DataFrame({"a": np.arange(100) % 7}), [pd.DataFrame({"a": np.arange(40) % 7})])
    rng = np.random.default_rng(0)
    smaller = OthersOfTheOriginal.of(table.original, table.anonymized[0], rng)
    assert (smaller.released.n_rows, smaller.others.n_rows) == (40, 41)
    assert np.unique(smaller.rows).size == 41 and smaller.rows.max() < 100
    larger = Release.load(pd.DataFrame({"a": np.arange(40) % 7}), [pd.DataFrame({"a": np.arange(100) % 7})])
    cut = OthersOfTheOriginal.of(larger.original, larger.anonymized[0], rng)
    assert (cut.released.n_rows, cut.others.n_rows) == (39, 40)


def test_a_person_is_never_their_own_other():
    found = np.array([[4, 7, 9], [7, 4, 9], [1, 2, 3]])
    own = np.array([4, 4, 5])
    assert without_own_rows(found, own).tolist() == [[7, 9], [7, 9], [1, 2]]  # own row dropped, else the farthest


def test_reference_original_refuses_what_it_cannot_compare():
    with pytest.raises(ValueError, match="reference: original compares nearest rows; attack 'ml_on_release' needs a control table"):
        Inference(aux_cols=["a"], secret="b", attack="ml_on_release", reference="original")
    lone = Release.load(pd.DataFrame({"a": ["x"], "b": ["y"]}), [pd.DataFrame({"a": ["x"], "b": ["y"]})])
    with pytest.raises(ScenarioError, match="two rows of the original or more"):
        Inference(aux_cols=["a"], secret="b", reference="original").evaluate(lone, seed=0)


def test_a_control_table_is_still_asked_for_by_default():
    members = truth_releases(rows=100).members
    with pytest.raises(ScenarioError, match="no control table .* or reference: original"):
        Inference(aux_cols=AUX, secret="education").evaluate(Release.load(members, [members]), seed=0)


def test_the_default_reference_keeps_the_ids_of_earlier_evaluations():
    assert "reference" not in Inference(aux_cols=AUX, secret="education").identity()
    assert Inference(aux_cols=AUX, secret="education", reference="original").identity()["reference"] == "original"
