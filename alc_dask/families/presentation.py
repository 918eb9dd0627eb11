"""What a family's report section is made of: a ``Section`` of tables and figures, and the figure
toolkit every family draws with.

Figures are made with ``matplotlib.figure.Figure`` directly, never pyplot: no backend is chosen and
no global state is touched. Matplotlib is imported when a figure is drawn, not with this module.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import pandas as pd

from alc_dask.measure import RiskThresholds

MARKERS = "osD^v<>P*X"
_BANDS = RiskThresholds()


@dataclass(frozen=True)
class Section:
    title: str
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    """Caption -> table, in report order."""
    figures: dict[str, bytes] = field(default_factory=dict)
    """Caption -> PNG."""
    notes: tuple[str, ...] = ()


def new_figure(width: float, height: float):
    """A figure of one axes, in inches."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    return fig, fig.subplots()


def new_panels(count: int, width: float, height: float) -> tuple:
    """A figure of ``count`` axes stacked one above the other, sharing their x axis, in inches."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    return fig, list(fig.subplots(count, 1, sharex=True, squeeze=False)[:, 0])


def colours(count: int) -> list:
    """``count`` colours along viridis."""
    from matplotlib import colormaps

    return [colormaps["viridis"](i / max(count - 1, 1)) for i in range(count)]


def risk_bands(line) -> None:
    """The risk labels' thresholds drawn with ``line`` (``ax.axhline`` or ``ax.axvline``)."""
    for value, style in ((_BANDS.no_loss, ":"), (_BANDS.at_risk, "--"), (_BANDS.serious, "-")):
        line(value, color="grey", linestyle=style, linewidth=0.9)


def png_bytes(fig, dpi: float | str = 110) -> bytes:
    """The figure as PNG bytes (``dpi="figure"``: the figure's own), written as results are written."""
    _plain_log_labels(fig)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def warm_up() -> None:
    """Import matplotlib and draw a small figure with text on a log axis: what a report's first
    figure would pay (about 0.3 s), paid instead while a command waits for its local cluster."""
    fig, ax = new_figure(2, 1.5)
    ax.plot([0.001, 1], [0, 1], label="warm-up")
    ax.set(xscale="log", title="warm-up", xlabel="x")
    ax.legend()
    png_bytes(fig)


def _plain_log_labels(fig) -> None:
    """Log axes labelled in plain numbers (0.001, 0.5, 1e-05) rather than powers of ten: matplotlib
    typesets each of those as mathtext, a fifth of a report's drawing time (1.00 → 0.80 s for the
    nine figures of a 2 000-row check's report). The ticks labelled are matplotlib's choice."""
    from matplotlib.ticker import LogFormatter

    class Plain(LogFormatter):
        def __call__(self, x, pos=None):
            return f"{x:g}" if super().__call__(x, pos) else ""

    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() == "log":
                axis.set_major_formatter(Plain())
                axis.set_minor_formatter(Plain(labelOnlyBase=False))


def verdict_labels(family, scores: pd.DataFrame) -> list[str | None]:
    """Each evaluation's label on ``family``'s own scale at its own threshold, as the verdict judges
    it (``EvaluationFamily.judge``: flagged, inconclusive, pass or not informative): what a section
    shows beside a headline that is not an ALC, where the ALC's graded labels (safe, at risk,
    serious) would read another quantity's cut points."""
    if family.threshold is None:
        return [None] * len(scores)
    return [family.judge(row, family.threshold.value)[0].value for row in scores.to_dict("records")]
