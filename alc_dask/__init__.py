"""alc_dask: the Anonymity Loss Coefficient of anonymized data releases, computed on Dask."""

from alc_dask.data import Release

__version__ = "0.1.0"

__all__ = ["Release", "__version__"]
