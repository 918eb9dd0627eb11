"""The Parquet results of a job: a scores table per evaluation family (one row per scenario), and one
row per prediction."""

import pandas as pd

from alc_dask.results.manifest import LAYOUT, MANIFEST, ResultsError
from alc_dask.results.schema import IDENTITY, PREDICTIONS, family_schema
from alc_dask.results.store import COMPACT_ABOVE, ResultStore


def read_scores(out, family: str | None = None, columns: list[str] | None = None, filters=None) -> pd.DataFrame:
    """Scores under the output directory or URL ``out``: of ``family``, in its own columns (the
    identity, then its measures), or of every family (None), in the union of their columns; one row
    per scenario. ``filters`` and ``columns`` as ``ResultStore.read_scores``."""
    return ResultStore(out).read_scores(family, columns, filters)


def read_predictions(out, scenario_ids=None) -> pd.DataFrame:
    """Predictions of the complete scenarios under ``out`` (optionally only ``scenario_ids``)."""
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
