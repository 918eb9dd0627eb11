"""The figure of Anonymeter's evaluators: each risk with its interval and the attack and control rates."""

import numpy as np
import pandas as pd

from alc_dask.families.presentation import new_figure, png_bytes, risk_bands


def risk_intervals(table: pd.DataFrame) -> bytes:
    """Each evaluation's privacy risk with its interval (a bar), and its attack and control rates."""
    rows = table.iloc[::-1].reset_index(drop=True)
    fig, ax = new_figure(7.5, max(2.5, 0.38 * len(rows) + 1.4))
    risk_bands(ax.axvline)
    positions = np.arange(len(rows))
    risk = rows["privacy_risk"].to_numpy(float)
    spread = np.vstack([risk - rows["privacy_risk_low"].to_numpy(float), rows["privacy_risk_high"].to_numpy(float) - risk])
    ax.errorbar(risk, positions, xerr=spread, fmt="o", color="black", capsize=3, label="risk (interval)")
    ax.scatter(rows["attack_rate"], positions + 0.18, marker="^", color="tab:red", s=22, label="attack rate")
    ax.scatter(rows["control_rate"], positions - 0.18, marker="v", color="tab:blue", s=22, label="control rate")
    ax.set_yticks(positions, [_short(f"{setting} ({release})") for setting, release in zip(rows["setting"], rows["release"])])
    ax.set(xlabel="privacy risk and success rates", xlim=(-0.02, 1.02))
    ax.legend(loc="lower right", fontsize="small", framealpha=0.7)
    return png_bytes(fig)


LABEL_CHARACTERS = 48
"""The longest tick label: a linkability of many columns would push the axes out of the figure (its table names them all)."""


def _short(label: str) -> str:
    return label if len(label) <= LABEL_CHARACTERS else label[: LABEL_CHARACTERS - 1] + "…"
