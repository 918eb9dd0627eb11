"""A finished scenario summed up as its ``AttackResult``.

The baseline reported is never weaker than always guessing the secret's most common value in the
original table, measured on the same targets (at recall 1): when that guess does better, it is the
baseline (model ``FLOOR_MODEL``) and the ALC is measured against it. Halting decisions were the
trained baseline's.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from alc_dask.families.alc.loop.result import AttackResult
from alc_dask.measure import MatchedCoverage, alc, matched_coverage

if TYPE_CHECKING:
    from alc_dask.families.alc.loop.scenario_run import ScenarioRun

FLOOR_MODEL = "most common value (floor)"
"""The model reported when always guessing the secret's most common value beats the baseline."""


def summarize(run: ScenarioRun, attack_name: str) -> AttackResult:
    """The result of ``run``, which has halted."""
    columns = run.log.columns()
    floor = run.measure.at_full_recall(_floor_correct(run, columns["base_true"]))
    base, model, best = run.outcome.base, run.source.model_name, run.outcome.alc
    if floor.prc > base.prc:
        base, model, best = floor, FLOOR_MODEL, alc(floor.prc, run.outcome.attack.prc, abs_weight=run.measure.abs_weight)
    base_full = max(run.measure.at_full_recall(columns["base_correct"]), floor, key=lambda measure: measure.prc)
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
        matched=_matched_coverage(run, columns, floored=model == FLOOR_MODEL),
        tolerance=run.scoring.tolerance,
        pairs=run.pairs,
        abstentions=int(columns["abstained"].sum()),
        available_targets=run.available,
        recall_basis=run.recall_basis,
        seconds=time.perf_counter() - run.started,
        seed=run.seed,
        columns=columns,
    )


def _matched_coverage(run: ScenarioRun, columns: dict, floored: bool) -> MatchedCoverage:
    """The attack's predictions at its best cut against the reported baseline's on the same
    targets: those attacked when that cut was measured (the best may be an earlier checkpoint's)."""
    attack = run.outcome.attack
    if not attack.found:
        return MatchedCoverage.none()
    measured = {name: values[: attack.attempts] for name, values in columns.items()}
    predicted = measured["attack_confidence"] >= attack.confidence_cut
    if floored:
        base_correct, base_confidence = _floor_correct(run, measured["base_true"]), np.ones(attack.attempts)
    else:
        base_correct, base_confidence = measured["base_correct"], measured["base_confidence"]
    return matched_coverage(predicted, measured["attack_correct"], base_correct, base_confidence, run.measure.confidence_level)


def _floor_correct(run: ScenarioRun, truth: np.ndarray) -> np.ndarray:
    return run.scoring.correct(np.full(len(truth), run.floor), truth)
