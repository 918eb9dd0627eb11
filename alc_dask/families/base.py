"""The contract every evaluation family follows, in the spirit of scikit-learn estimators.

A family is built from its parameters (validated strictly, cheap, no data: it is pickled to the
workers), checked against a release before any cluster starts, then evaluated on a worker. The
evaluation returns one row of measures whose raw counts are kept, so a risk or an interval can be
recomputed later at another confidence level without rerunning anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from alc_dask.data import Release
    from alc_dask.families.presentation import Section


def column(name: str, type: pa.DataType, description: str) -> pa.Field:
    """A field of a results table with its one-line description (field metadata ``description``),
    from which the README's column lists are generated (``python -m alc_dask.results.columns``)."""
    import pyarrow as pa

    return pa.field(name, type, metadata={"description": description})


class FamilyParams(BaseModel):
    """Base of every family's parameters: unknown keys are errors, values are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class Evaluation:
    """What one evaluation found: its row of measures (the family's ``fields``) and, for families
    that make per-target predictions, those predictions (columns of ``alc_dask.results.PREDICTIONS``;
    the engine adds ``scenario_id`` and leaves absent ones null)."""

    measures: dict[str, Any]
    predictions: pa.Table | None = None


class EvaluationFamily:
    """One kind of privacy evaluation.

    Subclasses set ``name`` (what a job's ``family:`` says), ``Params`` (a ``FamilyParams``
    model), ``fields`` (the pyarrow fields of the measures they write, each described: see
    ``column``; the results hold them in a table of the family's own) and ``headline`` (the field
    summaries rank by and audits compare: higher means more exposed), and implement ``check``,
    ``evaluate`` and ``label``. A ``risk`` field (a label of ``alc_dask.measure.LABELS``) is in
    every family's measures, so reports and audits speak one language across families.
    """

    name: ClassVar[str]
    Params: ClassVar[type[FamilyParams]]
    fields: ClassVar[tuple[pa.Field, ...]]
    headline: ClassVar[str]

    def __init__(self, params: FamilyParams | Mapping[str, Any] | None = None, **kwargs: Any):
        if isinstance(params, self.Params) and not kwargs:
            self.params = params
        else:
            self.params = self.Params.model_validate({**dict(params or {}), **kwargs})

    def identity(self) -> dict[str, Any]:
        """What makes two evaluations the same one (their scenario id hashes it): all parameters by default."""
        return self.params.model_dump(mode="json")

    def labels(self) -> dict[str, Any]:
        """Measure columns known before evaluating (e.g. the secret), so a failed row still says what it was."""
        return {}

    def describe(self) -> str:
        """A short readable name for ids and progress lines."""
        return self.name

    def shared_work(self, seed: int) -> str | None:
        """What this evaluation (run with ``seed``) computes that others can reuse in the same worker
        process: evaluations that say the same are sent to the same worker when it is free. Say the
        seed when the work depends on it. None: nothing."""
        return None

    def check(self, release: Release) -> None:
        """Raise ``ScenarioError`` naming the parameter and value when this evaluation cannot run on ``release``."""

    def evaluate(self, release: Release, seed: int) -> Evaluation:
        raise NotImplementedError

    @classmethod
    def report_section(cls, scores: pd.DataFrame) -> Section:
        """This family's report section for its successful evaluations (identity columns and its own
        measures): by default each evaluation's headline measure and risk label, worst first."""
        from alc_dask.families.presentation import Section

        columns = [c for c in ["release", "scenario_id", "origin", "params", cls.headline, "risk"] if c in scores.columns]
        ranked = scores.sort_values([cls.headline, "scenario_id"], ascending=[False, True])[columns]
        return Section(cls.name, {f"Evaluations by {cls.headline}": ranked.reset_index(drop=True)})

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.params.model_dump()})"
