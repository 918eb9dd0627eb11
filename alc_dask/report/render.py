"""A summary as plain text (terminal), Markdown, and self-contained HTML (plots embedded as base64)."""

import base64
import html
from pathlib import Path

import pandas as pd

from alc_dask.report.plots import alc_by_secret, precision_vs_alc
from alc_dask.report.summary import Summary

_ROUND = {"alc": 3, "attack_precision": 3, "attack_recall": 3}


def as_text(summary: Summary) -> str:
    parts = [f"{_counts(summary)}", "", "Scenarios per risk label:", summary.label_counts.to_string()]
    if len(summary.scores):
        parts += ["", "Worst scenarios:", _rounded(summary.worst).to_string(index=False, max_colwidth=48)]
        parts += ["", "Best ALC per secret column:", _rounded(summary.best_per_secret).to_string(index=False, max_colwidth=48)]
    if len(summary.failed):
        parts += ["", "Failed scenarios:", summary.failed.to_string(index=False, max_colwidth=100)]
    if len(summary.skipped):
        parts += ["", "Skipped scenarios (cannot be attacked):", summary.skipped.to_string(index=False, max_colwidth=100)]
    return "\n".join(parts) + "\n"


def as_markdown(summary: Summary, title: str = "ALC summary", plots: dict[str, str] | None = None) -> str:
    """Markdown; ``plots`` maps a caption to an image path to link (relative to the Markdown file)."""
    parts = [f"# {title}", "", f"{_counts(summary)}.", "", "## Scenarios per risk label", "", _md(summary.label_counts.reset_index())]
    if len(summary.scores):
        parts += ["", "## Worst scenarios", "", _md(_rounded(summary.worst)), "", "## Best ALC per secret column", "", _md(_rounded(summary.best_per_secret))]
    for caption, path in (plots or {}).items():
        parts += ["", f"## {caption}", "", f"![{caption}]({path})"]
    if len(summary.failed):
        parts += ["", "## Failed scenarios", "", _md(summary.failed)]
    if len(summary.skipped):
        parts += ["", "## Skipped scenarios (cannot be attacked)", "", _md(summary.skipped)]
    return "\n".join(parts) + "\n"


def as_html(summary: Summary, title: str = "ALC summary") -> str:
    sections = [f"<h1>{html.escape(title)}</h1>", f"<p>{_counts(summary)}.</p>", "<h2>Scenarios per risk label</h2>", summary.label_counts.to_html()]
    if len(summary.scores):
        sections += ["<h2>Worst scenarios</h2>", _rounded(summary.worst).to_html(index=False), "<h2>Best ALC per secret column</h2>", _rounded(summary.best_per_secret).to_html(index=False)]
        for caption, png in figures(summary).items():
            sections += [f"<h2>{caption}</h2>", f'<img alt="{caption}" src="data:image/png;base64,{base64.b64encode(png).decode()}">']
    if len(summary.failed):
        sections += ["<h2>Failed scenarios</h2>", summary.failed.to_html(index=False)]
    if len(summary.skipped):
        sections += ["<h2>Skipped scenarios (cannot be attacked)</h2>", summary.skipped.to_html(index=False)]
    style = "body{font-family:sans-serif;max-width:70em;margin:2em auto}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}img{max-width:100%}"
    return f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>{style}</style></head><body>{''.join(sections)}</body></html>\n"


def figures(summary: Summary) -> dict[str, bytes]:
    return {"Attack precision vs ALC (colour: recall)": precision_vs_alc(summary.scores), "ALC per secret column": alc_by_secret(summary.scores)}


def write_report(summary: Summary, folder: str | Path, title: str = "ALC summary") -> dict[str, Path]:
    """summary.txt, summary.md (with the plots as PNG files beside it) and report.html in ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    links = {}
    if len(summary.scores):
        for number, (caption, png) in enumerate(figures(summary).items(), start=1):
            (folder / f"plot-{number}.png").write_bytes(png)
            links[caption] = f"plot-{number}.png"
    paths = {"text": folder / "summary.txt", "markdown": folder / "summary.md", "html": folder / "report.html"}
    paths["text"].write_text(as_text(summary))
    paths["markdown"].write_text(as_markdown(summary, title, links))
    paths["html"].write_text(as_html(summary, title))
    return paths


def _counts(summary: Summary) -> str:
    return f"{summary.total} scenarios, {len(summary.failed)} failed, {len(summary.skipped)} skipped"


def _rounded(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.round({k: v for k, v in _ROUND.items() if k in frame.columns})


def _md(frame: pd.DataFrame) -> str:
    """A pipe table (pandas' to_markdown needs the optional tabulate package)."""
    cells = [[str(c) for c in frame.columns]] + [["" if pd.isna(v) else str(v).replace("|", "\\|") for v in row] for row in frame.itertuples(index=False)]
    lines = ["| " + " | ".join(row) + " |" for row in cells]
    lines.insert(1, "|" + "---|" * len(frame.columns))
    return "\n".join(lines)
