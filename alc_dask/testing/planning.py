"""Planning a family's job, checked: every entry plans to this family's evaluations, whose ids and
seeds do not move with the loading, the order of the entries or where they run; and each evaluation,
run in this process, writes only measures its family declares, of their declared types."""

from __future__ import annotations

import pickle
from pathlib import Path

import pyarrow as pa
import yaml

from alc_dask.engine import prepare_release
from alc_dask.errors import JobSpecError
from alc_dask.families import Evaluation, EvaluationFamily
from alc_dask.jobs import Scenario, expand, load_job, scenario_seed
from alc_dask.results import PREDICTIONS
from alc_dask.testing.contract import ContractError, expect


def planned(cls: type[EvaluationFamily], job: Path) -> tuple[list[Scenario], object]:
    """The job's scenarios and release, once the plan is found stable."""
    name = cls.name
    try:
        spec = load_job(job)
        release = prepare_release(spec)
        scenarios = expand(spec, release, str(job))
    except JobSpecError as error:
        raise ContractError(name, "check_examples", f"the entries do not plan on the demo release: {error}") from None
    again = expand(load_job(job), release, str(job))
    expect(_plan(scenarios) == _plan(again), name, "plan", f"planning the job twice gave other scenarios: {_plan(scenarios)} then {_plan(again)}")
    others = sorted({s.family.name for s in scenarios} - {name})
    expect(not others, name, "plan", f"the entries planned evaluations of other families: {others}")
    expect(any(not s.skipped for s in scenarios), name, "plan", f"every evaluation is skipped: {[s.skipped for s in scenarios]}")
    moved = [s.id for s in scenarios if s.seed != scenario_seed(spec.seed, s.id)]
    expect(not moved, name, "plan", f"seeds not drawn from the job seed and the id alone: {moved}")
    reordered = expand(load_job(_reversed(job)), release, str(job))
    expect(
        {s.id: s.seed for s in reordered} == {s.id: s.seed for s in scenarios},
        name,
        "plan",
        "the entries in the reverse order gave other ids or seeds: an id must hash what defines the evaluation, not where its entry is",
    )
    problem = pickled_by_value(scenarios)
    expect(
        problem is None,
        name,
        "plan",
        f"its evaluations pickle only by value ({problem}): every class they hold must be importable by its name, or each task carries its definition",
    )
    return scenarios, release


def pickled_by_value(scenarios: list[Scenario]) -> str | None:
    """Why the scenarios cannot be pickled by reference (None: they can). Tasks carry them to the
    workers; a class pickle cannot find by its name is sent with its whole definition in every task
    (a settings model of the ALC family was: six times the bytes, 36 times the time to unpickle)."""
    try:
        pickle.dumps(scenarios)
    except (pickle.PicklingError, AttributeError, TypeError) as error:
        return str(error)
    return None


def _plan(scenarios: list[Scenario]) -> list[tuple]:
    return [(s.id, s.seed, s.origin, s.skipped) for s in scenarios]


def _reversed(job: Path) -> Path:
    spec = yaml.safe_load(job.read_text())
    path = job.with_name(f"{job.stem}-reversed.yaml")
    path.write_text(yaml.safe_dump({**spec, "scenarios": spec["scenarios"][::-1]}, sort_keys=False))
    return path


def evaluated_here(cls: type[EvaluationFamily], scenarios: list[Scenario], release) -> dict[str, dict]:
    """Each evaluation run in this process, its measures (labels included) by scenario id, checked
    against the family's fields and the predictions' columns."""
    name, measures = cls.name, {}
    for scenario in scenarios:
        if scenario.skipped:
            continue
        evaluation = scenario.family.evaluate(release, scenario.seed)
        expect(isinstance(evaluation, Evaluation), name, "evaluate", f"returned {type(evaluation).__name__}, not alc_dask.families.Evaluation")
        row = {**evaluation.measures, **scenario.family.labels()}
        check_measures(cls, scenario.id, row)
        if evaluation.predictions is not None:
            check_predictions(name, scenario.id, evaluation.predictions)
        measures[scenario.id] = row
    return measures


def check_measures(cls: type[EvaluationFamily], scenario: str, row: dict) -> None:
    name, fields = cls.name, {f.name: f for f in cls.fields}
    unknown = sorted(set(row) - set(fields))
    expect(not unknown, name, "measures", f"scenario {scenario} wrote {unknown}, which are not among the family's fields")
    for key, value in row.items():
        try:
            pa.array([value], fields[key].type, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as error:
            raise ContractError(name, "measures", f"scenario {scenario}: {key} = {value!r} is not {fields[key].type} as declared ({error})") from None
    expect(cls.headline in row, name, "headline", f"scenario {scenario} wrote no {cls.headline!r}")


def check_predictions(name: str, scenario: str, predictions) -> None:
    expect(
        isinstance(predictions, pa.Table), name, "predictions", f"scenario {scenario}: predictions must be a pyarrow Table; got {type(predictions).__name__}"
    )
    columns = {f.name: f for f in PREDICTIONS}
    unknown = sorted(set(predictions.column_names) - set(columns) | ({"scenario_id"} & set(predictions.column_names)))
    expect(not unknown, name, "predictions", f"scenario {scenario}: columns {unknown} are not prediction columns (the engine adds scenario_id)")
    for column in predictions.column_names:
        try:
            predictions[column].cast(columns[column].type)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as error:
            raise ContractError(name, "predictions", f"scenario {scenario}: column {column} is not {columns[column].type} ({error})") from None
