"""The report section of exact copies: each evaluation's risk beside the two shares it comes from,
and a figure of the shares with their intervals."""

import json

import numpy as np
import pandas as pd

from alc_dask.families.presentation import Section, new_figure, png_bytes

COLUMNS = [
    "release",
    "scenario_id",
    "compared",
    "n_released",
    "n_copies",
    "copy_share",
    "copy_share_low",
    "copy_share_high",
    "control_share",
    "control_share_low",
    "control_share_high",
    "copy_risk",
]


def section(scores: pd.DataFrame) -> Section:
    """The section of this family's successful evaluations (identity columns and its measures)."""
    table = scores.assign(compared=[", ".join(json.loads(columns)) for columns in scores["compared_columns"]])
    table = table.sort_values(["copy_risk", "scenario_id"], ascending=[False, True]).reindex(columns=COLUMNS).reset_index(drop=True)
    return Section("Exact copies", {"Exact copies by risk": table}, {"Released rows copying a row of the original, and of the control": _shares(table)})


def _shares(table: pd.DataFrame) -> bytes:
    rows = table.iloc[::-1].reset_index(drop=True)  # the worst on top
    fig, ax = new_figure(7.5, max(2.5, 0.45 * len(rows) + 1.4))
    positions = np.arange(len(rows))
    for offset, share, colour, label in ((0.15, "copy_share", "tab:red", "original"), (-0.15, "control_share", "tab:blue", "control")):
        value = rows[share].to_numpy(float)
        spread = np.vstack([value - rows[f"{share}_low"].to_numpy(float), rows[f"{share}_high"].to_numpy(float) - value])
        ax.errorbar(value, positions + offset, xerr=spread, fmt="o", color=colour, capsize=3, label=f"copies of a row of the {label}")
    ax.set_yticks(positions, [f"{_short(compared)} ({release})" for compared, release in zip(rows["compared"], rows["release"])])
    ax.set(xlabel="share of released rows (Wilson interval)", xlim=(-0.02, 1.02))
    ax.legend(loc="lower right", fontsize="small", framealpha=0.7)
    return png_bytes(fig)


def _short(text: str, most: int = 40) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"
