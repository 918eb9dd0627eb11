"""The regulator's view: the verdict read along the criteria regulators ask about.

The three criteria of the Article 29 Working Party (Opinion 05/2014 on Anonymisation Techniques,
WP216, 2014, executive summary: singling out, linkability, inference), and the UK ICO's
motivated-intruder test (ICO, Anonymisation, pseudonymisation and privacy enhancing technologies
guidance, chapter 2, "What is the motivated intruder test?") asked of membership and identification.
Each family answers exactly one criterion, so that no evaluation is counted twice:

- singling out <- ``singling_out``
- linkability <- ``linkability``
- inference <- ``inference``, ``alc`` (attribute inference scored with the ALC), ``relative_threat``
  (the Bayesian attacker's inference of the sensitive value of a group-anonymized release)
- membership <- ``membership``
- identification <- ``identification``

Families of no criterion (plugins) are listed on a row of their own.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from alc_dask.measure.verdict import worst
from alc_dask.report.scorecard import by_family, number
from alc_dask.report.verdict import Verdict

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
    families: tuple[str, ...]


CRITERIA = (
    Criterion("singling out", "Can a person of the original be isolated in the release?", WP29, ("singling_out",)),
    Criterion("linkability", "Can two records of the same person be linked, within or across tables?", WP29, ("linkability",)),
    Criterion(
        "inference", "Can a person's attribute be deduced, with significant probability, from their others?", WP29, ("inference", "alc", "relative_threat")
    ),
    Criterion("membership", "Can a motivated intruder tell that a person they know of is in the original?", ICO, ("membership",)),
    Criterion("identification", "Can a motivated intruder identify people, matching the release on what is known of them?", ICO, ("identification",)),
)


def regulators_view(verdict: Verdict) -> pd.DataFrame:
    """A row per criterion: the evaluations behind it per family, its label (the worst of theirs, or
    "not evaluated" when none is), the thresholds applied and the worst evidence."""
    grouped = by_family(verdict.evaluations)
    mapped = {family for criterion in CRITERIA for family in criterion.families}
    others = tuple(family for family in grouped if family not in mapped)
    criteria = CRITERIA + ((Criterion("other", "Evaluations of families no criterion above maps", "", others),) if others else ())
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
