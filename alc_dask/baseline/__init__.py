"""Non-member baselines: what a model that never saw a target can infer about it.

Names are imported on first use (PEP 562), so that settings and job files are checked without
scikit-learn, which fitting a model imports.
"""

from alc_dask.plugins import lazy_exports

_EXPORTS = {
    "DEFAULT_CANDIDATES": "alc_dask.baseline.zoo",
    "MODELS": "alc_dask.baseline.zoo",
    "BaselineSettings": "alc_dask.baseline.selection",
    "FeatureLayout": "alc_dask.baseline.features",
    "ModelChoice": "alc_dask.baseline.selection",
    "OneToOnePredictor": "alc_dask.baseline.one_to_one",
    "TrainedModel": "alc_dask.baseline.trained",
    "block_size": "alc_dask.baseline.blocks",
    "fit_without_block": "alc_dask.baseline.blocks",
    "select_model": "alc_dask.baseline.selection",
    "train_selected": "alc_dask.baseline.trained",
}

__all__ = list(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
