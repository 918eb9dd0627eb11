"""A summary as plain text (terminal), Markdown, and self-contained HTML (plots embedded as base64)."""

import base64
import html
from pathlib import Path

import pandas as pd

from alc_dask.report.summary import Summary
from alc_dask.results.files import join, write_file

_ROUND = 3


def as_text(summary: Summary) -> str:
    parts = [_headline(summary), "", "Evaluations per risk label:", summary.label_counts.to_string()]
    for section in summary.sections:
        parts += ["", f"== {section.title} ==", *section.notes]
        for caption, table in section.tables.items():
            parts += ["", f"{caption}:", _rounded(table).to_string(index=False, max_colwidth=48)]
    for caption, table in _unfinished(summary).items():
        parts += ["", f"{caption}:", table.to_string(index=False, max_colwidth=100)]
    return "\n".join(parts) + "\n"


def as_markdown(summary: Summary, title: str = "alc_dask summary", plots: dict[str, str] | None = None) -> str:
    """Markdown; ``plots`` maps a caption to an image path to link (relative to the Markdown file)."""
    parts = [f"# {title}", "", f"{_headline(summary)}.", "", "## Evaluations per risk label", "", markdown_table(summary.label_counts.reset_index())]
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


def as_html(summary: Summary, title: str = "alc_dask summary") -> str:
    parts = [
        f"<h1>{html.escape(title)}</h1>",
        f"<p>{html.escape(_headline(summary))}.</p>",
        "<h2>Evaluations per risk label</h2>",
        summary.label_counts.to_html(),
    ]
    for section in summary.sections:
        parts += [f"<h2>{html.escape(section.title)}</h2>", *(f"<p><b>{html.escape(note)}</b></p>" for note in section.notes)]
        for caption, table in section.tables.items():
            parts += [f"<h3>{html.escape(caption)}</h3>", _rounded(table).to_html(index=False, na_rep="")]
        for caption, png in section.figures.items():
            parts += [f"<h3>{html.escape(caption)}</h3>", f'<img alt="{html.escape(caption)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">']
    for caption, table in _unfinished(summary).items():
        parts += [f"<h2>{caption}</h2>", table.to_html(index=False)]
    style = "body{font-family:sans-serif;max-width:80em;margin:2em auto}table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #ccc;padding:2px 6px}img{max-width:100%}"
    return f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>{style}</style></head><body>{''.join(parts)}</body></html>\n"


def write_report(summary: Summary, folder: str | Path, title: str = "alc_dask summary") -> dict[str, Path | str]:
    """summary.txt, summary.md (with the plots as PNG files beside it) and report.html in ``folder``,
    a local folder or an fsspec URL; each file is written whole or not at all."""
    links = {}
    figures = [(caption, png) for section in summary.sections for caption, png in section.figures.items()]
    for number, (caption, png) in enumerate(figures, start=1):
        write_file(join(folder, f"plot-{number}.png"), png)
        links[caption] = f"plot-{number}.png"
    paths = {"text": join(folder, "summary.txt"), "markdown": join(folder, "summary.md"), "html": join(folder, "report.html")}
    write_file(paths["text"], as_text(summary).encode())
    write_file(paths["markdown"], as_markdown(summary, title, links).encode())
    write_file(paths["html"], as_html(summary, title).encode())
    return paths


def _headline(summary: Summary) -> str:
    skipped = f", {len(summary.skipped)} skipped" if len(summary.skipped) else ""
    return f"{summary.total} scenarios, {len(summary.failed)} failed{skipped}"


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
