"""A nightly audit: this run's verdict against the previous audit's, evaluation by evaluation.

Like is compared with like: evaluations match on their stable id, which includes the family, and
each is compared on its family's headline with the interval its verdict states. An evaluation got
**worse** when its interval now lies wholly above the previous audit's (its lower end above the
previous upper end): a rise its sampling cannot explain. Where either interval is not known (a
point headline, such as the relative threat's, or no bounds) the points are compared: worse when
higher by more than the job's ``audit.worse_by``. A release is flagged when any evaluation is
flagged on its family's own scale (its verdict label), failed, or got worse; and, when the job sets
``audit.flag_pi_at``, when any ALC scenario is vulnerable at matched coverage with at least that
precision improvement. The ALC's graded ``risk`` labels (at risk, serious) are shown beside its
evaluations, never applied to other families. Skipped evaluations (which cannot be attacked by
construction) are listed, never flagged.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from alc_dask.report.sections import with_family
from alc_dask.verdict import Verdict

CHANGES = ("worse", "failed", "new", "same", "better", "skipped")  # report order: what needs attention first
HEADLINE = ["scenario_id", "label", "headline", "value", "low", "high", "threshold"]
COLUMNS = ["scenario_id", "family", "params", "status", "error", "risk", "pi", "pi_vulnerable"]


@dataclass(frozen=True)
class AuditDiff:
    table: pd.DataFrame
    """Per evaluation: family, status, verdict ``label`` and headline ``value`` [``low``, ``high``]
    now and before (``*_before``), the ``change``, the ALC's graded ``risk``, and for ALC scenarios
    the precision improvement ``pi`` and whether it makes them vulnerable."""
    flag_pi_at: float | None = None
    worse_by: float = 0.05

    @property
    def flagged(self) -> pd.DataFrame:
        return self.table[self.reasons.str.len() > 0]

    @property
    def reasons(self) -> pd.Series:
        """Why each evaluation is flagged, comma-separated (empty: it is not)."""
        t = self.table
        flags = {
            "label flagged": t["label"] == "flagged",
            "worse": t["change"] == "worse",
            "failed": t["change"] == "failed",
            "precision improvement": self._pi_flagged(),
        }
        flags = {name: flagged.to_numpy(dtype=bool) for name, flagged in flags.items()}
        return pd.Series([", ".join(name for name, flagged in flags.items() if flagged[i]) for i in range(len(t))], index=t.index, dtype=str)

    def _pi_flagged(self) -> pd.Series:
        t = self.table
        if self.flag_pi_at is None:
            return pd.Series(False, index=t.index)
        return t["pi_vulnerable"].astype("boolean").fillna(False).astype(bool) & (t["pi"] >= self.flag_pi_at)

    @property
    def skipped(self) -> pd.DataFrame:
        return self.table[self.table["status"] == "skipped"]

    @property
    def passed(self) -> bool:
        return self.flagged.empty


def headlines(verdict: Verdict | None) -> pd.DataFrame:
    """Per evaluation of ``verdict``: its id, label and headline with its interval (unknown bounds: NaN)."""
    rows = (
        []
        if verdict is None
        else [(e.id, e.label, e.headline.name, e.headline.value, e.headline.low, e.headline.high, e.headline.threshold) for e in verdict.evaluations]
    )
    return pd.DataFrame(rows, columns=HEADLINE).astype({name: float for name in ("value", "low", "high", "threshold")})


def compare(current: pd.DataFrame, verdict: Verdict, previous: Verdict | None, worse_by: float = 0.05, flag_pi_at: float | None = None) -> AuditDiff:
    """``current``: this audit's scores (statuses, errors, ``risk`` of the families that keep a risk
    label, the ALC's ``pi``); ``verdict``
    its verdict; ``previous`` the previous audit's verdict (None: there is none)."""
    now = with_family(current).reindex(columns=COLUMNS)
    before = headlines(previous).drop(columns=["headline", "threshold"]).add_suffix("_before").rename(columns={"scenario_id_before": "scenario_id"})
    table = now.merge(headlines(verdict), on="scenario_id", how="left").merge(before, on="scenario_id", how="left")
    table["change"] = pd.Categorical([_change(row, worse_by) for row in table.itertuples(index=False)], categories=list(CHANGES), ordered=True)
    return AuditDiff(table.sort_values(["change", "value"], ascending=[True, False]).reset_index(drop=True), flag_pi_at, worse_by)


