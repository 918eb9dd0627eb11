"""The report's figures, rendered to PNG bytes.

Figures are made with ``matplotlib.figure.Figure`` directly, never pyplot: no backend is chosen and
no global state is touched, so importing this module changes nothing for the caller.
"""

import io

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from alc_dask.measure import RiskThresholds

_BANDS = RiskThresholds()
_MARKERS = "osD^v<>P*X"
_LOWEST = -1.0  # ALC can fall far below 0; anything below this is drawn at it, so 0..1 stays readable


def precision_vs_alc(scores: pd.DataFrame) -> bytes:
    """Attack precision against ALC, coloured by attack recall; one marker per release."""
    fig, ax = _figure(7.5, 5)
    _risk_bands(ax.axhline)
    points = None
    for marker, (release, group) in zip(_MARKERS, scores.groupby("release", sort=True)):
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
    fig, ax = _figure(7.5, max(2.5, 0.42 * len(groups) + 1.2))
    _risk_bands(ax.axvline)
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


def risk_intervals(table: pd.DataFrame) -> bytes:
    """Each evaluation's privacy risk with its interval (a bar), and its attack and control rates."""
    rows = table.iloc[::-1].reset_index(drop=True)
    fig, ax = _figure(7.5, max(2.5, 0.38 * len(rows) + 1.4))
    _risk_bands(ax.axvline)
    positions = np.arange(len(rows))
    risk = rows["privacy_risk"].to_numpy(float)
    spread = np.vstack([risk - rows["privacy_risk_low"].to_numpy(float), rows["privacy_risk_high"].to_numpy(float) - risk])
    ax.errorbar(risk, positions, xerr=spread, fmt="o", color="black", capsize=3, label="risk (interval)")
    ax.scatter(rows["attack_rate"], positions + 0.18, marker="^", color="tab:red", s=22, label="attack rate")
    ax.scatter(rows["control_rate"], positions - 0.18, marker="v", color="tab:blue", s=22, label="control rate")
    ax.set_yticks(positions, [f"{setting} ({release})" for setting, release in zip(rows["setting"], rows["release"])])
    ax.set(xlabel="privacy risk and success rates", xlim=(-0.02, 1.02))
    ax.legend(loc="lower right", fontsize="small", framealpha=0.7)
    return png_bytes(fig)


def roc_log_log(curves: dict[str, tuple[np.ndarray, np.ndarray]]) -> bytes:
    """Each evaluation's ROC (label -> (FPR, TPR)) on log-log axes, where the few people an attack
    is surest about show (Francis & Wagner 2024, §5); points at FPR or TPR 0 cannot be drawn on a log axis."""
    fig, ax = _figure(6.5, 5.5)
    lowest = 1.0
    for marker, (label, (fpr, tpr)) in zip(_MARKERS * 10, curves.items()):
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
    fig, ax = _figure(7.5, 5)
    for colour, (label, (recall, precision, baseline)) in zip(_colours(len(curves)), curves.items()):
        ax.step(recall, precision, where="post", color=colour, label=label)
        ax.axhline(baseline, color=colour, linestyle="--", linewidth=0.8)
    ax.set(xscale="log", xlabel="recall (share of members found)", ylabel="precision (share of claims right, as supported)", ylim=(-0.02, 1.02))
    ax.set_title(title)
    ax.legend(title="members:non-members", loc="best", fontsize="small", framealpha=0.7)
    return png_bytes(fig)


def correctness_forecasts(curves: dict[str, tuple]) -> bytes:
    """Per quasi-identifier set (label -> (measured sizes, measured κ, curve sizes, fitted κ, population,
    (forecast, low, high))): the measured points, the fitted law up to the population and the
    forecast there with its interval. Twice: on a linear κ axis, where the fit to the points shows,
    and on a log one, where a forecast of a fraction of a percent is not drawn on 0."""
    from matplotlib.lines import Line2D

    fig = Figure(figsize=(12, 5.2))
    linear, log = fig.subplots(1, 2, sharex=True)
    colours = [f"C{i}" for i in range(len(curves))] if len(curves) <= 10 else _colours(len(curves))
    lowest, furthest = 1.0, 1.0
    for colour, (label, (sizes, kappa, grid, fitted, population, (forecast, low, high))) in zip(colours, curves.items()):
        for ax in (linear, log):
            ax.plot(grid, fitted, color=colour, label=label)
            ax.scatter(sizes, kappa, color=colour, s=14, edgecolors="black", linewidths=0.4, zorder=3)
            ax.axvline(population, color="grey", linestyle=":", linewidth=0.9)
            if np.isfinite(forecast):
                spread = np.clip([[forecast - low], [high - forecast]], 0, None) if np.isfinite(low) and np.isfinite(high) else None
                ax.errorbar([population], [forecast], yerr=spread, fmt="D", color=colour, markeredgecolor="black", markersize=6, capsize=4, zorder=4)
        lowest = min([lowest, *(v for v in (forecast, low) if np.isfinite(v) and v > 0)])
        furthest = max(furthest, population)
    linear.set(
        xscale="log", xlim=(0.7, furthest * 2.5), ylim=(-0.02, 1.02), xlabel="people matched against (n)", ylabel="correctness κ(n): share identified correctly"
    )
    log.set(xscale="log", yscale="log", ylim=(lowest / 3, 1.5), xlabel="people matched against (n)", ylabel="correctness κ(n), log scale")
    linear.set_title("Measured and fitted")
    log.set_title("Forecast at the population")
    linear.legend(title="quasi-identifiers", loc="upper right", fontsize="small", framealpha=0.8)
    key = [
        Line2D([], [], color="grey", marker="o", markeredgecolor="black", linestyle="", label="measured on nested subsamples"),
        Line2D([], [], color="grey", label="fitted Pitman–Yor law"),
        Line2D([], [], color="grey", marker="D", markeredgecolor="black", linestyle="", label="forecast at the population (interval over repeats)"),
        Line2D([], [], color="grey", linestyle=":", label="population"),
    ]
    log.legend(handles=key, loc="lower left", fontsize="small", framealpha=0.8)
    return png_bytes(fig)


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


def _colours(count: int) -> list:
    from matplotlib import colormaps

    return [colormaps["viridis"](i / max(count - 1, 1)) for i in range(count)]


def _figure(width: float, height: float):
    fig = Figure(figsize=(width, height))
    return fig, fig.subplots()


def _risk_bands(line) -> None:
    for value, style in ((_BANDS.no_loss, ":"), (_BANDS.at_risk, "--"), (_BANDS.serious, "-")):
        line(value, color="grey", linestyle=style, linewidth=0.9)


def _floor(values: pd.Series) -> float:
    lowest = max(float(values.min()), _LOWEST) if len(values) else 0.0
    return min(-0.1, lowest - 0.05)


def _alc_label(values: pd.Series) -> str:
    return f"ALC (below {_LOWEST:g} drawn at {_LOWEST:g})" if (values < _LOWEST).any() else "ALC"


def png_bytes(fig, dpi: float | str = 110) -> bytes:
    """The figure as PNG bytes (``dpi="figure"``: the figure's own), written as results are written."""
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()
