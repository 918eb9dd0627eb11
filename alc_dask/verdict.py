"""A release's verdict: every evaluation labelled on its own family's scale, the worst label first.

Each family states its headline's interval, its threshold with the threshold's source, and one
sentence of evidence (``EvaluationFamily.headline_interval``, ``threshold``, ``evidence``); the label
comes from the interval (``alc_dask.measure.verdict``), unless the evaluation shows a promise made
about the release broken (``EvaluationFamily.breaches``: a generator's declared ε below what the
membership attack proves), which flags it whatever its headline, with the breach as its evidence.
Where several evaluations of a family answer one question (``EvaluationFamily.chosen_among``: every
membership evaluation of a release asks whether it tells its members apart), the verdict takes the
worst of them, a maximum: each is judged by its interval corrected for that choice
(``corrected_headline_interval``), so a maximum over attacks of no power is not flagged by luck.
``verdict.json`` is this module's ``Verdict`` as JSON: a versioned schema, published as ``verdict.schema.json`` beside this module (``make schema``
writes it from ``schema()``; a test keeps the two equal).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict

from alc_dask.families import get_family
from alc_dask.measure.verdict import SEVERITY, Label, release_verdict, trials_to_settle
from alc_dask.utility.fidelity import Fidelity

SCHEMA_VERSION = 3
"""3: a headline's ``pass_bound``, the one-sided bound a pass is read from; 2: an evaluation may be
labelled ``not_informative`` (1 knew pass, inconclusive and flagged only)."""
LabelName = Literal["not_informative", "pass", "inconclusive", "flagged"]
VerdictName = Literal["pass", "inconclusive", "flagged"]
Scalar = float | int | str | bool | None


class Headline(BaseModel):
    """The measure an evaluation is judged by, on its family's own scale."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    name: str
    """The headline measure's column (``alc``, ``privacy_risk``, ``kappa_population``, ...)."""
    value: float | None
    """Its point value (null: not measured)."""
    low: float | None
    """The lower end of its interval."""
    high: float | None
    """The upper end of its interval."""
    pass_bound: float | None = None
    """What a pass is read from: the one-sided upper bound at the interval's confidence level (the
    upper end at twice its error, 90% for a 95% interval) where the family computes one, else
    ``high``. A pass needs it below the threshold; a flag needs ``low`` at or past it."""
    threshold: float | None
    """The threshold applied (null: the family states none; the evaluation is then inconclusive)."""
    threshold_source: str
    """Where the threshold comes from: a publication, or the job's audit.thresholds."""


class EvaluationVerdict(BaseModel):
    """One evaluation, labelled from its headline's interval against its family's threshold."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    family: str
    """The evaluation family (``singling_out``, ``alc``, ...)."""
    id: str
    """The evaluation's stable id (the scenario id), the same in every run of the same job."""
    release: str
    """The release evaluated."""
    params: dict
    """The evaluation's parameters, every default included."""
    label: LabelName
    """flagged: the interval lies wholly at or past the threshold, or a promise made about the release is shown broken; pass: wholly below; inconclusive: it straddles; not_informative: the evaluation cannot speak of the release (its evidence says why), neither blocking a pass nor counted as inconclusive."""
    headline: Headline
    evidence: str
    """One sentence of what the evaluation found, for a custodian."""
    settle: int | None = None
    """For an inconclusive evaluation: about how many attacks or targets in all would settle it."""
    among: int = 1
    """How many evaluations of its family on the release answer the same question (its own
    included); above 1 its headline's interval is corrected for the verdict taking the worst of them
    (membership: Bonferroni, each at confidence 1 − α/among)."""
    measures: dict[str, Scalar]
    """Every scalar measure of the evaluation, by name."""


def _summary_as_description(schema: dict, model: type) -> None:
    """The JSON Schema describes a model by its docstring's first paragraph, not its examples."""
    schema["description"] = model.__doc__.split("\n\n")[0]


