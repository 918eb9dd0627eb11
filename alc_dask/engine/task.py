"""What a worker runs for a batch of scenarios: each one's family evaluation, then its record of
scores and its predictions as an Arrow table (built on the worker, so the client only buffers them).

Any exception becomes a failed outcome carrying the error and its traceback, so one bad scenario
never stops a job.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from traceback import format_exception

import pyarrow as pa

from alc_dask.attacks.registry import ensure_registered
from alc_dask.data import Release
from alc_dask.jobs import Scenario
from alc_dask.results.buffer import frame_table
from alc_dask.results.rows import identity_row, scores_row, unfinished_row
from alc_dask.results.schema import PREDICTIONS


@dataclass(frozen=True)
class JobContext:
    """What every scenario of a job shares besides the release."""

    job: str
    release: str
    attacks: dict[str, Callable] = field(default_factory=dict)
    """Attacks registered in the client's process with ``register_attack``, sent to every worker."""


@dataclass(frozen=True)
class ScenarioOutcome:
    scores: dict
    """Column: value, in the columns of its family's scores table (``alc_dask.results.family_schema``)."""
    predictions: pa.Table | None
    """One row per prediction (``PREDICTIONS``) for families that predict per target; None otherwise or when it failed."""

    @property
    def ok(self) -> bool:
        return self.scores["status"] == "ok"

    def line(self) -> str:
        """A one-line account of the scenario for progress output."""
        row = self.scores
        if not self.ok:
            return f"{row['scenario_id']} {row['status'].upper()}: {row['error']}"
        label = row.get("risk")  # the families that label on the ALC's bands
        return " ".join([row["scenario_id"], row["family"], *([label] if isinstance(label, str) else []), f"{row['elapsed_seconds']:.1f}s"])


def run_scenarios(release: Release, context: JobContext, scenarios: list[Scenario]) -> list[ScenarioOutcome]:
    """The outcomes of a batch, in order. (On a release kept on the workers, a scenario leaves the
    worker's thread pool while its searches run: see ``data.partitioned.compute``.)"""
    return [run_scenario(release, scenario, context) for scenario in scenarios]


def run_scenario(release: Release, scenario: Scenario, context: JobContext) -> ScenarioOutcome:
    """The scenario's outcome."""
    started = time.perf_counter()
    identity = identity_row(context.job, context.release, scenario)
    try:
        ensure_registered(context.attacks)
        evaluation = scenario.family.evaluate(release, scenario.seed)
        predictions = evaluation.predictions
        if predictions is not None:
            with_id = predictions.append_column("scenario_id", pa.array([scenario.id] * predictions.num_rows, pa.string()))
            predictions = frame_table(with_id, PREDICTIONS, f"predictions of scenario {scenario.id}")
        return ScenarioOutcome(scores_row(identity, evaluation.measures, time.perf_counter() - started), predictions)
    except Exception as error:  # noqa: BLE001 - recorded as the scenario's failure; the job goes on
        elapsed = time.perf_counter() - started
        return failed_outcome(scenario, context, f"{type(error).__name__}: {error}", elapsed, traceback="".join(format_exception(error)))


def failed_outcome(scenario: Scenario, context: JobContext, error: str, elapsed: float = float("nan"), traceback: str | None = None) -> ScenarioOutcome:
    """A failed scenario's row: its one-line ``error`` and, when known, the formatted ``traceback`` to debug it from the results."""
    return ScenarioOutcome(unfinished_row(identity_row(context.job, context.release, scenario), "failed", error, elapsed, traceback), None)


def skipped_outcome(scenario: Scenario, context: JobContext) -> ScenarioOutcome:
    """The row of a scenario that cannot be attacked by construction: never run, never retried."""
    return ScenarioOutcome(unfinished_row(identity_row(context.job, context.release, scenario), "skipped", scenario.skipped, 0.0), None)
