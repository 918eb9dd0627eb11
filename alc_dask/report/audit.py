"""A nightly audit: this run's scores against the previous audit's, evaluation by evaluation.

Like is compared with like: evaluations match on their stable id, which includes the family, and
each is compared on its family's headline measure (the ALC, Anonymeter's privacy risk, ...). A
release is flagged when any evaluation is at risk or serious, failed, or got worse: a higher risk
label, or a headline higher by more than the job's ``audit.worse_by``; and, when the job sets
``audit.flag_pi_at``, any ALC scenario vulnerable at matched coverage with at least that precision
improvement. Skipped evaluations (which cannot be attacked by construction) are listed, never flagged.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from alc_dask.measure import LABELS
from alc_dask.report.sections import headline_of, with_family

FLAGGED_LABELS = ("at risk", "serious")
CHANGES = ("worse", "failed", "new", "same", "better", "skipped")  # report order: what needs attention first
COLUMNS = ["scenario_id", "family", "params", "status", "error", "score", "risk", "pi", "pi_vulnerable"]


@dataclass(frozen=True)
class AuditDiff:
    table: pd.DataFrame
    """Per evaluation: family, status, headline ``score`` and risk now and before, ``change``, and
    for ALC scenarios the precision improvement ``pi`` and whether it makes them vulnerable."""
    flag_pi_at: float | None = None

    @property
    def flagged(self) -> pd.DataFrame:
        t = self.table
        flagged = t["risk"].isin(FLAGGED_LABELS) | t["change"].isin(["worse", "failed"])
        if self.flag_pi_at is not None:
            flagged |= t["pi_vulnerable"].astype("boolean").fillna(False).astype(bool) & (t["pi"] >= self.flag_pi_at)
        return t[flagged]

    @property
    def skipped(self) -> pd.DataFrame:
        return self.table[self.table["status"] == "skipped"]

    @property
    def passed(self) -> bool:
        return self.flagged.empty


def with_score(scores: pd.DataFrame) -> pd.DataFrame:
    """The scores with ``score``: each row's family headline."""
    scores = with_family(scores)
    score = pd.Series(float("nan"), index=scores.index)
    for family in scores["family"].unique():
        rows = scores["family"] == family
        score[rows] = scores.loc[rows, headline_of(family)].astype(float)
    return scores.assign(score=score)


def compare(current: pd.DataFrame, previous: pd.DataFrame | None, worse_by: float = 0.05, flag_pi_at: float | None = None) -> AuditDiff:
    now = with_score(current).reindex(columns=COLUMNS)
    if previous is None:
        table = now.assign(score_before=float("nan"), risk_before=None)
    else:
        before = with_score(previous[previous["status"] == "ok"])[["scenario_id", "score", "risk"]]
        table = now.merge(before.rename(columns={"score": "score_before", "risk": "risk_before"}), on="scenario_id", how="left")
    table["change"] = pd.Categorical([_change(row, worse_by) for row in table.itertuples(index=False)], categories=list(CHANGES), ordered=True)
    return AuditDiff(table.sort_values(["change", "score"], ascending=[True, False]).reset_index(drop=True), flag_pi_at)


def _change(row, worse_by: float) -> str:
    if row.status == "skipped":
        return "skipped"
    if row.status != "ok":
        return "failed"
    if pd.isna(row.score_before) or pd.isna(row.risk_before):
        return "new"
    rank, rank_before = LABELS.index(row.risk), LABELS.index(row.risk_before)
    if rank > rank_before or row.score > row.score_before + worse_by:
        return "worse"
    if rank < rank_before or row.score < row.score_before - worse_by:
        return "better"
    return "same"


def audit_markdown(diff: AuditDiff, release: str, stamp: str, previous_stamp: str | None, skipped: Sequence[str] = ()) -> str:
    """The report; ``skipped``: later audits than the previous one whose results could not be read."""
    criteria = "at risk, serious, worse or failed" + ("" if diff.flag_pi_at is None else f", or vulnerable with precision improvement >= {diff.flag_pi_at:g}")
    verdict = f"PASSED: no evaluation {criteria}" if diff.passed else f"FLAGGED: {len(diff.flagged)} evaluation(s) {criteria}"
    if len(diff.skipped):
        verdict += f"; {len(diff.skipped)} skipped (cannot be attacked), listed below"
    against = f"compared with the audit of {previous_stamp}" if previous_stamp else "no previous audit to compare with"
    if skipped:
        against += f"; skipped, as their results cannot be read: {', '.join(skipped)}"
    counts = diff.table["change"].astype(str).value_counts()
    changes = ", ".join(f"{name} {counts[name]}" for name in CHANGES if name in counts)
    lines = [f"# Audit of release {release}, {stamp}", "", f"**{verdict}** ({against}).", "", f"Changes: {changes}", ""]
    if not diff.flagged.empty:
        lines += ["## Flagged evaluations", "", _table(diff.flagged), ""]
    if len(diff.skipped):
        lines += ["## Skipped evaluations", "", *(f"- {row.scenario_id} ({row.family}, {row.params}): {row.error}" for row in diff.skipped.itertuples()), ""]
    return "\n".join(lines).rstrip() + "\n"


def _table(frame: pd.DataFrame) -> str:
    columns = ["scenario_id", "family", "params", "score", "risk", "score_before", "risk_before", "change", "pi"]
    rows = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in frame[columns].itertuples(index=False):
        rows.append("| " + " | ".join("" if pd.isna(v) else (f"{v:.3f}" if isinstance(v, float) else str(v).replace("|", "\\|")) for v in row) + " |")
    return "\n".join(rows)