class Verdict(BaseModel):
    """A release's verdict: its worst evaluation's label, with every evaluation behind it (``verdict.json``).

    Each family judges its evaluations on its own scale (flagged, inconclusive or pass, from its
    headline's interval against its threshold), so one answer covers every family.

    Examples
    --------
    On ``results``, the output folder of `run_job`'s example (an ALC and a membership evaluation of a copy of 500 people):

    >>> from alc_dask.verdict import read_verdict
    >>> verdict = read_verdict("results")
    >>> verdict.verdict, [(e.family, e.label) for e in verdict.evaluations]
    ('flagged', [('alc', 'flagged'), ('membership', 'flagged')])
    """

    model_config = ConfigDict(use_attribute_docstrings=True, json_schema_extra=_summary_as_description)

    schema_version: int = SCHEMA_VERSION
    """Raised when a field changes meaning or goes away; new fields keep it."""
    verdict: VerdictName
    """The worst label of the informative evaluations (a failed evaluation makes a pass inconclusive; no informative evaluation at all is inconclusive)."""
    releases: dict[str, VerdictName] = {}
    """Release -> its own verdict, by the same rule over its evaluations (a job may evaluate several)."""
    evaluations: list[EvaluationVerdict]
    """Worst first: flagged, inconclusive, pass; within a label, furthest past (or nearest to) its threshold first."""
    thresholds: dict[str, float | None]
    """Family -> the threshold applied."""
    failed: int = 0
    """Evaluations that failed: a verdict with failures is at best inconclusive."""
    fidelity: Fidelity | None = None
    """What the release keeps of the original (``check`` and ``evaluate``): utility beside privacy, which never changes the verdict; null when not measured."""


def verdict_of(scores: pd.DataFrame, thresholds: Mapping[str, float] | None = None) -> Verdict:
    """The verdict of a scores table: each successful evaluation labelled against its family's
    threshold, worst first (a failed evaluation makes a pass inconclusive).

    Parameters
    ----------
    scores : pandas.DataFrame
        Scores of one or more families, as `read_scores` returns them.
    thresholds : Mapping of str to float, optional
        Family -> a threshold instead of the family's own (a job's ``audit.thresholds``).

    Returns
    -------
    Verdict

    Examples
    --------
    On ``results``, the output folder of `run_job`'s example (an ALC and a membership evaluation of a copy of 500 people):

    >>> from alc_dask.verdict import verdict_of
    >>> from alc_dask.results import read_scores
    >>> verdict_of(read_scores("results")).verdict
    'flagged'
    >>> [(e.family, e.label) for e in verdict_of(read_scores("results"), thresholds={"alc": 0.99}).evaluations]  # the ALC's interval now straddles it
    [('membership', 'flagged'), ('alc', 'inconclusive')]
    """
    thresholds = dict(thresholds or {})
    ok = scores[scores["status"] == "ok"] if "status" in scores else scores
    failed = int((scores["status"] == "failed").sum()) if "status" in scores else 0
    evaluations, applied = [], {}
    for (_, row), among in zip(ok.iterrows(), _chosen_among(ok)):
        family = get_family(row["family"])
        threshold = thresholds.get(family.name, family.threshold.value if family.threshold else None)
        applied[family.name] = threshold
        evaluations.append(judged(family, row, threshold, among))
    evaluations.sort(key=_severity)
    labels = [e.label for e in evaluations] + ([Label.INCONCLUSIVE] if failed else [])
    failed_in = set(scores.loc[scores["status"] == "failed", "release"].astype(str)) if failed and "release" in scores else set()
    releases = {
        name: release_verdict([e.label for e in evaluations if e.release == name] + ([Label.INCONCLUSIVE] if name in failed_in else [])).value
        for name in sorted({e.release for e in evaluations} | failed_in)
    }
    return Verdict(verdict=release_verdict(labels).value, evaluations=evaluations, thresholds=applied, failed=failed, releases=releases)


def _chosen_among(ok: pd.DataFrame) -> list[int]:
    """Per row: among how many evaluations its family chooses it (``EvaluationFamily.chosen_among``)."""
    among = [1] * len(ok)
    for name in ok["family"].unique() if len(ok) else []:
        positions = [i for i, family in enumerate(ok["family"]) if family == name]
        for position, count in zip(positions, get_family(name).chosen_among(ok.iloc[positions])):
            among[position] = int(count)
    return among


