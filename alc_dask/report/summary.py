"""What a results dataset says: the verdict, evaluations per family and verdict label, and a section per family."""

import json
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from alc_dask.measure.dp_audit import generator_text
from alc_dask.measure.verdict import SEVERITY
from alc_dask.report.sections import Section, section_for, with_family
from alc_dask.verdict import Verdict, verdict_of

VERDICT_LABELS = [label.value for label in reversed(SEVERITY)]
"""The verdict's labels, worst first: the columns of ``Summary.verdict_counts``."""


@dataclass(frozen=True)
class Summary:
    scores: pd.DataFrame
    """Successful evaluations."""
    failed: pd.DataFrame
    skipped: pd.DataFrame
    verdict_counts: pd.DataFrame
    """Evaluations per release and family (rows) and verdict label (columns, worst first): each on its
    own family's scale, so that counts of different families may be added up."""
    sections: tuple[Section, ...]
    """What the release keeps (when measured), then one per family present, in the order families first appear."""
    verdict: Verdict

    @property
    def total(self) -> int:
        return len(self.scores) + len(self.failed) + len(self.skipped)

    @property
    def releases(self) -> list[str]:
        """Every release named in the results, in order of appearance."""
        names = pd.concat([frame["release"] for frame in (self.scores, self.failed, self.skipped) if "release" in frame])
        return [str(name) for name in names.dropna().drop_duplicates()]

    @property
    def generators(self) -> dict[str, str]:
        """Release -> how it was made, as its job declares it (``release.generator``, recorded in the
        ``generator`` column of the membership family's rows, which read a declared ε against the attacks)."""
        if "generator" not in self.scores:
            return {}
        declared = self.scores.dropna(subset=["generator"]).drop_duplicates("release")
        return {str(release): generator_text(json.loads(text)) for release, text in zip(declared["release"], declared["generator"])}

    def section(self, title_start: str) -> Section:
        return next(s for s in self.sections if s.title.startswith(title_start))


def summarize(scores: pd.DataFrame, thresholds: Mapping[str, float] | None = None, verdict: Verdict | None = None) -> Summary:
    """The summary of a scores table; ``thresholds`` replace families' own in the verdict (family ->
    value); ``verdict``: the one the run wrote (``read_verdict``), read rather than judged again."""
    scores = with_family(scores)
    ok = scores[scores["status"] == "ok"].reset_index(drop=True)
    unfinished = ["release", "family", "scenario_id", "params", "error"]
    failed = scores[scores["status"] == "failed"].reindex(columns=unfinished).reset_index(drop=True)
    skipped = scores[scores["status"] == "skipped"].reindex(columns=unfinished).rename(columns={"error": "reason"}).reset_index(drop=True)
    verdict = verdict if verdict is not None else verdict_of(scores, thresholds)
    sections = tuple(section_for(family, ok[ok["family"] == family]) for family in ok["family"].drop_duplicates())
    if verdict.fidelity is not None:
        from alc_dask.utility.section import fidelity_section

        sections = (fidelity_section(verdict.fidelity), *sections)
    return Summary(ok, failed, skipped, verdict_counts(verdict), sections, verdict)


def verdict_counts(verdict: Verdict) -> pd.DataFrame:
    """Evaluations per release and family (sorted) and verdict label (worst first)."""
    labelled = pd.DataFrame([(e.release, e.family, e.label) for e in verdict.evaluations], columns=["release", "family", "label"])
    if labelled.empty:
        return pd.DataFrame(columns=VERDICT_LABELS, index=pd.MultiIndex.from_tuples([], names=["release", "family"]), dtype=int)
    counts = pd.crosstab([labelled["release"], labelled["family"]], labelled["label"]).reindex(columns=VERDICT_LABELS, fill_value=0)
    counts.columns.name = None
    return counts