def _change(row, worse_by: float) -> str:
    if row.status == "skipped":
        return "skipped"
    if row.status != "ok":
        return "failed"
    if np.isnan(row.value_before):
        return "new"
    if _has_interval(row.low, row.high) and _has_interval(row.low_before, row.high_before):
        lower, higher = row.high < row.low_before, row.low > row.high_before
    else:
        lower, higher = row.value < row.value_before - worse_by, row.value > row.value_before + worse_by
    return "worse" if higher else "better" if lower else "same"


def _has_interval(low: float, high: float) -> bool:
    """Both ends known and apart: a point (the relative threat's) has none."""
    return bool(np.isfinite(low) and np.isfinite(high) and low < high)


def audit_markdown(diff: AuditDiff, release: str, stamp: str, previous_stamp: str | None, skipped: Sequence[str] = (), verdict: Verdict | None = None) -> str:
    """The report; ``skipped``: later audits than the previous one whose results could not be read."""
    criteria = "flagged, worse than at the previous audit or failed" + (
        "" if diff.flag_pi_at is None else f", or vulnerable with precision improvement >= {diff.flag_pi_at:g}"
    )
    outcome = f"PASSED: no evaluation {criteria}" if diff.passed else f"FLAGGED: {len(diff.flagged)} evaluation(s) {criteria}"
    if len(diff.skipped):
        outcome += f"; {len(diff.skipped)} skipped (cannot be attacked), listed below"
    against = f"compared with the audit of {previous_stamp}" if previous_stamp else "no previous audit to compare with"
    if skipped:
        against += f"; skipped, as their results cannot be read: {', '.join(skipped)}"
    counts = diff.table["change"].astype(str).value_counts()
    changes = ", ".join(f"{name} {counts[name]}" for name in CHANGES if name in counts)
    lines = [f"# Audit of release {release}, {stamp}", "", f"**{outcome}** ({against}).", ""]
    if verdict is not None:
        lines += [f"Verdict of this audit: {verdict.verdict}.", ""]
    lines += [
        f"Changes: {changes}. Worse: the headline's interval now lies wholly above the previous audit's; for a headline without an "
        f"interval, its value is more than {diff.worse_by:g} higher.",
        "",
        "History of the release's audits: `history.md` and `history.png`, beside this report.",
        "",
    ]
    evaluated = diff.table[diff.table["status"] != "skipped"]
    if len(evaluated):
        lines += ["## Evaluations", "", _table(diff, evaluated), ""]
    if len(diff.skipped):
        lines += ["## Skipped evaluations", "", *(f"- {row.scenario_id} ({row.family}, {row.params}): {row.error}" for row in diff.skipped.itertuples()), ""]
    return "\n".join(lines).rstrip() + "\n"


def _table(diff: AuditDiff, frame: pd.DataFrame) -> str:
    """Flagged evaluations first, then by change."""
    reasons = diff.reasons.loc[frame.index]
    frame = frame.assign(flagged=reasons).iloc[np.argsort(reasons.eq("").to_numpy(), kind="stable")]
    columns = ["evaluation", "family", "label", "label before", "headline", "now", "before", "change", "why flagged"]
    rows = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in frame.itertuples(index=False):
        label = row.label if pd.isna(row.risk) or pd.isna(row.label) else f"{row.label} ({row.risk})"
        cells = [row.scenario_id, row.family, label, row.label_before, row.headline, _interval(row.value, row.low, row.high)]
        cells += [_interval(row.value_before, row.low_before, row.high_before), row.change, row.flagged]
        rows.append("| " + " | ".join("" if pd.isna(cell) else str(cell).replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows)


def _interval(value: float, low: float, high: float) -> str | None:
    if np.isnan(value):
        return None
    return f"{value:.3f} [{low:.3f}, {high:.3f}]" if _has_interval(low, high) else f"{value:.3f}"
