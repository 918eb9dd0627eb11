"""The Parquet results of a job: one row of scores per scenario, one row per prediction."""

import pandas as pd

from alc_dask.results.schema import PREDICTIONS, scores_schema
from alc_dask.results.store import MANIFEST, ResultsError, ResultStore


def read_scores(out) -> pd.DataFrame:
    """Scores of every scenario under the output directory ``out``."""
    return ResultStore(out).read_scores()


def read_predictions(out, scenario_ids=None) -> pd.DataFrame:
    """Predictions of the complete scenarios under ``out`` (optionally only ``scenario_ids``)."""
    return ResultStore(out).read_predictions(scenario_ids)


__all__ = ["MANIFEST", "PREDICTIONS", "scores_schema", "ResultStore", "ResultsError", "read_predictions", "read_scores"]
