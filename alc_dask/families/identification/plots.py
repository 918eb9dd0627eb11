"""The identification figure: measured and fitted correctness, and the forecast at the population."""

import numpy as np
from matplotlib.figure import Figure

from alc_dask.families.presentation import colours, png_bytes


def correctness_forecasts(curves: dict[str, tuple]) -> bytes:
    """Per quasi-identifier set (label -> (measured sizes, measured κ, curve sizes, fitted κ, population,
    (forecast, low, high))): the measured points, the fitted law up to the population and the
    forecast there with its interval. Twice: on a linear κ axis, where the fit to the points shows,
    and on a log one, where a forecast of a fraction of a percent is not drawn on 0."""
    from matplotlib.lines import Line2D

    fig = Figure(figsize=(12, 5.2))
    linear, log = fig.subplots(1, 2, sharex=True)
    palette = [f"C{i}" for i in range(len(curves))] if len(curves) <= 10 else colours(len(curves))
    lowest, furthest = 1.0, 1.0
    for colour, (label, (sizes, kappa, grid, fitted, population, (forecast, low, high))) in zip(palette, curves.items()):
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
