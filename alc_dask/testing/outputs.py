"""What people read of a family's results, checked: its report section, written in the report, and
the nightly audit, which compares each evaluation on the family's headline with the previous audit."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from alc_dask.families import EvaluationFamily
from alc_dask.families.presentation import Section
from alc_dask.report import summarize, write_report
from alc_dask.report.nightly import run_audit
from alc_dask.testing.contract import expect
from alc_dask.testing.values import same

PNG = b"\x89PNG\r\n\x1a\n"
STAMPS = ("2026-01-01T000000Z", "2026-01-02T000000Z")
"""The two audits' stamps: the second compares with the first."""


def check_report(cls: type[EvaluationFamily], scores: pd.DataFrame, folder: Path) -> Section:
    """The family's section in the summary of its scores, with tables and figures, written in the report."""
    name = cls.name
    summary = summarize(scores.reset_index())
    expect(len(summary.sections) == 1, name, "report_section", f"a job of this family alone gave {len(summary.sections)} report sections")
    section = summary.sections[0]
    expect(isinstance(section, Section), name, "report_section", f"returned {type(section).__name__}, not alc_dask.families.presentation.Section")
    expect(bool(section.tables), name, "report_section", f"section {section.title!r} has no table")
    wrong = [caption for caption, table in section.tables.items() if not isinstance(table, pd.DataFrame)]
    expect(not wrong, name, "report_section", f"tables {wrong} are not DataFrames")
    expect(any(len(table) for table in section.tables.values()), name, "report_section", f"every table of section {section.title!r} is empty")
    wrong = [caption for caption, png in section.figures.items() if not (isinstance(png, bytes) and png.startswith(PNG))]
    expect(not wrong, name, "report_section", f"figures {wrong} are not PNG bytes")
    paths = write_report(summary, folder, title=f"check of {name}")
    markdown, html = Path(paths["markdown"]).read_text(), Path(paths["html"]).read_text()
    headings = [f"## {section.title}", *(f"### {caption}" for caption in [*section.tables, *section.figures])]
    missing = [heading for heading in headings if heading not in markdown]
    expect(not missing, name, "report", f"{paths['markdown']} lacks {missing}")
    expect(section.title in html, name, "report", f"{paths['html']} lacks the section {section.title!r}")
    plots = sorted(Path(folder).glob("plot-*.png"))
    expect(len(plots) == len(section.figures), name, "report", f"{len(section.figures)} figures, {len(plots)} plot files written")
    return section


def check_audits(cls: type[EvaluationFamily], job: Path, scheduler: str, workers: int, out: Path, scores: pd.DataFrame) -> None:
    """Two nightly audits of the job: the first has nothing to compare with, the second compares
    every evaluation with the first on the family's headline, and finds each the same."""
    name = cls.name
    first = run_audit(job, scheduler=scheduler, workers=workers, out=out, stamp=STAMPS[0], progress=False)
    expect(first.previous is None, name, "audit", f"the first audit compared with {first.previous!r}")
    second = run_audit(job, scheduler=scheduler, workers=workers, out=out, stamp=STAMPS[1], progress=False)
    expect(second.previous == STAMPS[0], name, "audit", f"the second audit compared with {second.previous!r}, not the first ({STAMPS[0]})")
    expect(
        f"compared with the audit of {STAMPS[0]}" in second.markdown, name, "audit", f"the audit report does not say what it compared with:\n{second.markdown}"
    )
    table = second.diff.table.set_index("scenario_id")
    ok = scores[scores["status"] == "ok"]
    problems = [_unlike(table, scenario, headline) for scenario, headline in ok[cls.headline].items()]
    problems = [problem for problem in problems if problem]
    expect(not problems, name, "audit", f"audits of the same job and seed must find every evaluation the same, on the headline {cls.headline!r}: {problems}")


def _unlike(table: pd.DataFrame, scenario: str, headline: float) -> str | None:
    """How the audit's comparison of ``scenario`` is not "the same, at ``headline``", if it is not."""
    if scenario not in table.index:
        return f"{scenario}: not in the audit"
    row = table.loc[scenario]
    if row["change"] != "same" or not same(float(headline), row["value"]) or not same(float(headline), row["value_before"]):
        return f"{scenario}: {row['change']} (headline {row['value_before']} then {row['value']}; the job's run: {headline})"
    return None
