"""The scorecard: one row per family of what its headline measures, the threshold applied and where
it comes from, its evaluations per verdict label and its worst headline with the interval."""

from __future__ import annotations

import math

import pandas as pd

from alc_dask.families import get_family
from alc_dask.verdict import EvaluationVerdict, Headline, Verdict, label_text

COLUMNS = ["family", "headline measures", "threshold", "threshold source", "flagged", "inconclusive", "pass", "not informative", "worst headline"]


def scorecard(verdict: Verdict) -> pd.DataFrame:
    """A row per family judged, families in the order of their worst evaluation (worst first)."""
    rows = []
    for family, evaluations in by_family(verdict.evaluations).items():
        worst = evaluations[0]
        counts = {label_text(label): sum(e.label == label for e in evaluations) for label in ("flagged", "inconclusive", "pass", "not_informative")}
        rows.append(
            {
                "family": family,
                "headline measures": get_family(family).scale,
                "threshold": verdict.thresholds.get(family),
                "threshold source": worst.headline.threshold_source,
                **counts,
                "worst headline": f"{headline_text(worst.headline)} ({worst.release} {worst.id})",
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def by_family(evaluations: list[EvaluationVerdict]) -> dict[str, list[EvaluationVerdict]]:
    """Evaluations grouped by family, each family's worst first (the verdict's order kept)."""
    grouped: dict[str, list[EvaluationVerdict]] = {}
    for evaluation in evaluations:
        grouped.setdefault(evaluation.family, []).append(evaluation)
    return grouped


def headline_text(headline: Headline) -> str:
    """E.g. "privacy_risk 0.436 [0.382, 0.49]": the point and its interval when it is one (a headline
    that is a point states itself as its bounds)."""
    known = headline.low is not None and headline.high is not None and headline.low != headline.high
    interval = f" [{number(headline.low)}, {number(headline.high)}]" if known else ""
    return f"{headline.name} {number(headline.value)}{interval}"


def number(value: float | None) -> str:
    """Three significant digits: a headline is not known better, and shares of a population can be tiny."""
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.3g}"
