"""The contract every evaluation family follows, in the spirit of scikit-learn estimators.

A family is built from its parameters (validated strictly, cheap, no data: it is pickled to the
workers), planned from a job's entries and checked against a release before any cluster starts
(``planning``), then evaluated on a worker. The evaluation returns one row of measures whose raw
counts are kept, so a risk or an interval can be recomputed later at another confidence level
without rerunning anything. The family also brings its report section (``report_section``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict
from pydantic_core import PydanticCustomError

from alc_dask.strict_numbers import NoBooleanNumbers

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from alc_dask.data import Release
    from alc_dask.families.battery import BatteryTables
    from alc_dask.families.planning import Generator, PlanContext, Planned
    from alc_dask.families.presentation import Section
    from alc_dask.measure import SettingError
    from alc_dask.measure.verdict import Label, Threshold


INVALID_FIELD = "invalid_field"
"""The pydantic error type of a ``SettingError``; its context holds the field, value and expectation."""


def field_error(error: SettingError) -> PydanticCustomError:
    """A pydantic error at the model being validated, naming the field below it that is wrong."""
    return PydanticCustomError(INVALID_FIELD, "{field} must be {expected}", {"field": error.field, "expected": error.expected, "value": error.value})


def column(name: str, type: pa.DataType, description: str) -> pa.Field:
    """A field of a results table with its one-line description (field metadata ``description``),
    from which reports and the documentation's column lists are generated.

    Parameters
    ----------
    name : str
        The column's name.
    type : pyarrow.DataType
        Its type.
    description : str
        One line saying what it holds.

    Returns
    -------
    pyarrow.Field

    Examples
    --------
    >>> import pyarrow as pa
    >>> from alc_dask.families import column
    >>> field = column("copied_share", pa.float64(), "share of released rows equal to a row of the original")
    >>> field.type, field.metadata[b"description"]
    (DataType(double), b'share of released rows equal to a row of the original')
    """
    import pyarrow as pa

    return pa.field(name, type, metadata={"description": description})


class HeadlineInterval(NamedTuple):
    """A headline value, its interval (NaN bounds: not known) and the trials it rests on (attacks,
    targets; None when not a count of trials): what a verdict labels an evaluation from.

    Examples
    --------
    >>> from alc_dask.families import get_family
    >>> from alc_dask.testing.truth import truth_releases
    >>> disclosure = get_family("disclosure")
    >>> evaluation = disclosure(keys=["sex", "region", "education"], target="occupation").evaluate(truth_releases(rows=500).release("copy"), seed=0)
    >>> headline = disclosure.headline_interval(evaluation.measures)
    >>> headline.low <= headline.value <= headline.high, headline.trials
    (True, 500.0)
    """

    value: float
    low: float
    high: float
    trials: float | None
    pass_high: float = float("nan")
    """The one-sided upper bound a pass is read from, at the interval's confidence level (the upper
    end of the interval at twice its error: 90% for a 95% interval); NaN: the interval's ``high``."""

    @property
    def pass_bound(self) -> float:
        """What must lie below the threshold for a pass: ``pass_high`` where known (never above
        ``high`` nor below the value), else ``high``."""
        if self.pass_high != self.pass_high:
            return self.high
        return min(self.high, max(self.value, self.pass_high)) if self.value == self.value else min(self.high, self.pass_high)


def _number(value) -> float:
    return float("nan") if value is None else float(value)


def exposed_records(records, evidence: str) -> pd.DataFrame:
    """``EvaluationFamily.exposed``'s frame: each of ``records`` once, in order, with ``evidence``."""
    import numpy as np
    import pandas as pd

    unique = np.unique(np.asarray(records, dtype=np.int64))
    return pd.DataFrame({"record": unique, "evidence": pd.Series([evidence] * unique.size, dtype=object)})


