"""The Parquet results of a job: a scores table per evaluation family (one row per scenario), and one
row per prediction."""

import pandas as pd

from alc_dask.results.manifest import LAYOUT, MANIFEST, ResultsError
from alc_dask.results.schema import IDENTITY, PREDICTIONS, family_schema
from alc_dask.results.store import COMPACT_ABOVE, ResultStore


def read_scores(out, family: str | None = None, columns: list[str] | None = None, filters=None) -> pd.DataFrame:
    """Scores under the output directory or URL ``out``, one row per scenario.

    The results are Parquet files any tool reads (pandas, polars, DuckDB); this reads them with the
    layout checked and the family's columns in order.

    Parameters
    ----------
    out : path or URL
        A job's output directory (local, or an fsspec URL such as ``s3://``).
    family : str, optional
        One family's scores, in its own columns (the identity, then its measures); None: every
        family's, in the union of their columns.
    columns : list of str, optional
        Only these columns.
    filters : optional
        Row filters, as pyarrow's ``filters`` (e.g. ``[("status", "==", "ok")]``).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ResultsError
        A folder of another layout or version, or damaged results.

    Examples
    --------
    On ``results``, the output folder of `run_job`'s example (an ALC and a membership evaluation of a copy of 500 people):

    >>> from alc_dask.results import read_scores
    >>> read_scores("results", family="alc")[["secret", "alc", "risk"]].round(3)
           secret    alc     risk
    0  occupation  0.975  serious
    >>> sorted(read_scores("results", columns=["family"], filters=[("status", "==", "ok")])["family"])
    ['alc', 'membership']
    """
    return ResultStore(out).read_scores(family, columns, filters)


def read_predictions(out, scenario_ids=None) -> pd.DataFrame:
    """Every prediction of the complete scenarios under ``out``: what each attack and its baseline
    guessed of each target, for reading who is exposed.

    Parameters
    ----------
    out : path or URL
        A job's output directory.
    scenario_ids : list of str, optional
        Only these scenarios.

    Returns
    -------
    pandas.DataFrame
        One row per prediction: ``scenario_id``, ``target`` (the original's row), ``side``
        (``base`` or ``attack``; a membership attack's ``member`` or ``non_member``), ``correct``,
        ``confidence``, ``abstained``, ``predicted``, ``true``.

    Examples
    --------
    On ``results``, the output folder of `run_job`'s example (an ALC and a membership evaluation of a copy of 500 people):

    >>> from alc_dask.results import read_predictions
    >>> predictions = read_predictions("results")
    >>> sorted(predictions["side"].unique())
    ['attack', 'base', 'member', 'non_member']
    """
    return ResultStore(out).read_predictions(scenario_ids)


__all__ = [
    "COMPACT_ABOVE",
    "IDENTITY",
    "LAYOUT",
    "MANIFEST",
    "PREDICTIONS",
    "ResultStore",
    "ResultsError",
    "family_schema",
    "read_predictions",
    "read_scores",
]
