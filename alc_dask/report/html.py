"""The HTML reports: one self-contained file each (CSS and figures inline, nothing fetched).

In order: the title and releases (with the generator each was made by, as declared); the verdict, big and coloured, with its counts; the scorecard (a
row per family); evaluations per verdict label; the evidence, worst first; the regulator's view;
per-record exposure (internal report only); each family's section; failed and skipped evaluations.
The external report (``external=True``) holds aggregates only, for publishing with the release:
no per-record exposure, no table with a ``record`` column, no error text of failed evaluations.
"""

from __future__ import annotations

import base64
import html
import re

import pandas as pd

from alc_dask.report.html_table import badge, html_table
from alc_dask.report.records import TITLE as EXPOSURE_TITLE
from alc_dask.report.records import explanation, most_exposed
from alc_dask.report.regulator import ICO, ICO_SOURCE, WP29, WP29_SOURCE, regulators_view
from alc_dask.report.scorecard import headline_text, number, scorecard
from alc_dask.report.style import CSS
from alc_dask.report.summary import VERDICT_LABELS, Summary
from alc_dask.verdict import EvaluationVerdict, Verdict, label_text

PER_RECORD = "record"
"""A table with this column is per record of the original: never in the external report."""
RUN_ON = ("scorecard", "per-label", "evidence")
"""Sections printed straight after the one before (the verdict's); every other starts a page of its own."""
RULE = (
    "Each evaluation is labelled on its own family's scale, from its headline's interval: flagged when the interval lies wholly at or past "
    "the family's threshold, pass when wholly below it, inconclusive when it straddles it. The release's verdict is its worst evaluation."
)


def as_html(summary: Summary, title: str = "alc_dask summary", exposure: pd.DataFrame | None = None, external: bool = False) -> str:
    """The report as one HTML document; ``exposure`` (see ``alc_dask.report.records``) is shown only when not ``external``."""
    sections = [
        ("scorecard", "Scorecard", _scorecard(summary.verdict)),
        ("per-label", "Evaluations per verdict label", html_table(summary.verdict_counts.reset_index())),
        ("evidence", "Evidence, worst first", _evidence(summary.verdict)),
        ("regulators-view", "Regulator's view", _regulators_view(summary.verdict)),
    ]
    if exposure is not None and not external:
        shown = most_exposed(exposure)
        sections.append(("exposure", EXPOSURE_TITLE, f"<p class='note'>{html.escape(explanation(exposure, shown))}</p>{html_table(shown)}"))
    sections += [(_slug(section.title), section.title, _family(section, external)) for section in summary.sections]
    if unfinished := _unfinished(summary, external):
        sections.append(("unfinished", "Failed and skipped evaluations", unfinished))
    body = "".join(_section(anchor, heading, content, page=anchor not in RUN_ON) for anchor, heading, content in sections)
    contents = "".join(f"<li><a href='#{anchor}'>{html.escape(heading)}</a></li>" for anchor, heading, _ in sections)
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><meta name='viewport' content='width=device-width,initial-scale=1'>"
        f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>"
        f"{_header(summary, title, external)}<section id='verdict'>{_verdict(summary)}</section><nav><ol>{contents}</ol></nav>{body}</body></html>\n"
    )


def _header(summary: Summary, title: str, external: bool) -> str:
    releases = ", ".join(summary.releases) or "none"
    skipped = f", {len(summary.skipped)} skipped" if len(summary.skipped) else ""
    audience = (
        "External report: aggregates only, for publishing with the release; nothing in it is about one record of the original."
        if external
        else "Internal report: for the data custodian. Publish report-external.html (aggregates only) with the release, not this file."
    )
    declared = "; ".join(f"{release}: {text}" if len(summary.releases) > 1 else text for release, text in summary.generators.items())
    generators = f"<p class='meta'>Made by (as declared): <b>{html.escape(declared)}</b></p>" if declared else ""
    return (
        f"<header><h1>{html.escape(title)}</h1><p class='meta'>Release{'s' if len(summary.releases) > 1 else ''}: <b>{html.escape(releases)}</b> · "
        f"{summary.total} evaluations, {len(summary.failed)} failed{skipped}</p>{generators}<p class='audience'>{audience}</p></header>"
    )


def _section(anchor: str, heading: str, content: str, page: bool) -> str:
    return f"<section id='{anchor}'{' class=page' if page else ''}><h2>{html.escape(heading)}</h2>{content}</section>"


