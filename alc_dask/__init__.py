"""alc_dask: how much a released table exposes the people in it, measured on Dask.

Names are imported on first use (PEP 562), so ``import alc_dask.measure`` stays light: it pulls in
neither distributed, scikit-learn, Numba nor matplotlib.
"""

from importlib import import_module

__version__ = "0.6.0"

_EXPORTS = {
    "AttackLoop": "alc_dask.loop",
    "AttackResult": "alc_dask.loop",
    "Release": "alc_dask.data",
    "register_attack": "alc_dask.attacks.registry",
    "run_attack": "alc_dask.loop",
    "run_job": "alc_dask.engine",
}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'alc_dask' has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
