"""alc_dask: how much a released table exposes the people in it, measured on Dask.

Names are imported on first use (PEP 562), so ``import alc_dask.measure`` stays light: it pulls in
neither distributed, scikit-learn, Numba nor matplotlib.
"""

from alc_dask.plugins import lazy_exports

__version__ = "0.16.0"

_EXPORTS = {
    "AttackLoop": "alc_dask.families.alc.loop",
    "AttackResult": "alc_dask.families.alc.loop",
    "Release": "alc_dask.data",
    "evaluate": "alc_dask.apps.evaluate",
    "register_attack": "alc_dask.attacks.registry",
    "run_attack": "alc_dask.families.alc.loop",
    "run_job": "alc_dask.engine",
    "worst_columns": "alc_dask.apps.worst_columns",
}

__all__ = [*_EXPORTS, "__version__"]

__getattr__ = lazy_exports(__name__, _EXPORTS)
