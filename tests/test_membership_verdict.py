"""The membership verdict over several attacks: the strongest is taken with Bonferroni's correction
for having been chosen among them, so the luckiest of many powerless attacks is not flagged, while a
copy still is."""

import numpy as np
import pandas as pd
import pytest

from alc_dask.attacks import registry
from alc_dask.attacks.base import MembershipAttack
from alc_dask.families.membership.family import Membership
from alc_dask.testing.truth import truth_releases
from alc_dask.verdict import verdict_of

POWERLESS = 40
ATTACKS = [("closest_distance", {}), ("distance_ratio", {}), ("density_ratio", {}), ("density_ratio", {"density": "mixture"})]


class Coin(MembershipAttack):
    """Scores drawn at random from ``draw``: no power at all."""

    def __init__(self, draw: int = 0):
        self.draw = draw

    def score(self, prepared, records):
        return np.random.default_rng(self.draw).random(records.n_records)


@pytest.fixture(scope="module")
def truth():
    return truth_releases(600, seed=1)


@pytest.fixture
def coin(monkeypatch):
    monkeypatch.setitem(registry._REGISTERED, "coin", Coin)


def scores_of(rows: list[dict], release: str = "r") -> pd.DataFrame:
    return pd.DataFrame([{**row, "family": "membership", "scenario_id": f"s{i}", "release": release, "status": "ok"} for i, row in enumerate(rows)])


def coins(release, n: int = POWERLESS) -> list[dict]:
    people = {"n_members": 150, "n_non_members": 150, "skew": "1:10"}
    return [Membership(attack="coin", attack_params={"draw": draw}, **people).evaluate(release, seed=0).measures for draw in range(n)]


def test_the_corrected_interval_is_the_interval_at_confidence_one_minus_alpha_over_m(truth, coin):
    release = truth.release("noisy_10")
    plain = Membership(attack="density_ratio", skew="1:10").evaluate(release, seed=0).measures
    strict = Membership(attack="density_ratio", skew="1:10", confidence_level=1 - 0.05 / 8).evaluate(release, seed=0).measures
    corrected, direct = Membership.corrected_headline_interval(plain, 8), Membership.headline_interval(strict)
    assert corrected.low == pytest.approx(direct.low) and corrected.high == pytest.approx(direct.high)
    assert corrected.low < Membership.headline_interval(plain).low
    assert Membership.corrected_headline_interval(plain, 1) == Membership.headline_interval(plain)
    assert Membership.chosen_among(pd.concat([scores_of([plain] * 3, "a"), scores_of([plain] * 2, "b")])) == [3, 3, 3, 2, 2]


def test_the_luckiest_of_many_powerless_attacks_is_flagged_alone_but_not_among_them(truth, coin):
    """A threshold just at the luckiest coin's lower bound: judged alone its interval clears it; judged
    as the worst of the coins tried, its corrected interval does not, nor does any other's."""
    rows = coins(truth.release("bootstrap"))
    lows = [Membership.headline_interval(row).low for row in rows]
    luckiest = int(np.argmax(lows))
    threshold = {"membership": lows[luckiest]}
    alone = verdict_of(scores_of([rows[luckiest]]), threshold)
    assert alone.verdict == "flagged" and alone.evaluations[0].among == 1
    together = verdict_of(scores_of(rows), threshold)
    assert together.verdict != "flagged" and {e.among for e in together.evaluations} == {POWERLESS}
    assert "one of 40 membership evaluations of the release" in together.evaluations[0].evidence


def test_a_copy_is_flagged_however_many_attacks_are_tried(truth, coin):
    release = truth.release("copy")
    rows = [Membership(attack=attack, attack_params=params, skew="1:10").evaluate(release, seed=0).measures for attack, params in ATTACKS]
    verdict = verdict_of(scores_of(rows + coins(release)))
    assert verdict.verdict == "flagged" and verdict.evaluations[0].among == len(ATTACKS) + POWERLESS
    assert verdict.evaluations[0].measures["attack"] != "coin"


@pytest.mark.parametrize("name", ["smoothed_marginals", "bootstrap"])
def test_no_attack_of_the_battery_flags_a_release_that_teaches_only_the_population(truth, name):
    release = truth.release(name)
    rows = [Membership(attack=attack, attack_params=params, skew="1:10").evaluate(release, seed=0).measures for attack, params in ATTACKS]
    verdict = verdict_of(scores_of(rows))
    assert verdict.verdict != "flagged" and all(e.among == len(ATTACKS) for e in verdict.evaluations)


def test_scores_that_separate_members_flag_the_release_whatever_the_precision_at_the_skew(truth):
    """A noisy copy whose members the closest distance finds more often than chance: at 1:100 the
    precision stays low, yet the AUC's corrected interval clears 0.6, so it cannot pass."""
    rows = [Membership(attack=attack, skew="1:100").evaluate(truth.release("noisy_20"), seed=0).measures for attack in ("closest_distance", "distance_ratio")]
    assert all(Membership.headline_interval(row).low < 0.5 for row in rows)  # the headline alone would not flag it
    verdict = verdict_of(scores_of(rows))
    assert verdict.verdict == "flagged"
    assert "tell members from other people: AUC" in verdict.evaluations[0].evidence


def test_the_separation_rule_is_corrected_for_the_choice(truth):
    row = Membership(attack="closest_distance", skew="1:100").evaluate(truth.release("noisy_20"), seed=0).measures
    assert Membership.breaches(row) is not None
    assert Membership.breaches(row, 1000) is None  # as the worst of 1 000 attacks, an AUC of 0.645 on 1 200 people is luck enough


def test_an_auc_whose_interval_straddles_the_separation_cannot_pass(truth):
    """A 5% noisy copy of child checked without a control table passed with an AUC of 0.611
    [0.597, 0.626]: the precision at the skew passed, and the AUC rule only flagged."""
    row = Membership(attack="closest_distance", skew="1:100").evaluate(truth.release("noisy_20"), seed=0).measures
    assert Membership.judge(row, Membership.threshold.value)[0].value == "flagged"
    straddling = {**row, "auc": 0.611, "auc_low": 0.597, "auc_high": 0.626}
    label, evidence = Membership.judge(straddling, Membership.threshold.value)
    assert label.value == "inconclusive" and evidence.endswith(
        "AUC 0.611 [0.597, 0.626] reaches 0.6, where scores tell members apart: these tables cannot rule it out"
    )
    below = {**row, "auc": 0.58, "auc_low": 0.566, "auc_high": 0.595}
    assert Membership.judge(below, Membership.threshold.value)[0].value == "pass"
