"""What a results dataset says: evaluations per family and risk label, and a section per family."""

from dataclasses import dataclass

import pandas as pd

from alc_dask.measure import LABELS
from alc_dask.report.sections import Section, section_for, with_family


@dataclass(frozen=True)
class Summary:
    scores: pd.DataFrame
    """Successful evaluations."""
    failed: pd.DataFrame
    skipped: pd.DataFrame
    label_counts: pd.DataFrame
    """Evaluations per release and family (rows) and risk label (columns, mildest first)."""
    sections: tuple[Section, ...]
    """One per family present, in the order families first appear."""

    @property
    def total(self) -> int:
        return len(self.scores) + len(self.failed) + len(self.skipped)

    def section(self, title_start: str) -> Section:
        return next(s for s in self.sections if s.title.startswith(title_start))


def summarize(scores: pd.DataFrame) -> Summary:
    scores = with_family(scores)
    ok = scores[scores["status"] == "ok"].reset_index(drop=True)
    unfinished = ["release", "family", "scenario_id", "params", "error"]
    failed = scores[scores["status"] == "failed"].reindex(columns=unfinished).reset_index(drop=True)
    skipped = scores[scores["status"] == "skipped"].reindex(columns=unfinished).rename(columns={"error": "reason"}).reset_index(drop=True)
    counts = (
        pd.crosstab([ok["release"], ok["family"]], pd.Categorical(ok["risk"], categories=list(LABELS)), dropna=False)
        if len(ok)
        else pd.DataFrame(columns=list(LABELS))
    )
    counts = counts.reindex(columns=list(LABELS), fill_value=0)
    counts.columns.name = None
    sections = tuple(section_for(family, ok[ok["family"] == family]) for family in ok["family"].drop_duplicates())
    return Summary(ok, failed, skipped, counts, sections)
