"""Membership figures: the ROC on log-log axes and precision against recall at each skew."""

import numpy as np

from alc_dask.families.presentation import MARKERS, colours, new_figure, png_bytes


def roc_log_log(curves: dict[str, tuple[np.ndarray, np.ndarray]]) -> bytes:
    """Each evaluation's ROC (label -> (FPR, TPR)) on log-log axes, where the few people an attack
    is surest about show (Francis & Wagner 2024, §5); points at FPR or TPR 0 cannot be drawn on a log axis."""
    fig, ax = new_figure(6.5, 5.5)
    lowest = 1.0
    for marker, (label, (fpr, tpr)) in zip(MARKERS * 10, curves.items()):
        shown = (fpr > 0) & (tpr > 0)
        ax.step(fpr[shown], tpr[shown], where="post", label=label, marker=marker, markevery=max(1, shown.sum() // 12), markersize=4)
        lowest = min(lowest, fpr[shown].min(initial=1.0), tpr[shown].min(initial=1.0))
    ax.plot([lowest, 1], [lowest, 1], color="grey", linestyle=":", linewidth=0.9, label="chance")
    ax.set(xscale="log", yscale="log", xlabel="false positive rate (non-members called members)", ylabel="true positive rate (recall)")
    ax.set_title("ROC, log-log")
    ax.legend(loc="lower right", fontsize="small", framealpha=0.7)
    return png_bytes(fig)


def precision_recall_by_skew(curves: dict[str, tuple[np.ndarray, np.ndarray, float]], title: str) -> bytes:
    """Precision against recall at each skew (label -> (recall, precision, all-member precision)),
    recall on a log axis; each skew's all-member guess as a dashed line of its colour. Precision is
    what the records support (from the Wilson midpoints of TPR and FPR), as the tables report it."""
    fig, ax = new_figure(7.5, 5)
    for colour, (label, (recall, precision, baseline)) in zip(colours(len(curves)), curves.items()):
        ax.step(recall, precision, where="post", color=colour, label=label)
        ax.axhline(baseline, color=colour, linestyle="--", linewidth=0.8)
    ax.set(xscale="log", xlabel="recall (share of members found)", ylabel="precision (share of claims right, as supported)", ylim=(-0.02, 1.02))
    ax.set_title(title)
    ax.legend(
        title="members:non-members", loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", frameon=False
    )  # "best" searched every curve's points: half the figure's time
    return png_bytes(fig)
