"""A summary as plain text (terminal), Markdown and HTML, and the report folder that holds them."""

from pathlib import Path

import pandas as pd

from alc_dask.report.html import as_html
from alc_dask.report.records import TITLE as EXPOSURE_TITLE
from alc_dask.report.records import explanation, most_exposed
from alc_dask.report.regulator import regulators_view
from alc_dask.report.scorecard import scorecard
from alc_dask.report.summary import Summary
from alc_dask.results.files import join, write_file
from alc_dask.verdict import verdict_lines, write_verdict

__all__ = ["as_html", "as_markdown", "as_text", "markdown_table", "write_report"]

_ROUND = 3
PER_LABEL = "Evaluations per verdict label"


def as_text(summary: Summary) -> str:
    parts = [_headline(summary), *verdict_lines(summary.verdict), "", f"{PER_LABEL}:", _counts(summary).to_string(index=False)]
    for section in summary.sections:
        parts += ["", f"== {section.title} ==", *section.notes]
        for caption, table in section.tables.items():
            parts += ["", f"{caption}:", _rounded(table).to_string(index=False, max_colwidth=48)]
    for caption, table in _unfinished(summary).items():
        parts += ["", f"{caption}:", table.to_string(index=False, max_colwidth=100)]
    return "\n".join(parts) + "\n"


def as_markdown(summary: Summary, title: str = "alc_dask summary", plots: dict[str, str] | None = None, exposure: pd.DataFrame | None = None) -> str:
    """Markdown; ``plots`` maps a caption to an image path to link (relative to the Markdown file)."""
    verdict = summary.verdict
    parts = [f"# {title}", "", f"{_headline(summary)}.", "", f"**{verdict_lines(verdict, most=0)[0]}**", ""]
    parts += ["## Scorecard", "", markdown_table(scorecard(verdict)), "", f"## {PER_LABEL}", "", markdown_table(_counts(summary))]
    parts += ["", "## Evidence, worst first", "", *(f"- {e.label}: {e.family} {e.release} {e.id}: {e.evidence}" for e in verdict.evaluations)]
    parts += ["", "## Regulator's view", "", markdown_table(regulators_view(verdict))]
    if exposure is not None:
        shown = most_exposed(exposure)
        parts += ["", f"## {EXPOSURE_TITLE}", "", explanation(exposure, shown), "", markdown_table(shown)]
    for section in summary.sections:
        parts += ["", f"## {section.title}", *(f"\n{note}" for note in section.notes)]
        for caption, table in section.tables.items():
            parts += ["", f"### {caption}", "", markdown_table(_rounded(table))]
        for caption in section.figures:
            if caption in (plots or {}):
                parts += ["", f"### {caption}", "", f"![{caption}]({plots[caption]})"]
    for caption, table in _unfinished(summary).items():
        parts += ["", f"## {caption}", "", markdown_table(table)]
    return "\n".join(parts) + "\n"


def write_report(summary: Summary, folder: str | Path, title: str = "alc_dask summary", exposure: pd.DataFrame | None = None) -> dict[str, Path | str]:
    """In ``folder`` (a local folder or an fsspec URL): summary.txt, summary.md (with the plots as PNG
    files beside it), report.html (internal: with ``exposure``, the per-record table of
    ``alc_dask.report.records``), report-external.html (aggregates only) and verdict.json. Each file
    is written whole or not at all."""
    links = {}
    figures = [(caption, png) for section in summary.sections for caption, png in section.figures.items()]
    for number, (caption, png) in enumerate(figures, start=1):
        write_file(join(folder, f"plot-{number}.png"), png)
        links[caption] = f"plot-{number}.png"
    paths = {
        "text": join(folder, "summary.txt"),
        "markdown": join(folder, "summary.md"),
        "html": join(folder, "report.html"),
        "external": join(folder, "report-external.html"),
    }
    write_file(paths["text"], as_text(summary).encode())
    write_file(paths["markdown"], as_markdown(summary, title, links, exposure).encode())
    write_file(paths["html"], as_html(summary, title, exposure).encode())
    write_file(paths["external"], as_html(summary, title, external=True).encode())
    write_verdict(summary.verdict, folder)
    paths["verdict"] = join(folder, "verdict.json")
    return paths


def _headline(summary: Summary) -> str:
    skipped = f", {len(summary.skipped)} skipped" if len(summary.skipped) else ""
    return f"{summary.total} scenarios, {len(summary.failed)} failed{skipped}"


def _counts(summary: Summary) -> pd.DataFrame:
    return summary.verdict_counts.reset_index()


def _unfinished(summary: Summary) -> dict[str, pd.DataFrame]:
    return {caption: table for caption, table in (("Failed scenarios", summary.failed), ("Skipped scenarios", summary.skipped)) if len(table)}


def _rounded(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.round({c: _ROUND for c in frame.columns if pd.api.types.is_float_dtype(frame[c])})


def markdown_table(frame: pd.DataFrame) -> str:
    """A pipe table (pandas' to_markdown needs the optional tabulate package)."""
    cells = [[str(c) for c in frame.columns]] + [["" if pd.isna(v) else str(v).replace("|", "\\|") for v in row] for row in frame.itertuples(index=False)]
    lines = ["| " + " | ".join(row) + " |" for row in cells]
    lines.insert(1, "|" + "---|" * len(frame.columns))
    return "\n".join(lines)
