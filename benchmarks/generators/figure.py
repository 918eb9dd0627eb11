"""The benchmark's figure: for each release, each tool's headline risk, one panel per dataset.

alc_dask's point is its highest WP29 risk (singling out, linkability, inference: the scale
Anonymeter uses) with its verdict as the marker's colour; Anonymeter's its highest risk; SDMetrics'
1 − DCROverfittingProtection; SynthEval's ε-identifiability risk. Intervals where the tool gives one.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

VERDICT_COLOURS = {"flagged": "tab:red", "inconclusive": "tab:orange", "pass": "tab:green"}
WP29 = ("singling_out", "linkability", "inference")
SERIES = (
    ("anonymeter", lambda rows: rows[rows["measure"].str.startswith(WP29)], "Anonymeter (highest risk)", "s", "tab:blue"),
    ("sdmetrics", lambda rows: rows[rows["measure"] == "DCROverfittingProtection"], "SDMetrics 1 − DCROverfittingProtection", "^", "tab:purple"),
    ("syntheval", lambda rows: rows[rows["measure"] == "eps_risk:eps_identif_risk"], "SynthEval ε-identifiability risk", "v", "tab:brown"),
)


def highest(rows: pd.DataFrame) -> pd.Series | None:
    rows = rows[rows["value"].notna()]
    return None if rows.empty else rows.loc[rows["value"].idxmax()]


def draw(frame: pd.DataFrame, path) -> None:
    datasets = list(dict.fromkeys(frame["dataset"]))
    figure, axes = plt.subplots(len(datasets), 1, figsize=(12, 4.2 * len(datasets)), squeeze=False)
    for axis, dataset in zip(axes[:, 0], datasets):
        rows = frame[frame["dataset"] == dataset]
        releases = list(dict.fromkeys(rows["release"]))
        for position, release in enumerate(releases):
            of_release = rows[rows["release"] == release]
            _alc_point(axis, position, of_release[of_release["evaluator"] == "alc_dask"])
            for offset, (evaluator, choose, label, marker, colour) in enumerate(SERIES, start=1):
                point = highest(choose(of_release[of_release["evaluator"] == evaluator]))
                if point is not None:
                    _point(axis, position + 0.15 * offset, point, marker, colour, label)
        axis.set_xticks(range(len(releases)), releases, rotation=25, ha="right")
        axis.set_ylabel("risk (higher: worse)")
        axis.set_ylim(-0.05, 1.05)
        axis.set_title(f"{dataset}: each tool's headline risk per release")
        axis.grid(axis="y", alpha=0.3)
        handles, labels = axis.get_legend_handles_labels()
        unique = dict(zip(labels, handles))
        axis.legend(unique.values(), unique.keys(), fontsize=7, loc="upper right")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _alc_point(axis, position: float, rows: pd.DataFrame) -> None:
    if rows.empty:
        return
    verdict = rows[rows["measure"] == "verdict"]["verdict"].iloc[0]
    point = highest(rows[rows["family"].isin(WP29)])
    if point is not None:
        _point(axis, position, point, "o", VERDICT_COLOURS[verdict], f"alc_dask highest WP29 risk (colour: verdict {verdict})")


def _point(axis, x: float, point: pd.Series, marker: str, colour: str, label: str) -> None:
    low, high = point.get("low"), point.get("high")
    if pd.notna(low) and pd.notna(high):
        axis.errorbar(x, point["value"], yerr=[[point["value"] - low], [high - point["value"]]], fmt=marker, color=colour, label=label, capsize=2)
    else:
        axis.plot(x, point["value"], marker, color=colour, label=label)
