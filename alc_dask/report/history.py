"""A release's audits over time: every complete audit's verdict and headlines, as a table and a plot.

An audit is complete when its report ``audit-<stamp>.md`` exists (written last), so an interrupted
audit is never part of the history; its headlines are those of its ``verdict.json``, each with the
interval and the threshold it was judged by. Audits that predate ``verdict.json`` have none and are
left out, as is one whose file no longer reads (named on stderr).
"""

import os

import numpy as np
import pandas as pd
from pydantic import ValidationError

from alc_dask.engine.progress import say
from alc_dask.families.presentation import colours, new_panels, png_bytes
from alc_dask.results.files import Files, join, write_file
from alc_dask.verdict import Verdict, read_verdict

COLUMNS = ["stamp", "verdict", "family", "id", "label", "headline", "value", "low", "high", "threshold"]
VERDICT_COLOURS = {"pass": "tab:green", "inconclusive": "tab:orange", "flagged": "tab:red"}
LABEL_MARKERS = {"pass": "o", "inconclusive": "s", "flagged": "X"}
KEY = "Dashed: the family's threshold. Markers: o pass, s inconclusive, X flagged. Shading: the audit's verdict."
LEGEND_AT_MOST = 8  # evaluations per panel named in a legend; more would hide the plot


def complete_audits(folder: str | os.PathLike, before: str | None = None) -> list[str]:
    """Stamps of the audits (earlier than ``before``, if given) that finished (wrote their report),
    oldest first (stamps sort as times)."""
    files = Files(folder)
    return sorted(name for name in files.folders(files.root) if (before is None or name < before) and files.exists(files.path(name, f"audit-{name}.md")))


def audit_history(folder: str | os.PathLike, before: str | None = None) -> pd.DataFrame:
    """A release's audits over time: one row per complete audit and evaluation, oldest first, with
    the verdict, each evaluation's label and its headline with interval and threshold.

    Parameters
    ----------
    folder : path or URL
        The release's audit folder (``audit.folder`` of its job), holding one folder per audit.
    before : str, optional
        Only audits stamped earlier than this.

    Returns
    -------
    pandas.DataFrame
        Columns ``stamp``, ``verdict``, ``family``, ``id``, ``label``, ``headline``, ``value``,
        ``low``, ``high``, ``threshold``; an audit without evaluations (all failed) has one row without.

    Examples
    --------
    Before the first audit, the history is empty:

    >>> from alc_dask.report.history import audit_history
    >>> history = audit_history("audits")
    >>> len(history), list(history.columns[:5])
    (0, ['stamp', 'verdict', 'family', 'id', 'label'])
    """
    frames = []
    for stamp in complete_audits(folder, before):
        try:
            verdict = read_verdict(join(folder, stamp))
        except ValidationError as error:
            say(f"{join(folder, stamp, 'verdict.json')}: left out of the history, it does not read: {error.errors()[0]['msg']}")
            continue
        if verdict is not None:
            frames.append(history_rows(stamp, verdict))
    return pd.concat(frames, ignore_index=True) if frames else history_rows("", None)


def history_rows(stamp: str, verdict: Verdict | None) -> pd.DataFrame:
    """The rows of one audit's ``verdict`` (None: no rows)."""
    if verdict is None:
        rows = []
    else:
        rows = [
            (stamp, verdict.verdict, e.family, e.id, e.label, e.headline.name, e.headline.value, e.headline.low, e.headline.high, e.headline.threshold)
            for e in verdict.evaluations
        ] or [(stamp, verdict.verdict, *[None] * (len(COLUMNS) - 2))]
    return pd.DataFrame(rows, columns=COLUMNS).astype({name: float for name in ("value", "low", "high", "threshold")})


def history_markdown(history: pd.DataFrame, release: str) -> str:
    """The verdict of each audit, then every headline with its interval, audit by audit."""
    lines = [f"# Audit history of release {release}", "", "| audit | verdict | flagged | inconclusive | pass |", "|---|---|---|---|---|"]
    for (stamp, verdict), audit in history.groupby(["stamp", "verdict"], sort=True):
        counts = audit["label"].value_counts()
        lines.append(f"| {stamp} | {verdict} | " + " | ".join(str(counts.get(label, 0)) for label in ("flagged", "inconclusive", "pass")) + " |")
    evaluated = history.dropna(subset=["id"])
    if len(evaluated):
        lines += ["", "## Headlines", "", "| audit | family | evaluation | label | headline | value [low, high] | threshold |", "|---|---|---|---|---|---|---|"]
        for row in evaluated.sort_values(["family", "id", "stamp"]).itertuples(index=False):
            bounds = "" if np.isnan(row.low) or np.isnan(row.high) or row.low == row.high else f" [{row.low:.3f}, {row.high:.3f}]"
            value = "" if np.isnan(row.value) else f"{row.value:.3f}{bounds}"
            threshold = "" if np.isnan(row.threshold) else f"{row.threshold:g}"
            lines.append(f"| {row.stamp} | {row.family} | {row.id} | {row.label} | {row.headline} | {value} | {threshold} |")
    return "\n".join(lines) + "\n"


