"""The relative-threat figure: attacker against learner per threatened row, and the histogram of log2 Ti."""

import numpy as np
from matplotlib.figure import Figure

from alc_dask.families.presentation import png_bytes


def relative_threats(label: str, attacker: np.ndarray, learner: np.ndarray) -> bytes:
    """For the rows an attacker threatens: their threat under the attacker against the learner's
    (the diagonal: no advantage), and the histogram of log2 Ti (1: twice as sure as the learner)."""
    fig = Figure(figsize=(10, 4.2))
    scatter, histogram = fig.subplots(1, 2)
    scatter.scatter(learner, attacker, s=6, alpha=0.35, color="tab:red", edgecolors="none")
    scatter.plot([0, 1], [0, 1], color="grey", linewidth=0.9)
    scatter.set(xlabel="learner p_L(s | r)", ylabel="attacker p_A(s | r)", xlim=(0, 1.02), ylim=(0, 1.02), aspect="equal")
    scatter.set_title("Rows the attacker threatens: above the line, it is surer")
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ti = np.log2(attacker / learner)
    log_ti = log_ti[np.isfinite(log_ti)]
    histogram.hist(log_ti, bins=40, color="tab:red", alpha=0.8)
    histogram.axvline(0, color="grey", linewidth=0.9)
    histogram.axvline(1, color="grey", linestyle="--", linewidth=0.9)
    histogram.set(xlabel="log2 Ti = log2(p_A / p_L)", ylabel="rows")
    histogram.set_title(f"Relative threat ({np.mean(log_ti >= 1):.1%} at least doubled)" if len(log_ti) else "Relative threat")
    fig.suptitle(label)
    return png_bytes(fig)