def judged(family, row: pd.Series, threshold: float | None, among: int = 1) -> EvaluationVerdict:
    """One stored row of ``family`` (a family class) labelled against ``threshold`` (None: none
    stated), its interval corrected for being one of ``among`` evaluations of the same question."""
    values = {name: _scalar(value) for name, value in row.items()}
    measures = {field.name: values.get(field.name) for field in family.fields if _is_scalar(row.get(field.name))}
    head = family.headline_interval(values) if among <= 1 else family.corrected_headline_interval(values, among)
    label, replaced = family.judge(values, threshold, among)
    if threshold is None:
        source = "none: the family states no threshold"
    else:
        source = family.threshold.source if family.threshold and threshold == family.threshold.value else "the job's audit.thresholds"
    evidence = family.evidence(values)
    if among > 1:
        evidence += f"; its interval is corrected for being one of {among} {family.name} evaluations of the release, whose worst the verdict takes"
    evidence = replaced or evidence
    settle = None
    if label is Label.INCONCLUSIVE and threshold is not None:
        if head.trials is not None:
            settle = trials_to_settle(head.value, head.low, head.high, head.trials, threshold)
        if (could := family.detectable(values, threshold)) is not None:
            evidence += f"; {could}"
    return EvaluationVerdict(
        family=family.name,
        id=str(row["scenario_id"]),
        release=str(row.get("release", "")),
        params=json.loads(row["params"]) if isinstance(row.get("params"), str) else {},
        label=label.value,
        headline=Headline(
            name=family.headline,
            value=_finite(head.value),
            low=_finite(head.low),
            high=_finite(head.high),
            pass_bound=_finite(head.pass_bound),
            threshold=threshold,
            threshold_source=source,
        ),
        evidence=evidence,
        settle=settle,
        among=among,
        measures=measures,
    )


def _severity(evaluation: EvaluationVerdict) -> tuple:
    headline = evaluation.headline
    past = (headline.value - headline.threshold) if headline.value is not None and headline.threshold is not None else -math.inf
    return (-SEVERITY.index(Label(evaluation.label)), -past, evaluation.family, evaluation.id)


def _scalar(value):
    if value is pd.NA or value is pd.NaT:
        return None
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        try:
            return value.item()
        except (ValueError, AttributeError):
            return value
    return value


def _is_scalar(value) -> bool:
    value = _scalar(value)
    return value is None or isinstance(value, float | int | str | bool)


def _finite(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def verdict_lines(verdict: Verdict, most: int = 5) -> list[str]:
    """The verdict (and, of several releases, each one's), then its worst evidence, a line each, for a terminal."""
    counts = {label.value: sum(e.label == label for e in verdict.evaluations) for label in reversed(SEVERITY)}
    shown_counts = [f"{n} {label_text(label)}" for label, n in counts.items() if n or label != Label.NOT_INFORMATIVE]
    lines = [f"VERDICT: {verdict.verdict.upper()} ({', '.join(shown_counts)}" + (f", {verdict.failed} failed)" if verdict.failed else ")")]
    if len(verdict.releases) > 1:  # one verdict per release below the overall one
        for release, name in verdict.releases.items():
            labels = [e.label for e in verdict.evaluations if e.release == release]
            counted = ", ".join(f"{labels.count(label.value)} {label_text(label.value)}" for label in reversed(SEVERITY) if labels.count(label.value))
            lines.append(f"  release {release}: {name.upper()} ({counted})")
    for evaluation in verdict.evaluations[:most]:
        if evaluation.label not in ("pass", "not_informative"):
            where = f"{evaluation.release} " if evaluation.release else ""  # one id in several releases is several evaluations
            lines.append(f"  {evaluation.label}: {evaluation.family} {where}{evaluation.id}: {evaluation.evidence}")
    return lines


def label_text(label: str) -> str:
    """A label as a person reads it (``not_informative`` -> ``not informative``)."""
    return label.replace("_", " ")


def verdict_json(verdict: Verdict) -> bytes:
    return verdict.model_dump_json(indent=1).encode()


def write_verdict(verdict: Verdict, folder) -> str:
    """``verdict.json`` at the root of ``folder`` (a path or URL), written whole or not at all; left
    untouched when it already says the same (a resumed run that found everything done writes nothing)."""
    from alc_dask.results.files import join, read_bytes, write_file

    path, data = join(folder, "verdict.json"), verdict_json(verdict)
    if read_bytes(path) != data:
        write_file(path, data)
    return str(path)


def read_verdict(folder) -> Verdict | None:
    """The ``verdict.json`` at the root of ``folder`` (what `run_job` and ``alc-dask check`` write).

    Parameters
    ----------
    folder : path or URL
        A results folder.

    Returns
    -------
    Verdict or None
        None when the folder holds no verdict.

    Examples
    --------
    On ``results``, the output folder of `run_job`'s example (an ALC and a membership evaluation of a copy of 500 people):

    >>> from alc_dask.verdict import read_verdict
    >>> read_verdict("results").thresholds
    {'alc': 0.5, 'membership': 0.5}
    >>> read_verdict("no-results-here") is None
    True
    """
    from alc_dask.results.files import join, read_bytes

    data = read_bytes(join(folder, "verdict.json"))
    return None if data is None else Verdict.model_validate_json(data)


def schema() -> dict:
    """The JSON Schema of ``verdict.json``."""
    return Verdict.model_json_schema()
