"""``alc_dask.evaluate``: ``alc-dask check`` from Python, on DataFrames or paths, its answer an
object a notebook shows."""

from __future__ import annotations

import html
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from alc_dask.apps.check import Table, read_inputs, run_check

EVALUATION_COLUMNS = ("family", "id", "label", "headline", "value", "low", "high", "threshold", "evidence")


@dataclass
class Evaluation:
    """A release's verdict, its evaluations and where its results and report were written."""

    verdict: object
    scores: pd.DataFrame
    output: Path
    report: Path

    @property
    def evaluations(self) -> pd.DataFrame:
        """One row per evaluation, worst first: its label, headline with interval and threshold, evidence."""
        rows = [
            {
                "family": item.family,
                "id": item.id,
                "label": item.label,
                "headline": item.headline.name,
                "value": item.headline.value,
                "low": item.headline.low,
                "high": item.headline.high,
                "threshold": item.headline.threshold,
                "evidence": item.evidence,
            }
            for item in self.verdict.evaluations
        ]
        return pd.DataFrame(rows, columns=list(EVALUATION_COLUMNS))

    def to_json(self) -> str:
        """The verdict as ``verdict.json`` holds it."""
        return self.verdict.model_dump_json(indent=2)

    def to_html(self) -> str:
        """The full report, one HTML page."""
        return self.report.read_text(encoding="utf-8")

    def _repr_html_(self) -> str:
        heading = f"<p><strong>Verdict: {html.escape(self.verdict.verdict)}</strong> ({len(self.verdict.evaluations)} evaluations)</p>"
        return heading + self.evaluations.to_html(index=False, escape=True)


def evaluate(
    original: Table,
    release: Table,
    control: Table | None = None,
    families=None,
    seed: int = 0,
    *,
    output: str | os.PathLike | None = None,
    progress: bool = False,
    workers: int | None = None,
) -> Evaluation:
    """Run the default battery (``alc_dask.apps.battery``) of ``families`` (default: every family the
    inputs allow) on a local cluster; results and report go to ``output`` (default: a new temporary folder)."""
    from alc_dask.report.verdict import verdict_of

    inputs = read_inputs(original, release, control)
    folder = Path(output) if output is not None else Path(tempfile.mkdtemp(prefix="alc-dask-evaluate-"))
    run = run_check(inputs, folder, families=families, seed=seed, progress=progress, workers=workers)
    verdict = verdict_of(run.scores)
    return Evaluation(verdict, run.scores, folder, folder / "report" / "report.html")