def history_figure(history: pd.DataFrame) -> bytes:
    """The headlines over the audits, a panel per family: each evaluation a colour, its interval as
    error bars, its label as the marker, the family's threshold as a dashed line at each audit; each
    audit shaded and named in the colour of its verdict. PNG bytes."""
    stamps = sorted(history["stamp"].unique())
    verdicts = history.drop_duplicates("stamp").set_index("stamp")["verdict"]
    evaluated = history.dropna(subset=["id"])
    families = list(dict.fromkeys(evaluated.sort_values(["family"])["family"])) or [None]
    position = {stamp: x for x, stamp in enumerate(stamps)}
    width = min(12.0, 5.5 + 0.45 * len(stamps))
    fig, axes = new_panels(len(families), width, 0.6 + 2.4 * len(families))
    for ax, family in zip(axes, families, strict=True):
        for x, stamp in enumerate(stamps):
            ax.axvspan(x - 0.5, x + 0.5, color=VERDICT_COLOURS.get(verdicts[stamp], "grey"), alpha=0.12, linewidth=0)
        if family is None:
            ax.set_title("no evaluation", fontsize=9)
            continue
        _family_panel(ax, evaluated[evaluated["family"] == family], position)
    _audit_axis(axes[-1], stamps, verdicts)
    fig.suptitle(KEY, fontsize=8, x=0.01, ha="left")
    return png_bytes(fig)


def _family_panel(ax, rows: pd.DataFrame, position: dict[str, int]) -> None:
    ids = sorted(rows["id"].unique())
    offsets = np.linspace(-0.25, 0.25, len(ids)) if len(ids) > 1 else [0.0]
    size = 36 if len(position) <= 12 else 16
    for evaluation, offset, colour in zip(ids, offsets, colours(len(ids)), strict=True):
        runs = rows[rows["id"] == evaluation].sort_values("stamp")
        x = runs["stamp"].map(position).to_numpy(dtype=float) + offset
        value, low, high = (runs[name].to_numpy(dtype=float) for name in ("value", "low", "high"))
        below, above = np.nan_to_num(value - low).clip(min=0), np.nan_to_num(high - value).clip(min=0)
        ax.errorbar(x, value, yerr=[below, above], color=colour, linewidth=1, capsize=3, label=evaluation if len(ids) <= LEGEND_AT_MOST else None)
        for label, marker in LABEL_MARKERS.items():
            at = (runs["label"] == label).to_numpy()
            ax.scatter(x[at], value[at], marker=marker, color=colour, edgecolors="black", linewidths=0.5, s=size, zorder=3)
    thresholds = rows.groupby("stamp")["threshold"].max().dropna()
    for stamp, threshold in thresholds.items():
        ax.hlines(threshold, position[stamp] - 0.45, position[stamp] + 0.45, colors="firebrick", linestyles="--", linewidth=1)
    family, headline = rows["family"].iloc[0], rows["headline"].iloc[0]
    named = f", {len(ids)} evaluations" if len(ids) > LEGEND_AT_MOST else ""
    ax.set_title(f"{family}: {headline}{named}", fontsize=9, loc="left")
    ax.set_ylabel(headline, fontsize=8)
    ax.tick_params(labelsize=8)
    if len(ids) <= LEGEND_AT_MOST:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)


def _audit_axis(ax, stamps: list[str], verdicts: pd.Series) -> None:
    """Each audit named by its date and time and its verdict, in the verdict's colour; at most about
    a dozen names, the latest audit's always, so that they stay readable."""
    step = max(1, -(-len(stamps) // 12))
    shown = list(range(len(stamps) - 1, -1, -step))[::-1]
    ax.set_xticks(shown, [f"{stamps[x][:10]}\n{stamps[x][11:13]}:{stamps[x][13:15]}Z\n{verdicts[stamps[x]]}" for x in shown], fontsize=7)
    for tick, x in zip(ax.get_xticklabels(), shown, strict=True):
        tick.set_color(VERDICT_COLOURS.get(verdicts[stamps[x]], "black"))
    ax.set_xlim(-0.5, max(len(stamps), 1) - 0.5)
    ax.set_xlabel("audit (UTC) and its verdict", fontsize=8)


def write_history(history: pd.DataFrame, release: str, *folders) -> None:
    """``history.md`` and ``history.png`` in each of ``folders`` (paths or URLs)."""
    markdown, figure = history_markdown(history, release).encode(), history_figure(history)
    for folder in folders:
        write_file(join(folder, "history.md"), markdown)
        write_file(join(folder, "history.png"), figure)
