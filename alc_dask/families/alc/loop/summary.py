"""A finished scenario summed up as its ``AttackResult``.

The baseline reported is never weaker than always guessing the secret's most common value in the
original table, measured on the same targets (at recall 1): when that guess does better, it is the
baseline (model ``FLOOR_MODEL``) and the ALC is measured against it. Halting decisions were the
trained baseline's, or the attack's on other people where that was the stronger
(``ScenarioRun.measures``): the pairs reported are then that one's, under its name.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from alc_dask.families.alc.loop.pairs import OTHERS
from alc_dask.families.alc.loop.result import AttackResult
from alc_dask.measure import MatchedCoverage, alc, matched_coverage

if TYPE_CHECKING:
    from alc_dask.families.alc.loop.scenario_run import ScenarioRun

FLOOR_MODEL = "most common value (floor)"
"""The model reported when always guessing the secret's most common value beats the baseline."""


def summarize(run: ScenarioRun, attack_name: str) -> AttackResult:
    """The result of ``run``, which has halted."""
    columns = run.log.columns()
    others = {name: columns.pop(name) for name in OTHERS if name in columns}
    floor = run.measure.at_full_recall(_floor_correct(run, columns["base_true"]))
    full_recall = [floor, run.measure.at_full_recall(columns["base_correct"])]
    if others:
        full_recall.append(run.measure.at_full_recall(others["others_correct"]))
    model = run.source.model_name
    if run.base_side == "others":
        model = run.others.model_name
        columns.update(base_code=others["others_code"], base_confidence=others["others_confidence"], base_correct=others["others_correct"])
    base, best = run.outcome.base, run.outcome.alc
    if floor.prc > base.prc:
        base, model, best = floor, FLOOR_MODEL, alc(floor.prc, run.outcome.attack.prc, abs_weight=run.measure.abs_weight)
    base_full = max(full_recall, key=lambda measure: measure.prc)
    attack_full = run.measure.at_full_recall(columns["attack_correct"])
    return AttackResult(
        secret=run.secret,
        known=run.known,
        attack_name=attack_name,
        baseline=run.mode.value,
        model=model,
        expected_base_prc=run.source.expected_prc,
        baseline_note=run.source.note,
        halt_code=run.outcome.halt_code.value,
        base=base,
        attack=run.outcome.attack,
        alc=best,
        floor_prc=floor.prc,
        attack_full_recall=attack_full,
        alc_full_recall=alc(base_full.prc, attack_full.prc, abs_weight=run.measure.abs_weight),
        matched=_matched_coverage(run, columns, others, floored=model == FLOOR_MODEL),
        tolerance=run.scoring.tolerance,
        pairs=run.pairs,
        abstentions=int(columns["abstained"].sum()),
        available_targets=run.available,
        recall_basis=run.recall_basis,
        seconds=time.perf_counter() - run.started,
        seed=run.seed,
        columns=columns,
    )


def _matched_coverage(run: ScenarioRun, columns: dict, others: dict, floored: bool) -> MatchedCoverage:
    """The attack's predictions at its best cut against the reported baseline's on the same
    targets: those attacked when that cut was measured (the best may be an earlier checkpoint's).
    Where the attack on other people competed with the model, the one more often right on those
    targets is the baseline there (the lower PI): a baseline weaker on the attack's surest targets
    than the other would credit the release with what other people's rows give away."""
    attack = run.outcome.attack
    if not attack.found:
        return MatchedCoverage.none()
    measured = {name: values[: attack.attempts] for name, values in {**columns, **others}.items()}
    predicted = measured["attack_confidence"] >= attack.confidence_cut
    if floored:
        sides = [(_floor_correct(run, measured["base_true"]), np.ones(attack.attempts))]
    else:
        sides = [(measured["base_correct"], measured["base_confidence"])]
        if others:
            sides.append((measured["others_correct"], measured["others_confidence"]))
    matched = [matched_coverage(predicted, measured["attack_correct"], correct, confidence, run.measure.confidence_level) for correct, confidence in sides]
    return min(matched, key=lambda m: (m.pi != m.pi, m.pi))


def _floor_correct(run: ScenarioRun, truth: np.ndarray) -> np.ndarray:
    return run.scoring.correct(np.full(len(truth), run.floor), truth)