class FamilyParams(NoBooleanNumbers):
    """Base of every family's parameters: unknown keys are errors, values are frozen.

    A pydantic model: a job file's entry is validated by it, and its fields are the entry's keys.

    Examples
    --------
    >>> from alc_dask.families import FamilyParams
    >>> class CopiedRowsParams(FamilyParams):
    ...     table: int = 0
    >>> CopiedRowsParams(tables=1)
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for CopiedRowsParams
    tables
      Extra inputs are not permitted ...
    """

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class Evaluation:
    """What one evaluation found: its row of measures (the family's ``fields``) and, for families
    that make per-target predictions, those predictions (columns of ``alc_dask.results.PREDICTIONS``;
    the engine adds ``scenario_id`` and leaves absent ones null).

    Attributes
    ----------
    measures : dict
        One value per field of the family.
    predictions : pyarrow.Table or None

    Examples
    --------
    >>> from alc_dask.families import get_family
    >>> from alc_dask.testing.truth import truth_releases
    >>> disclosure = get_family("disclosure")(keys=["sex", "region", "education"], target="occupation")
    >>> evaluation = disclosure.evaluate(truth_releases(rows=500).release("bootstrap"), seed=0)
    >>> evaluation.measures["risk"]
    'safe'
    """

    measures: dict[str, Any]
    predictions: pa.Table | None = None


@dataclass(frozen=True)
class CheckExamples:
    """What ``alc_dask.testing.check_family`` runs a family with: job entries for a small demo release
    whose truth is known, and what that release must be.

    Examples
    --------
    >>> from alc_dask.families import get_family
    >>> from alc_dask.testing import demo_columns
    >>> get_family("privacy_models").check_examples(demo_columns()).release
    'grouped'
    """

    entries: list[dict[str, Any]]
    """Scenario entries of a job, as written in a job file: a family's parameters (``family:`` may be
    left out) or a generator's entry (``generate:``). Keep them tiny: a few hundred rows, few attacks."""
    release: Literal["tables", "grouped"] = "tables"
    """``tables``: the original, one anonymized table and a control table; ``grouped``: the original
    and a group-anonymized (k-anonymous, generalized) table of it (``alc_dask.testing.GROUPED``)."""
    job_settings: dict[str, Any] = field(default_factory=dict)
    """Top-level keys of the job the entries need (this family's ``JobSettings``)."""
    compares_releases: bool = True
    """Whether the headline measures what the release gives away, so that a release copying the
    original must score worse than a fresh sample of the same population. False for a headline read
    from the original alone (a forecast of its anonymity sets, say)."""


