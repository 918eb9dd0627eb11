"""The ALC as the verdict judges it: an interval on its scale that looking early does not break,
a secret the baseline leaves no room in called not informative, and scenarios that attack on until
the interval settles (or the budget or the targets run out)."""

from dataclasses import replace

import numpy as np
import pandas as pd

from alc_dask import run_attack
from alc_dask.baseline import BaselineSettings
from alc_dask.data import Release
from alc_dask.families import get_family
from alc_dask.measure import HaltingRules
from alc_dask.measure.sequential import ALC_FLOOR, Cut, alc_interval, look_confidence
from alc_dask.verdict import judged

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
    """An interval once shown as [-3 505 287, 1]: a baseline right for 99.8% of people and an attack a little less."""
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


def test_a_baseline_right_for_nearly_all_it_keeps_cannot_clear_and_is_not_informative():
    """Census's household role from every other column, on a bootstrap of other people: both sides
    98.5–98.8% right at recall 17%. Telling 1.2% errors from 0.6% needs more people than the table
    holds, and the interval stayed [−1, 0.71] after every target: not informative unless flagged."""
    census = row(855, 865, 852, 865, 5000, alc=-0.11)
    census = census.copy()
    census[["base_recall", "attack_recall"]] = 0.173
    reason = ALC.not_informative(census)
    assert reason and "right for 98.8% of the 17.3% of people it is surest of" in reason and "cannot settle it" in reason
    assert judged(ALC, census, 0.5).label == "not_informative"
    leak = row(4300, 5000, 5000, 5000, 5000, alc=1.0)  # 86% right: room left, and a flag stands
    assert ALC.not_informative(leak) is None and judged(ALC, leak, 0.5).label == "flagged"
    room = row(3000, 5000, 3050, 5000, 5000, alc=0.02)  # 60%: a release no better clears
    assert ALC.not_informative(room) is None and judged(ALC, room, 0.5).label == "pass"
    sure_few = row(375, 375, 3000, 5000, 5000, alc=-1.0).copy()  # adult's occupation: the baseline sure of 7.5%, the attack 60% of everyone
    sure_few["base_recall"] = 0.075
    assert ALC.not_informative(sure_few) is None and judged(ALC, sure_few, 0.5).label == "pass", "an attack that does not come near the sure cut clears"


def twins_population(rows: int, seed: int) -> pd.DataFrame:
    """Half the people are one of 30 kinds of identical people (each kind with its own secret), the
    rest unlike anyone: a census's children share every answer."""
    rng = np.random.default_rng(seed)
    kinds = pd.DataFrame({name: rng.integers(0, 50, 30).astype(str) for name in ("a", "b", "c", "d")})
    kinds["secret"] = rng.integers(0, 6, 30).astype(str)
    alike = kinds.iloc[rng.integers(0, 30, rows // 2)]
    unlike = pd.DataFrame({name: rng.integers(0, 50, rows - rows // 2).astype(str) for name in ("a", "b", "c", "d")})
    unlike["secret"] = rng.integers(0, 6, len(unlike)).astype(str)
    return pd.concat([alike, unlike], ignore_index=True).sample(frac=1.0, random_state=seed).reset_index(drop=True)


def test_the_attack_on_other_people_is_the_baseline_where_it_beats_the_model():
    """A release of other people of a population with many identical people: a person's twin in the
    release gives their secret away as a twin among other people does. Against a weak model the ALC
    flagged such a release; the attack on other people is the baseline there, as right as the
    attack for the twins (so nothing can be shown of them) and no worse for anyone."""
    people = twins_population(4000, seed=3)
    members, others = people.iloc[:2000].reset_index(drop=True), people.iloc[2000:].reset_index(drop=True)
    known, weak = ["a", "b", "c", "d"], BaselineSettings(candidates=("majority",))

    def label(result) -> str:
        return judged(ALC, pd.Series(result.measures() | {"family": "alc", "scenario_id": "s"}), 0.5).label

    model_only = run_attack(Release.load(members, [others]), "secret", known, seed=0, baseline_settings=replace(weak, attack_on_others=False))
    both = run_attack(Release.load(members, [others]), "secret", known, seed=0, baseline_settings=weak)
    assert model_only.model == "majority" and label(model_only) == "flagged"
    assert both.model == "the attack on other people" and label(both) == "not_informative" and abs(both.alc_full_recall) < 0.05
    copied = run_attack(Release.load(members, [members]), "secret", known, seed=0, baseline_settings=weak)
    assert label(copied) == "flagged", "a copy still gives away those unlike anyone"


def test_precision_at_matched_coverage_flags_at_the_threshold_the_verdict_applies():
    """PI's flag read the family's 0.5 whatever a job's audit threshold said: at 0.99 a copy's ALC
    evaluation stayed flagged by PI though its interval straddled the threshold."""
    pi = {"pi_vulnerable": True, "pi_predicted": 2000, "pi_attack_correct": 2000, "pi_base_correct": 1200, "pi": 0.99}
    pi |= {"pi_attack_precision": 0.999, "pi_base_precision": 0.6, "pi_coverage": 1.0, "model": "random_forest"}
    sure = row(1990, 2000, 1999, 2000, 2000, alc=0.5, **pi)  # the ALC alone: not past 0.5
    verdict = judged(ALC, sure, 0.5)
    assert verdict.label == "flagged" and "precision improvement" in verdict.evidence
    assert judged(ALC, sure, 0.999).label != "flagged" or "precision improvement" not in judged(ALC, sure, 0.999).evidence
    assert ALC.pi_flag(sure, 0.999) is None
