"""The Parquet results of a job: one row of scores per scenario, one row per prediction."""

import pandas as pd

from alc_dask.results.manifest import MANIFEST, ResultsError
from alc_dask.results.schema import PREDICTIONS, scores_schema
from alc_dask.results.store import COMPACT_ABOVE, ResultStore


def read_scores(out, columns: list[str] | None = None, filters=None) -> pd.DataFrame:
    """Scores of every scenario under the output directory or URL ``out``; ``filters`` as ``ResultStore.read_scores``."""
    return ResultStore(out).read_scores(columns, filters)


def read_predictions(out, scenario_ids=None) -> pd.DataFrame:
    """Predictions of the complete scenarios under ``out`` (optionally only ``scenario_ids``)."""
    return ResultStore(out).read_predictions(scenario_ids)


__all__ = ["COMPACT_ABOVE", "MANIFEST", "PREDICTIONS", "scores_schema", "ResultStore", "ResultsError", "read_predictions", "read_scores"]
