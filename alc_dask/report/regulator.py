"""The regulator's view: the verdict read along the criteria regulators ask about.

The three criteria of the Article 29 Working Party (Opinion 05/2014 on Anonymisation Techniques,
WP216, 2014, executive summary: singling out, linkability, inference), and the UK ICO's
motivated-intruder test (ICO, Anonymisation, pseudonymisation and privacy enhancing technologies
guidance, chapter 2, "What is the motivated intruder test?") asked of membership and identification.
Each family declares the one criterion it answers (``EvaluationFamily.criterion``), so that no
evaluation is counted twice; a criterion of a family's own gets a row of its own, and families that
declare none (or are not installed) are listed together under "other".
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from alc_dask.families import family_names, get_family
from alc_dask.measure.verdict import worst
from alc_dask.report.scorecard import by_family, number
from alc_dask.verdict import Verdict

WP29 = "WP29 Opinion 05/2014"
WP29_SOURCE = "Article 29 Data Protection Working Party, Opinion 05/2014 on Anonymisation Techniques (WP216), 2014, executive summary"
ICO = "ICO motivated-intruder test"
ICO_SOURCE = (
    "UK Information Commissioner's Office, Anonymisation, pseudonymisation and privacy enhancing technologies guidance, "
    "chapter 2 (How do we ensure anonymisation is effective?), the motivated intruder test"
)
NOT_EVALUATED = "not evaluated"
COLUMNS = ["criterion", "question", "source", "evaluations behind it", "label", "thresholds applied", "worst evidence"]


@dataclass(frozen=True)
class Criterion:
    name: str
    question: str
    source: str
    families: tuple[str, ...] = ()


CRITERIA = (
    Criterion("singling out", "Can a person of the original be isolated in the release?", WP29),
    Criterion("linkability", "Can two records of the same person be linked, within or across tables?", WP29),
    Criterion("inference", "Can a person's attribute be deduced, with significant probability, from their others?", WP29),
    Criterion("membership", "Can a motivated intruder tell that a person they know of is in the original?", ICO),
    Criterion("identification", "Can a motivated intruder identify people, matching the release on what is known of them?", ICO),
)


def regulators_view(verdict: Verdict) -> pd.DataFrame:
    """A row per criterion: the evaluations behind it per family, its label (the worst of theirs, or
    "not evaluated" when none is), the thresholds applied and the worst evidence."""
    grouped = by_family(verdict.evaluations)
    declared = {name: get_family(name).criterion for name in family_names()}
    criteria = [Criterion(c.name, c.question, c.source, tuple(f for f, answered in declared.items() if answered == c.name)) for c in CRITERIA]
    known = {c.name for c in CRITERIA}
    for own in sorted({answered for family, answered in declared.items() if family in grouped and answered not in known and answered is not None}):
        criteria.append(Criterion(own, "A question its families declare (EvaluationFamily.criterion)", "", tuple(f for f, a in declared.items() if a == own)))
    others = tuple(family for family in grouped if declared.get(family) is None)
    if others:
        criteria.append(Criterion("other", "Evaluations of families that declare no criterion", "", others))
    return pd.DataFrame([_row(criterion, verdict, grouped) for criterion in criteria], columns=COLUMNS)


def _row(criterion: Criterion, verdict: Verdict, grouped: dict) -> dict:
    present = [family for family in criterion.families if family in grouped]
    evaluations = [e for e in verdict.evaluations if e.family in criterion.families]  # worst first, as the verdict orders them
    return {
        "criterion": criterion.name,
        "question": criterion.question,
        "source": criterion.source,
        "evaluations behind it": "; ".join(f"{family}: {_counts(grouped[family])}" for family in present) or f"none ({', '.join(criterion.families)} not run)",
        "label": worst(e.label for e in evaluations).value if evaluations else NOT_EVALUATED,
        "thresholds applied": "; ".join(f"{family} {number(verdict.thresholds.get(family))}" for family in present),
        "worst evidence": evaluations[0].evidence if evaluations else "",
    }


def _counts(evaluations: list) -> str:
    labels = [e.label for e in evaluations]
    return f"{len(labels)} ({', '.join(f'{labels.count(label)} {label}' for label in ('flagged', 'inconclusive', 'pass') if labels.count(label))})"
