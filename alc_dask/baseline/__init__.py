"""Non-member baselines: what a model that never saw a target can infer about it."""

from alc_dask.baseline.blocks import block_predictions, block_size, fit_without_block
from alc_dask.baseline.features import FeatureLayout
from alc_dask.baseline.one_to_one import OneToOnePredictor
from alc_dask.baseline.selection import BaselineSettings, ModelChoice, select_model
from alc_dask.baseline.zoo import DEFAULT_CANDIDATES, MODELS

__all__ = [
    "DEFAULT_CANDIDATES",
    "MODELS",
    "BaselineSettings",
    "FeatureLayout",
    "ModelChoice",
    "OneToOnePredictor",
    "block_predictions",
    "block_size",
    "fit_without_block",
    "select_model",
]
