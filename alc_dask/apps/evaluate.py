"""``alc_dask.evaluate``: ``alc-dask check`` from Python, on DataFrames or paths, its answer an
object a notebook shows."""

from __future__ import annotations

import html
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from alc_dask.apps.battery import chosen_columns
from alc_dask.apps.check import Table, read_inputs, run_check
from alc_dask.engine.cluster import start_worker_server_for
from alc_dask.errors import JobSpecError, OptionError

EVALUATION_COLUMNS = ("family", "id", "label", "headline", "value", "low", "high", "threshold", "evidence")


@dataclass
class Evaluation:
    """A release's verdict, its evaluations and where its results and report were written (what
    `evaluate` gives; a notebook shows it as the verdict and a table of evaluations).

    Attributes
    ----------
    verdict : Verdict
        The release's verdict (``flagged``, ``inconclusive`` or ``pass``) and every evaluation's label.
    scores : pandas.DataFrame
        The scores of every evaluation, one row each.
    output : pathlib.Path
        The results folder (with ``verdict.json``).
    report : pathlib.Path
        The HTML report.
    """

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


def watched() -> bool:
    """Whether a person watches: stderr is a terminal, or the call runs in a Jupyter kernel."""
    return sys.stderr.isatty() or "ipykernel" in sys.modules


def _checked_arguments(families, workers, seed) -> None:
    """``OptionError`` naming the parameter, before anything is read."""
    if families is not None and (isinstance(families, str) or not list(families)):
        raise OptionError(f"families: name at least one family in a list (e.g. ['alc']), or leave it out for every family; got {families!r}")
    for name, value, least in (("workers", workers, 1), ("seed", seed, 0)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < least):
            raise OptionError(f"{name}: must be a whole number of at least {least}; got {value!r}")


def evaluate(
    original: Table,
    release: Table,
    control: Table | None = None,
    families=None,
    seed: int = 0,
    *,
    output: str | os.PathLike | None = None,
    progress: bool | None = None,
    workers: int | None = None,
    secrets: list[str] | None = None,
    known: list[str] | None = None,
    types: dict[str, str] | str | os.PathLike | None = None,
    sep: str | None = None,
    scheduler: str | None = None,
) -> Evaluation:
    """``alc-dask check`` from Python: the default battery of evaluations on a release, and its verdict.

    The battery (``alc_dask.apps.battery``) chooses secrets and quasi-identifiers from the columns'
    order and kinds, and runs every family the inputs allow on a local Dask cluster: the ALC,
    identification, membership and Anonymeter's three evaluators on any release (without a control
    table, membership and Anonymeter's set the members against the original's other people); with
    a control table, the disclosure measures too. It runs the same from a script (no ``if __name__ == "__main__":``
    guard needed: the cluster's workers do not import the main module), a notebook or a prompt.

    Parameters
    ----------
    original, release : path or pandas.DataFrame
        The people the release was made from, and the release (Parquet or CSV files, or DataFrames).
    control : path or pandas.DataFrame, optional
        Other people of the same population, never released (as large as the original).
    families : iterable of str, optional
        The families to run (default: every family the inputs allow).
    seed : int, default 0
        Seeds every evaluation.
    output : path, optional
        Where results and the report go (default: a new temporary folder).
    progress : bool, optional
        Show a progress bar (default: when a person watches, in a terminal or a notebook).
    workers : int, optional
        Worker processes of the local cluster (default: one per core); with ``scheduler``, the
        workers to wait for.
    secrets, known : list of str, optional
        The columns an attacker wants to learn and those it knows of a person (default: the
        battery's choice).
    types : dict or path, optional
        Column -> ``"categorical"`` or ``"continuous"``, overriding the inferred kind; or a YAML or
        JSON file holding that mapping (the sidecar `check --types` and a job's `release.columns` read).
    sep : str, optional
        The CSV files' separator (default: the one their header holds).
    scheduler : str, optional
        Address (or scheduler file) of a running Dask cluster (default: the Dask client you made
        current, e.g. ``distributed.Client(...)``, else a new local cluster). Tables given as
        DataFrames are then written to ``output/data/`` for its workers to read; on a new local
        cluster, to a temporary folder removed once the run ends.

    Returns
    -------
    Evaluation
        The verdict, the evaluations worst first, the scores, and where they were written.

    Raises
    ------
    ReleaseError
        Inputs that cannot be read or do not fit (checked before any cluster starts).

    Examples
    --------
    >>> import alc_dask
    >>> from alc_dask.testing.truth import truth_releases
    >>> truth = truth_releases(rows=500)
    >>> result = alc_dask.evaluate(truth.members, truth.releases["copy"], truth.control, families=["singling_out"], output="check", workers=1)
    >>> result.verdict.verdict
    'flagged'
    >>> result.evaluations[["family", "label"]]
             family    label
    0  singling_out  flagged
    1  singling_out  flagged
    >>> result.report.name
    'report.html'
    """
    _checked_arguments(families, workers, seed)
    start_worker_server_for(scheduler, workers)  # before the inputs are read: a local cluster's workers import meanwhile
    inputs = read_inputs(original, release, control, kinds=_kinds(types), sep=sep)
    chosen_columns(inputs.original, inputs.release, secrets, known)
    folder = Path(output) if output is not None else Path(tempfile.mkdtemp(prefix="alc-dask-evaluate-"))
    shown = watched() if progress is None else progress
    run = run_check(inputs, folder, families=families, seed=seed, progress=shown, workers=workers, secrets=secrets, known=known, scheduler=scheduler)
    return Evaluation(run.verdict, run.scores, folder, folder / "report" / "report.html")


def _kinds(types) -> dict[str, str] | None:
    """``types`` as a mapping: read from its sidecar file when it names one."""
    if isinstance(types, str | os.PathLike):
        from alc_dask.jobs.files import read_kinds

        try:
            return read_kinds(types, "types")
        except JobSpecError as error:
            raise OptionError(str(error)) from None
    return types