def _verdict(summary: Summary) -> str:
    verdict = summary.verdict
    counts = [f"{n} {label_text(label)}" for label in VERDICT_LABELS if (n := sum(e.label == label for e in verdict.evaluations)) or label != "not_informative"]
    failed = f" · {verdict.failed} failed (a failure makes a passing verdict inconclusive)" if verdict.failed else ""
    releases = ""
    if len(verdict.releases) > 1:  # each release's own verdict under the overall one
        items = "".join(f"<li><span class='label {name}'>{html.escape(name)}</span> {html.escape(release)}</li>" for release, name in verdict.releases.items())
        releases = f"<p>Each release: </p><ul class='releases'>{items}</ul>"
    return (
        f"<div class='verdict {verdict.verdict}'><p class='word'>{verdict.verdict}</p>"
        f"<p class='counts'>{' · '.join(counts)}{failed}, of {len(verdict.evaluations)} evaluations</p>{releases}<p>{html.escape(RULE)}</p></div>"
    )


def _scorecard(verdict: Verdict) -> str:
    card = scorecard(verdict)
    if card.empty:
        return "<p>No evaluation finished: nothing to judge.</p>"
    card["threshold"] = [number(value) if value is not None else "none stated" for value in card["threshold"]]
    return html_table(card)


def _evidence(verdict: Verdict) -> str:
    attention = [e for e in verdict.evaluations if e.label not in ("pass", "not_informative")]
    passed = [e for e in verdict.evaluations if e.label == "pass"]
    silent = [e for e in verdict.evaluations if e.label == "not_informative"]
    parts = [f"<ol class='evidence'>{''.join(map(_evidence_item, attention))}</ol>" if attention else "<p>No evaluation is flagged or inconclusive.</p>"]
    if passed:
        parts.append(f"<details><summary>{len(passed)} evaluation(s) pass</summary><ol class='evidence'>{''.join(map(_evidence_item, passed))}</ol></details>")
    if silent:
        parts.append(
            f"<details><summary>{len(silent)} evaluation(s) not informative (they cannot speak of this release; the verdict leaves them out)</summary>"
            f"<ol class='evidence'>{''.join(map(_evidence_item, silent))}</ol></details>"
        )
    return "".join(parts)


def _evidence_item(evaluation: EvaluationVerdict) -> str:
    head = evaluation.headline
    against = f" against {number(head.threshold)}" if head.threshold is not None else ", no threshold stated"
    return (
        f"<li>{badge(evaluation.label)} <span class='who'>{html.escape(evaluation.family)} · {html.escape(evaluation.release)} · "
        f"{html.escape(evaluation.id)}</span><br>{html.escape(evaluation.evidence.rstrip('.'))}. "
        f"<span class='headline'>({html.escape(headline_text(head) + against)})</span></li>"
    )


def _regulators_view(verdict: Verdict) -> str:
    sources = (
        f"<p class='note'><b>{WP29}</b>: {html.escape(WP29_SOURCE)}. <b>{ICO}</b>: {html.escape(ICO_SOURCE)}. "
        "Each family answers one criterion: inference is answered by Anonymeter's inference, the ALC's attribute inference and the relative threat.</p>"
    )
    return sources + html_table(regulators_view(verdict))


def _family(section, external: bool) -> str:
    parts = [f"<p class='note'>{html.escape(note)}</p>" for note in section.notes]
    for caption, table in section.tables.items():
        if (external and PER_RECORD in table.columns) or table.empty:  # a table of no rows says nothing its header could not
            continue
        parts += [f"<h3>{html.escape(caption)}</h3>", html_table(table, label_columns=())]
    for caption, png in section.figures.items():
        parts.append(
            f"<figure><img alt='{html.escape(caption)}' src='data:image/png;base64,{base64.b64encode(png).decode()}'>"
            f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        )
    return "".join(parts)


def _unfinished(summary: Summary, external: bool) -> str:
    if external:
        counts = [f"{len(frame)} {name}" for name, frame in (("failed", summary.failed), ("skipped", summary.skipped)) if len(frame)]
        return f"<p>{', '.join(counts)} (the internal report says why).</p>" if counts else ""
    return "".join(f"<h3>{caption}</h3>{html_table(table)}" for caption, table in (("Failed", summary.failed), ("Skipped", summary.skipped)) if len(table))


def _slug(title: str) -> str:
    return "family-" + re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
