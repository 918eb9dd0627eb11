"""alc_dask: the Anonymity Loss Coefficient of anonymized data releases, computed on Dask."""

__version__ = "0.1.0"

__all__ = ["__version__"]
