"""What a worker runs for one scenario: the attack, then its row of scores and its predictions.

Any exception becomes a failed outcome carrying the error, so one bad scenario never stops a job.
"""

import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from traceback import format_exception

import numpy as np
import pandas as pd

from alc_dask.baseline import BaselineSettings
from alc_dask.data import Release
from alc_dask.jobs import Scenario
from alc_dask.loop import AttackResult, run_attack
from alc_dask.measure import HaltingRules, MeasureSettings, risk_label


@dataclass(frozen=True)
class ScenarioSettings:
    """What every scenario of a job shares besides the release."""

    job: str
    release: str
    halting: HaltingRules
    measure: MeasureSettings
    baseline_settings: BaselineSettings
    swap_fraction: float
    batch_size: int
    store_values: bool


@dataclass(frozen=True)
class ScenarioOutcome:
    scores: pd.DataFrame
    """One row, in the columns of ``alc_dask.results.SCORES``."""
    predictions: pd.DataFrame | None
    """One row per prediction (base and attack), None for a failed scenario."""

    @property
    def ok(self) -> bool:
        return self.scores["status"].iloc[0] == "ok"

    def line(self) -> str:
        """A one-line account of the scenario for progress output."""
        row = self.scores.iloc[0]
        if not self.ok:
            return f"{row['scenario_id']} FAILED: {row['error']}"
        return f"{row['scenario_id']} secret={row['secret']} alc={row['alc']:.3f} ({row['risk']}) halt={row['halt_code']} {row['seconds']:.1f}s"


def run_scenario(release: Release, scenario: Scenario, settings: ScenarioSettings) -> ScenarioOutcome:
    started = time.perf_counter()
    try:
        result = run_attack(
            release,
            scenario.secret,
            scenario.known,
            attack=scenario.attack,
            baseline=scenario.baseline,
            targets=scenario.targets,
            seed=scenario.seed,
            batch_size=settings.batch_size,
            attack_params=scenario.attack_params,
            halting=settings.halting,
            measure=settings.measure,
            baseline_settings=settings.baseline_settings,
            swap_fraction=settings.swap_fraction,
        )
        scores = _scores(result, scenario, settings, started)
        return ScenarioOutcome(scores, _predictions(result, release, scenario, settings.store_values))
    except Exception as error:  # noqa: BLE001 - recorded as the scenario's failure; the job goes on
        elapsed = time.perf_counter() - started
        return failed_outcome(scenario, settings, f"{type(error).__name__}: {error}", elapsed, traceback="".join(format_exception(error)))


def failed_outcome(scenario: Scenario, settings: ScenarioSettings, error: str, elapsed: float = float("nan"), traceback: str | None = None) -> ScenarioOutcome:
    """A failed scenario's row: its one-line ``error`` and, when known, the formatted ``traceback`` to debug it from the results."""
    row = {**_identity(scenario, settings), "status": "failed", "error": error, "traceback": traceback, "elapsed_seconds": elapsed}
    return ScenarioOutcome(pd.DataFrame([row]), None)


def skipped_outcome(scenario: Scenario, settings: ScenarioSettings) -> ScenarioOutcome:
    """The row of a scenario that cannot be attacked by construction: never run, never retried."""
    row = {**_identity(scenario, settings), "status": "skipped", "error": scenario.skipped, "elapsed_seconds": 0.0}
    return ScenarioOutcome(pd.DataFrame([row]), None)


def _identity(scenario: Scenario, settings: ScenarioSettings) -> dict:
    return {
        "job": settings.job,
        "release": settings.release,
        "scenario_id": scenario.id,
        "scenario_index": scenario.index,
        "origin": scenario.origin,
        "secret": scenario.secret,
        "known": scenario.known_json,
        "attack": scenario.attack,
        "attack_params": json.dumps(scenario.attack_params, sort_keys=True),
        "baseline": scenario.baseline,
        "targets": scenario.targets.model_dump_json() if scenario.targets else None,
        "seed": scenario.seed,
        "worker": _worker_name(),
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def _scores(result: AttackResult, scenario: Scenario, settings: ScenarioSettings, started: float) -> pd.DataFrame:
    row = result.to_frame().iloc[0].to_dict()
    row.update(_identity(scenario, settings))
    row.update(
        status="ok",
        error=None,
        risk=risk_label(result.alc),
        risk_full_recall=risk_label(result.alc_full_recall),
        elapsed_seconds=time.perf_counter() - started,
    )
    return pd.DataFrame([row])


def _predictions(result: AttackResult, release: Release, scenario: Scenario, store_values: bool) -> pd.DataFrame:
    frame = result.predictions
    sides = []
    for side in ("base", "attack"):
        part = pd.DataFrame(
            {
                "scenario_id": scenario.id,
                "target": frame["target"].to_numpy(np.int64),
                "side": side,
                "correct": frame[f"{side}_correct"].to_numpy(bool),
                "confidence": frame[f"{side}_confidence"].to_numpy(np.float64),
                "abstained": frame["abstained"].to_numpy(bool) if side == "attack" else False,
            }
        )
        if store_values:
            part["predicted"] = _as_text(release.decode(scenario.secret, frame[f"{side}_code"].to_numpy()))
            part["true"] = _as_text(release.decode(scenario.secret, frame[f"{side}_true"].to_numpy()))
        sides.append(part)
    return pd.concat(sides, ignore_index=True)


def _as_text(values) -> list:
    return [None if value is None else str(value) for value in values]


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().name)
    except ValueError:  # not on a Dask worker (e.g. called directly)
        return "local"
