"""A release's verdict: every evaluation labelled on its own family's scale, the worst label first.

Each family states its headline's interval, its threshold with the threshold's source, and one
sentence of evidence (``EvaluationFamily.headline_interval``, ``threshold``, ``evidence``); the label
comes from the interval (``alc_dask.measure.verdict``). ``verdict.json`` is this module's ``Verdict``
as JSON: a versioned schema (``python -m alc_dask.report.verdict`` prints its JSON Schema).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from typing import Literal

import pandas as pd
from pydantic import BaseModel

from alc_dask.families import get_family
from alc_dask.measure.verdict import SEVERITY, Label, interval_label, trials_to_settle, worst

SCHEMA_VERSION = 1
LabelName = Literal["pass", "inconclusive", "flagged"]
Scalar = float | int | str | bool | None


class Headline(BaseModel):
    name: str
    value: float | None
    low: float | None
    high: float | None
    threshold: float | None
    threshold_source: str


class EvaluationVerdict(BaseModel):
    family: str
    id: str
    release: str
    params: dict
    label: LabelName
    headline: Headline
    evidence: str
    """One sentence of what the evaluation found, for a custodian."""
    settle: int | None = None
    """For an inconclusive evaluation: about how many attacks or targets in all would settle it."""
    measures: dict[str, Scalar]
    """Every scalar measure of the evaluation, by name."""


class Verdict(BaseModel):
    schema_version: int = SCHEMA_VERSION
    verdict: LabelName
    evaluations: list[EvaluationVerdict]
    """Worst first: flagged, inconclusive, pass; within a label, furthest past (or nearest to) its threshold first."""
    thresholds: dict[str, float | None]
    """Family -> the threshold applied."""
    failed: int = 0
    """Evaluations that failed: a verdict with failures is at best inconclusive."""


def verdict_of(scores: pd.DataFrame, thresholds: Mapping[str, float] | None = None) -> Verdict:
    """The verdict of a scores table (as ``read_scores`` returns it); ``thresholds`` overrides a
    family's own threshold (family -> value)."""
    thresholds = dict(thresholds or {})
    ok = scores[scores["status"] == "ok"] if "status" in scores else scores
    failed = int((scores["status"] == "failed").sum()) if "status" in scores else 0
    evaluations, applied = [], {}
    for _, row in ok.iterrows():
        family = get_family(row["family"])
        threshold = thresholds.get(family.name, family.threshold.value if family.threshold else None)
        applied[family.name] = threshold
        evaluations.append(judged(family, row, threshold))
    evaluations.sort(key=_severity)
    labels = [e.label for e in evaluations] + ([Label.INCONCLUSIVE] if failed else [])
    return Verdict(verdict=worst(labels).value, evaluations=evaluations, thresholds=applied, failed=failed)


def judged(family, row: pd.Series, threshold: float | None) -> EvaluationVerdict:
    """One stored row of ``family`` (a family class) labelled against ``threshold`` (None: none stated)."""
    values = {name: _scalar(value) for name, value in row.items()}
    measures = {field.name: values.get(field.name) for field in family.fields if _is_scalar(row.get(field.name))}
    head = family.headline_interval(values)
    if threshold is None:
        label, source, evidence = Label.INCONCLUSIVE, "none: the family states no threshold", family.evidence(values)
    else:
        label = interval_label(head.low, head.high, threshold)
        source = family.threshold.source if family.threshold and threshold == family.threshold.value else "the job's audit.thresholds"
        evidence = family.evidence(values)
    settle = None
    if label is Label.INCONCLUSIVE and threshold is not None and head.trials is not None:
        settle = trials_to_settle(head.value, head.low, head.high, head.trials, threshold)
    return EvaluationVerdict(
        family=family.name,
        id=str(row["scenario_id"]),
        release=str(row.get("release", "")),
        params=json.loads(row["params"]) if isinstance(row.get("params"), str) else {},
        label=label.value,
        headline=Headline(
            name=family.headline, value=_finite(head.value), low=_finite(head.low), high=_finite(head.high), threshold=threshold, threshold_source=source
        ),
        evidence=evidence,
        settle=settle,
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
    """The verdict and its worst evidence, a line each, for a terminal."""
    counts = {label: sum(e.label == label for e in verdict.evaluations) for label in ("flagged", "inconclusive", "pass")}
    lines = [
        f"VERDICT: {verdict.verdict.upper()} ({', '.join(f'{n} {label}' for label, n in counts.items())}"
        + (f", {verdict.failed} failed)" if verdict.failed else ")")
    ]
    for evaluation in verdict.evaluations[:most]:
        if evaluation.label != "pass":
            where = f"{evaluation.release} " if evaluation.release else ""  # one id in several releases is several evaluations
            lines.append(f"  {evaluation.label}: {evaluation.family} {where}{evaluation.id}: {evaluation.evidence}")
    return lines


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
    """The ``verdict.json`` at the root of ``folder``, or None when there is none."""
    from alc_dask.results.files import join, read_bytes

    data = read_bytes(join(folder, "verdict.json"))
    return None if data is None else Verdict.model_validate_json(data)


def schema() -> dict:
    """The JSON Schema of ``verdict.json``."""
    return Verdict.model_json_schema()


if __name__ == "__main__":
    json.dump(schema(), sys.stdout, indent=1)
    sys.stdout.write("\n")
