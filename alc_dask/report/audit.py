"""A nightly audit: this run's scores against the previous audit's, scenario by scenario.

A release is flagged when any scenario is at risk or serious, failed, or got worse: a higher risk
label, or an ALC higher by more than the job's ``audit.worse_by``. Scenarios match on their stable
id. A skipped scenario (cannot be attacked, e.g. a constant secret) neither flags nor passes a
release silently: the report lists it with its reason.
"""

from dataclasses import dataclass

import pandas as pd

from alc_dask.measure import LABELS

FLAGGED_LABELS = ("at risk", "serious")
CHANGES = ("worse", "failed", "new", "same", "better", "skipped")  # report order: what needs attention first


@dataclass(frozen=True)
class AuditDiff:
    table: pd.DataFrame
    """Per scenario: secret, known, alc and risk now and before, and ``change``."""

    @property
    def flagged(self) -> pd.DataFrame:
        failed = ~self.table["status"].isin(["ok", "skipped"])
        return self.table[self.table["risk"].isin(FLAGGED_LABELS) | (self.table["change"] == "worse") | failed]

    @property
    def skipped(self) -> pd.DataFrame:
        return self.table[self.table["status"] == "skipped"]

    @property
    def passed(self) -> bool:
        return self.flagged.empty


def compare(current: pd.DataFrame, previous: pd.DataFrame | None, worse_by: float = 0.05) -> AuditDiff:
    now = current[["scenario_id", "secret", "known", "baseline", "status", "alc", "risk", "error"]]
    if previous is None:
        table = now.assign(alc_before=float("nan"), risk_before=None)
        table["change"] = ["skipped" if status == "skipped" else "new" for status in table["status"]]
        return AuditDiff(table.reset_index(drop=True))
    before = previous[previous["status"] == "ok"][["scenario_id", "alc", "risk"]].rename(columns={"alc": "alc_before", "risk": "risk_before"})
    table = now.merge(before, on="scenario_id", how="left")
    table["change"] = [_change(row, worse_by) for row in table.itertuples(index=False)]
    table["change"] = pd.Categorical(table["change"], categories=list(CHANGES), ordered=True)
    return AuditDiff(table.sort_values(["change", "alc"], ascending=[True, False]).reset_index(drop=True))


def _change(row, worse_by: float) -> str:
    if row.status == "skipped":
        return "skipped"
    if row.status != "ok":
        return "failed"
    if pd.isna(row.alc_before):
        return "new"
    rank, rank_before = LABELS.index(row.risk), LABELS.index(row.risk_before)
    if rank > rank_before or row.alc > row.alc_before + worse_by:
        return "worse"
    if rank < rank_before or row.alc < row.alc_before - worse_by:
        return "better"
    return "same"


def audit_markdown(diff: AuditDiff, release: str, stamp: str, previous_stamp: str | None) -> str:
    verdict = "PASSED: no scenario at risk, serious or worse" if diff.passed else f"FLAGGED: {len(diff.flagged)} scenario(s) at risk, serious, worse or failed"
    if len(diff.skipped):
        verdict += f"; {len(diff.skipped)} skipped (cannot be attacked), listed below"
    against = f"compared with the audit of {previous_stamp}" if previous_stamp else "no previous audit to compare with"
    counts = diff.table["change"].astype(str).value_counts()
    changes = ", ".join(f"{name} {counts[name]}" for name in CHANGES if name in counts)
    lines = [f"# Audit of release {release}, {stamp}", "", f"**{verdict}** ({against}).", "", f"Changes: {changes}", ""]
    if not diff.flagged.empty:
        lines += ["## Flagged scenarios", "", _table(diff.flagged)]
    if len(diff.skipped):
        lines += ["", "## Skipped scenarios", "", *(f"- {row.scenario_id} (secret {row.secret}): {row.error}" for row in diff.skipped.itertuples())]
    return "\n".join(lines) + "\n"


def _table(frame: pd.DataFrame) -> str:
    columns = ["scenario_id", "secret", "baseline", "alc", "risk", "alc_before", "risk_before", "change"]
    rows = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in frame[columns].itertuples(index=False):
        rows.append("| " + " | ".join("" if pd.isna(v) else (f"{v:.3f}" if isinstance(v, float) else str(v)) for v in row) + " |")
    return "\n".join(rows)
