"""What a results dataset says: risk label counts, the worst scenarios, the best ALC per secret."""

from dataclasses import dataclass

import pandas as pd

from alc_dask.measure import LABELS

WORST_COLUMNS = ["release", "scenario_id", "secret", "known", "baseline", "alc", "risk", "attack_precision", "attack_recall", "halt_code"]


@dataclass(frozen=True)
class Summary:
    scores: pd.DataFrame
    """Successful scenarios."""
    failed: pd.DataFrame
    skipped: pd.DataFrame
    """Scenarios that cannot be attacked by construction, with the ``reason``."""
    label_counts: pd.DataFrame
    """Scenarios per release (rows) and risk label (columns, mildest first)."""
    worst: pd.DataFrame
    best_per_secret: pd.DataFrame
    """Per release and secret: the highest ALC and the scenario giving it."""

    @property
    def total(self) -> int:
        return len(self.scores) + len(self.failed) + len(self.skipped)


def summarize(scores: pd.DataFrame, worst: int = 10) -> Summary:
    ok = scores[scores["status"] == "ok"].reset_index(drop=True)
    failed = scores[~scores["status"].isin(["ok", "skipped"])][["release", "scenario_id", "secret", "error"]].reset_index(drop=True)
    skipped = scores[scores["status"] == "skipped"][["release", "scenario_id", "secret", "error"]].rename(columns={"error": "reason"})
    counts = pd.crosstab(ok["release"], pd.Categorical(ok["risk"], categories=list(LABELS)), dropna=False) if len(ok) else pd.DataFrame(columns=list(LABELS))
    counts = counts.reindex(columns=list(LABELS), fill_value=0)
    counts.columns.name = None
    ranked = ok.sort_values(["alc", "scenario_id"], ascending=[False, True])
    best = ranked.drop_duplicates(["release", "secret"])[["release", "secret", "alc", "risk", "scenario_id", "known", "baseline"]]
    return Summary(
        scores=ok,
        failed=failed,
        skipped=skipped.reset_index(drop=True),
        label_counts=counts,
        worst=ranked.head(worst)[WORST_COLUMNS].reset_index(drop=True),
        best_per_secret=best.sort_values(["release", "alc"], ascending=[True, False]).reset_index(drop=True),
    )
