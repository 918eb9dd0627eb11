"""The ALC as the verdict judges it: an interval on its scale that looking early does not break,
a secret the baseline leaves no room in called not informative, and scenarios that attack on until
the interval settles (or the budget or the targets run out)."""

import numpy as np
import pandas as pd

from alc_dask import run_attack
from alc_dask.baseline import BaselineSettings
from alc_dask.data import Release
from alc_dask.families import get_family
from alc_dask.measure import HaltingRules
from alc_dask.measure.sequential import ALC_FLOOR, Cut, alc_interval, look_confidence
from alc_dask.report.verdict import judged

ALC = get_family("alc")
FAST = BaselineSettings(candidates=("majority", "random_forest"), trees=10, selection_trees=5)


def row(base_correct, base_n, attack_correct, attack_n, pairs, available=None, alc=0.0, **extra):
    """A stored ALC row with both sides at recall 1."""
    fields = {"secret": "condition", "alc": alc, "pairs": pairs, "available_targets": available or pairs, "halt_code": "exhausted", "baseline": "ml"}
    for side, correct, n in (("base", base_correct, base_n), ("attack", attack_correct, attack_n)):
        fields |= {
            f"{side}_n": n,
            f"{side}_correct": correct,
            f"{side}_recall": 1.0,
            f"{side}_measured_precision": correct / n,
            f"{side}_precision": correct / n,
        }
    return pd.Series(fields | extra | {"family": "alc", "scenario_id": "s", "attack_recall": 1.0})


def test_the_interval_stays_on_the_alcs_scale():
    """The issue's [-3 505 287, 1]: a baseline right for 99.8% of people and an attack a little less."""
    head = ALC.headline_interval(row(1497, 1500, 1490, 1500, 1500, alc=-3.4))
    assert head.low == head.value == ALC_FLOOR and head.high <= 1.0


def test_looking_more_often_widens_the_interval():
    early = alc_interval(Cut(100, 60, 1.0), Cut(100, 90, 1.0), 100)
    late = alc_interval(Cut(100, 60, 1.0), Cut(100, 90, 1.0), 3200)  # the same counts, read at the 7th look
    assert late[0] < early[0] and late[1] > early[1]
    assert look_confidence(0.95, 50) < look_confidence(0.95, 100) < look_confidence(0.95, 3200) < 1


def test_a_baseline_right_for_everyone_is_not_informative():
    everyone = row(5000, 5000, 5000, 5000, 5000)
    reason = ALC.not_informative(everyone)
    assert reason and "even an attack right for all 5,000 people" in reason
    verdict = judged(ALC, everyone, 0.5)
    assert verdict.label == "not_informative" and verdict.evidence == reason


def test_a_dominant_secret_with_room_left_is_informative():
    """97% of people share the secret, 150 targets attacked of 30 000: the attack may still show a loss."""
    assert ALC.not_informative(row(146, 150, 150, 150, 150, available=30_000)) is None
    assert judged(ALC, row(146, 150, 150, 150, 150, available=30_000), 0.5).label == "inconclusive"


def test_an_inconclusive_alc_says_what_it_could_have_flagged():
    verdict = judged(ALC, row(60, 100, 75, 100, 100, alc=0.375), 0.5)
    assert verdict.label == "inconclusive"
    assert "with the 100 targets attacked before the targets ran out, an ALC above 0." in verdict.evidence


def dominant_secret(rows: int = 3000, seed: int = 0) -> pd.DataFrame:
    """A table whose secret 97% of people share, given away by nothing but a person's own row."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({name: rng.integers(0, 12, rows).astype(str) for name in ("a", "b", "c", "d")})
    frame["secret"] = np.where(rng.random(rows) < 0.97, "common", "rare")
    return frame


def test_a_copy_with_a_dominant_secret_attacks_until_the_alc_settles():
    """The reference's rules stop after 150 pairs with base and attack both near perfect (the label
    then said safe); waiting for the interval flags the copy."""
    members = dominant_secret()
    release = Release.load(members, [members.sample(frac=1.0, random_state=1)])
    known = ["a", "b", "c", "d"]
    reference = run_attack(release, "secret", known, seed=0, halting=HaltingRules(settle_at=None), baseline_settings=FAST)
    settled = run_attack(release, "secret", known, seed=0, baseline_settings=FAST)
    assert reference.pairs <= 200
    assert settled.pairs > reference.pairs
    assert judged(ALC, pd.Series(settled.measures() | {"family": "alc", "scenario_id": "s"}), 0.5).label == "flagged"


def test_the_budget_ends_a_scenario_with_its_own_code():
    """Rules that never halt on their own: the budget ends the scenario, said by its code."""
    members = dominant_secret(rows=2000)
    release = Release.load(members, [members])
    never = {"loose_high_alc": 1.0, "loose_low_alc": -1e9, "tight_low_alc": -1e9, "tight_high_alc": 1.0, "diminishing_alc": -1e9}
    rules = HaltingRules(max_pairs=300, expected_loose_closeness=0.0, expected_tight_closeness=0.0, **never)
    result = run_attack(release, "secret", ["a", "b"], seed=0, halting=rules, baseline_settings=FAST)
    assert result.halt_code == "budget" and result.pairs == 300 and result.available_targets == 300
