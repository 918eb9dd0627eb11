"""The special-uniques figure: per evaluation, the shares of the original's and of the control's
special uniques that the release replicates, with their intervals."""

import numpy as np
import pandas as pd

from alc_dask.families.presentation import new_figure, png_bytes


def replicated_shares(table: pd.DataFrame) -> bytes:
    rows = table.iloc[::-1].reset_index(drop=True)  # the worst on top
    fig, ax = new_figure(7.5, max(3.0, 0.45 * len(rows) + 1.9))
    positions = np.arange(len(rows))
    for offset, share, colour, label in ((0.15, "replicated_share", "tab:red", "original"), (-0.15, "control_replicated_share", "tab:blue", "control")):
        value = rows[share].to_numpy(float)
        error = rows[f"{share}_err"].to_numpy(float)
        ax.errorbar(value, positions + offset, xerr=error, fmt="o", color=colour, capsize=3, label=f"special uniques of the {label}")
    ax.set_yticks(positions, [f"{_short(keys)} ≤{size} ({release})" for keys, size, release in zip(rows["keys"], rows["max_size"], rows["release"])])
    ax.set(xlabel="share whose MSU the release holds once (Wilson)", xlim=(-0.02, 1.02))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=1, fontsize="small", frameon=False)
    return png_bytes(fig)


def _short(text: str, most: int = 36) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"
