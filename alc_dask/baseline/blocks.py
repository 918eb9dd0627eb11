"""Control blocks: targets are held out of the baseline's training data a block at a time.

A target must never be in the training data of its own baseline prediction, yet retraining for
every target would be far too slow; holding out a block of targets and retraining per block keeps
both (Francis & Wagner 2025, §3.4 and §5).
"""

import numpy as np

from alc_dask.baseline.features import FeatureLayout
from alc_dask.baseline.selection import BaselineSettings, fit_model
from alc_dask.baseline.zoo import build_model
from alc_dask.seeds import stream

MAX_BLOCK = 1000
BLOCK_SHARE = 0.1


def block_size(n_rows: int) -> int:
    """``min(1000, 10% of rows + 1)``."""
    return min(MAX_BLOCK, int(BLOCK_SHARE * n_rows) + 1)


def training_rows(y: np.ndarray, block: np.ndarray, settings: BaselineSettings, seed: int, also_out=(), numeric=False) -> np.ndarray:
    """The rows a block's model trains on: every original row but the block's (and ``also_out``'s),
    never one whose number is missing for a regressor (``numeric``), sampled down to
    ``settings.training_rows``."""
    outside = np.ones(len(y), dtype=bool)
    outside[block] = False
    outside[np.asarray(also_out, dtype=np.int64)] = False
    if numeric:
        outside &= ~np.isnan(y)
    rows = np.flatnonzero(outside)
    if settings.training_rows is not None and len(rows) > settings.training_rows:
        rows = np.sort(stream(seed, "training rows").choice(rows, settings.training_rows, replace=False))
    return rows


def fit_without_block(
    model_name: str, X: np.ndarray, y: np.ndarray, block: np.ndarray, layout: FeatureLayout, settings: BaselineSettings, seed: int, also_out=(), numeric=False
):
    """The chosen model fitted on the block's ``training_rows``."""
    rows = training_rows(y, block, settings, seed, also_out, numeric)
    from alc_dask.baseline.one_to_one import OneToOnePredictor  # scikit-learn's: imported when a model is fitted

    model = build_model(model_name, layout, settings.trees, seed, settings, numeric=numeric)
    if isinstance(model, OneToOnePredictor):  # chosen by selection: it looks up its best column here, whatever the share
        model.set_params(min_share=0.0)
    return fit_model(model, X[rows], y[rows])