class EvaluationFamily:
    """One kind of privacy evaluation: the base class of every family, built in or a plugin's.

    **What a family must write**: ``name`` (what a job's ``family:`` says), ``Params`` (a
    `FamilyParams` model), ``fields`` (the pyarrow fields of the measures it writes, each
    described: see `column`), ``headline`` (the field summaries rank by and audits compare: higher
    means more exposed), ``evaluate`` and ``check_examples`` (the entries
    ``alc_dask.testing.family_checks`` checks the contract with). A package registers its family by
    an entry point in the ``alc_dask.families`` group.

    **What it may write, by role** (each with a default that works):

    - evaluating: ``check`` (release-dependent errors; none), ``labels`` (measures known before
      evaluating; none), ``describe``, ``identity``, ``shared_work``;
    - judging: ``threshold``, ``headline_interval`` and ``scale`` (without the first two every
      evaluation is inconclusive; the verdict labels every family on its own scale from them: no
      ALC band is imposed), ``criterion`` (the regulator's question, else "other"),
      ``breaches``, ``not_informative``, ``detectable``, ``evidence``, ``chosen_among`` and
      ``corrected_headline_interval`` (a correction for the worst of several);
    - planning: ``Entry``, ``plan``, ``generators``, ``JobSettings``, ``scored_settings``,
      ``battery`` and ``battery_settings`` (what ``check`` adds; none);
    - reading stored rows: ``report_section``, ``exposed``, ``run_dependent``.

    Parameters
    ----------
    params : FamilyParams or Mapping, optional
        The evaluation's parameters, validated by ``Params``.
    **kwargs
        Parameters by name, over ``params``.

    Examples
    --------
    A family measuring the share of released rows that copy a row of the original, evaluated in
    this process:

    >>> import pyarrow as pa
    >>> from alc_dask.families import Evaluation, EvaluationFamily, FamilyParams, column
    >>> from alc_dask.testing.truth import truth_releases
    >>> class CopiedRowsParams(FamilyParams):
    ...     table: int = 0
    >>> class CopiedRows(EvaluationFamily):
    ...     name, Params, headline = "copied_rows", CopiedRowsParams, "copied_share"
    ...     fields = (column("copied_share", pa.float64(), "share of released rows equal to a row of the original"),)
    ...
    ...     def evaluate(self, release, seed):
    ...         released = release.anonymized[self.params.table]
    ...         def rows(table):
    ...             return zip(*(table.column_array(name) for name in released.columns))
    ...         originals = set(rows(release.original))
    ...         share = sum(row in originals for row in rows(released)) / released.n_rows
    ...         return Evaluation({"copied_share": share})
    >>> truth = truth_releases(rows=500)
    >>> [CopiedRows(table=0).evaluate(truth.release(name), seed=0).measures for name in ("copy", "bootstrap")]
    [{'copied_share': 1.0}, {'copied_share': 0.0}]
    """

    name: ClassVar[str]
    Params: ClassVar[type[FamilyParams]]
    fields: ClassVar[tuple[pa.Field, ...]]
    headline: ClassVar[str]
    Entry: ClassVar[type[BaseModel] | None] = None
    """What a job's scenario entry of this family holds, when not its ``Params`` (see ``plan``)."""
    JobSettings: ClassVar[type[BaseModel] | None] = None
    """Job-wide settings this family reads, written at the top level of a job (no two families may
    declare the same key)."""
    generators: ClassVar[tuple[type[Generator], ...]] = ()
    """The scenario generators (``generate: <name>`` entries) this family brings."""
    run_dependent: ClassVar[frozenset[str]] = frozenset()
    """Measures that tell where or how long an evaluation ran (seconds, workers used), not what it
    found: the only ones allowed to differ between two runs of the same seed."""

    @classmethod
    def check_examples(cls, columns: tuple[str, ...]) -> CheckExamples:
        """The job entries ``alc_dask.testing.check_family`` checks this family with, on a demo release
        of ``columns``."""
        raise NotImplementedError(
            f"{cls.__name__}.check_examples(columns) is not written: return alc_dask.families.CheckExamples(entries=[...]) with a few "
            f"scenario entries of the {getattr(cls, 'name', cls.__name__)!r} family (its parameters, tiny: a few hundred rows, few attacks) "
            f"that run on a demo release of the columns {', '.join(columns)}, so that alc_dask.testing.check_family can run the family through its contract"
        )

    @classmethod
    def battery(cls, tables: BatteryTables) -> list[dict[str, Any]]:
        """The job entries this family adds to ``check``'s default battery for ``tables`` (the
        battery's secrets and quasi-identifiers chosen): the evaluations a custodian should not
        have to ask for. By default none."""
        return []

    @classmethod
    def battery_settings(cls) -> dict[str, Any]:
        """Top-level job settings (this family's ``JobSettings``) its battery entries run with."""
        return {}

    @classmethod
    def entry_model(cls) -> type[BaseModel]:
        """The model a job's scenario entry of this family is validated by: ``Entry``, else ``Params``."""
        return cls.Entry or cls.Params

    @classmethod
    def plan(cls, entry: BaseModel, context: PlanContext, where: str) -> list[Planned]:
        """The evaluations of a job's entry at ``where`` (validated by ``entry_model``): by default
        the one it describes, checked against the release."""
        from alc_dask.families.planning import Planned, checked

        return [Planned(checked(cls(entry), context.release, where), where)]

    @classmethod
    def scored_settings(cls, settings: BaseModel) -> dict[str, Any]:
        """What of this family's job settings the stored scores depend on (a results folder of
        other such settings is not resumed): all of them unless the family says otherwise."""
        return settings.model_dump(mode="json")

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
        """Measure ``release`` (on a worker, or in this process): one row of the declared ``fields``;
        every random draw from ``seed``, so the same seed gives the same row."""
        raise NotImplementedError

    threshold: ClassVar[Threshold | None] = None
    """The headline value from which an evaluation is flagged, with its source; None: the family
    states none, and its evaluations are inconclusive in a verdict."""
    scale: ClassVar[str] = ""
    """What the headline measures, in its own units (one phrase, for the verdict's scorecard)."""
    criterion: ClassVar[str | None] = None
    """The regulator's question this family answers, for the report's regulator's view: one of the
    WP29 criteria (``"singling out"``, ``"linkability"``, ``"inference"``), the ICO motivated-intruder
    test's (``"membership"``, ``"identification"``), or a question of its own (a row of its own);
    None: listed under "other"."""

    @classmethod
    def headline_interval(cls, row: Mapping[str, Any]) -> HeadlineInterval:
        """The headline of one stored row with its interval and the trials behind it: by default
        the point alone (no interval: never a pass on its own)."""
        value = _number(row.get(cls.headline))
        return HeadlineInterval(value, float("nan"), float("nan"), None)

    @classmethod
    def chosen_among(cls, scores: pd.DataFrame) -> list[int]:
        """Per stored row of this family in ``scores`` (in order): how many evaluations, its own
        included, answer the same question, so that the verdict, taking the worst of them, takes a
        maximum. By default 1: each evaluation answers its own question."""
        return [1] * len(scores)

    @classmethod
    def corrected_headline_interval(cls, row: Mapping[str, Any], among: int) -> HeadlineInterval:
        """The headline's interval corrected for having been chosen as the worst of ``among``
        evaluations (``chosen_among``), so that the maximum is not luck. By default not corrected."""
        return cls.headline_interval(row)

    @classmethod
    def breaches(cls, row: Mapping[str, Any], among: int = 1) -> str | None:
        """A promise made about the release (a declared ε, say) that one stored row shows broken, or
        a leak shown plainly beside the headline, as the sentence of evidence: the evaluation is
        then flagged whatever its headline (``among``: as for `corrected_headline_interval`). By
        default none."""
        return None

    @classmethod
    def judge(cls, row: Mapping[str, Any], threshold: float | None, among: int = 1) -> tuple[Label, str | None]:
        """The label of one stored row against ``threshold`` (None: none stated: inconclusive), with
        the sentence that replaces its evidence when a breach flags it or it is not informative
        (else None): the verdict's rule, which the report's sections show too."""
        from alc_dask.measure.verdict import Label, interval_label

        if (breach := cls.breaches(row, among)) is not None:
            return Label.FLAGGED, breach
        if (reason := cls.not_informative(row)) is not None:
            return Label.NOT_INFORMATIVE, reason
        if threshold is None:
            return Label.INCONCLUSIVE, None
        head = cls.headline_interval(row) if among <= 1 else cls.corrected_headline_interval(row, among)
        return interval_label(head.low, max(head.low, head.pass_bound), threshold), None

    @classmethod
    def not_informative(cls, row: Mapping[str, Any]) -> str | None:
        """Why one stored row cannot speak of the release whatever its headline (a constant secret,
        a baseline that leaves no room to show a loss, nothing attacked), as the sentence of
        evidence: the evaluation is then labelled not informative, neither blocking a pass nor
        counted as inconclusive. By default None: it can."""
        return None

    @classmethod
    def detectable(cls, row: Mapping[str, Any], threshold: float) -> str | None:
        """For an evaluation left inconclusive: what its tables could have shown, as a clause for a
        custodian (the smallest headline that would have been flagged with the same interval's
        reach below its value). None: it cannot say."""
        head = cls.headline_interval(row)
        reach = head.value - head.low
        if not (reach == reach and reach >= 0 and head.value == head.value):
            return None
        return f"with these tables, a {cls.headline} above {threshold + reach:.3g} would have been flagged"

    @classmethod
    def evidence(cls, row: Mapping[str, Any]) -> str:
        """One sentence a custodian understands of what one evaluation found."""
        return f"{cls.headline} {_number(row.get(cls.headline)):.3g}"

    @classmethod
    def exposed(cls, predictions: pd.DataFrame, row: Mapping[str, Any]) -> pd.DataFrame:
        """The records of the original one evaluation shows exposed, from its predictions (columns
        of ``alc_dask.results.PREDICTIONS``) and its stored row: ``record`` (the original's row, as
        the predictions' ``target``), once each, and ``evidence``, a few words that never hold a
        value of the data. By default none: the evaluation names no one in particular."""
        return exposed_records([], "")

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
