"""The ALC family's figures: precision against ALC, and the ALC per secret column."""

import numpy as np
import pandas as pd

from alc_dask.families.presentation import MARKERS, new_figure, png_bytes, risk_bands

_LOWEST = -1.0  # ALC can fall far below 0; anything below this is drawn at it, so 0..1 stays readable


def precision_vs_alc(scores: pd.DataFrame) -> bytes:
    """Attack precision against ALC, coloured by attack recall; one marker per release."""
    fig, ax = new_figure(7.5, 5)
    risk_bands(ax.axhline)
    points = None
    for marker, (release, group) in zip(MARKERS, scores.groupby("release", sort=True)):
        points = ax.scatter(
            group["attack_precision"],
            group["alc"].clip(lower=_LOWEST),
            c=group["attack_recall"],
            cmap="viridis",
            vmin=0,
            vmax=1,
            marker=marker,
            s=42,
            edgecolors="black",
            linewidths=0.4,
            label=str(release),
        )
    if points is not None:
        fig.colorbar(points, ax=ax, label="attack recall")
    if scores["release"].nunique() > 1:
        ax.legend(title="release", loc="best", framealpha=0.6)
    ax.set(xlabel="attack precision", ylabel=_alc_label(scores["alc"]), xlim=(0, 1.02), ylim=(_floor(scores["alc"]), 1.02))
    ax.set_title("Attack precision vs ALC")
    return png_bytes(fig)


def alc_by_secret(scores: pd.DataFrame) -> bytes:
    """The ALC of every scenario per secret column (a box per secret and release, scenarios as dots)."""
    groups = sorted(scores.groupby(["secret", "release"]), key=lambda item: (item[1]["alc"].median(), item[0]))
    fig, ax = new_figure(7.5, max(2.5, 0.42 * len(groups) + 1.2))
    risk_bands(ax.axvline)
    positions = np.arange(len(groups))
    ax.boxplot([g["alc"].clip(lower=_LOWEST).to_numpy() for _, g in groups], positions=positions, orientation="horizontal", widths=0.55, showfliers=False)
    rng = np.random.default_rng(0)
    for position, (_, group) in zip(positions, groups):
        ax.scatter(group["alc"].clip(lower=_LOWEST), position + rng.uniform(-0.15, 0.15, len(group)), s=14, color="tab:blue", alpha=0.7, zorder=3)
    several = scores["release"].nunique() > 1
    ax.set_yticks(positions, [f"{secret} ({release})" if several else str(secret) for (secret, release), _ in groups])
    ax.set(xlabel=_alc_label(scores["alc"]), xlim=(_floor(scores["alc"]), 1.02))
    ax.set_title("ALC per secret column")
    return png_bytes(fig)


def _floor(values: pd.Series) -> float:
    lowest = max(float(values.min()), _LOWEST) if len(values) else 0.0
    return min(-0.1, lowest - 0.05)


def _alc_label(values: pd.Series) -> str:
    return f"ALC (below {_LOWEST:g} drawn at {_LOWEST:g})" if (values < _LOWEST).any() else "ALC"
