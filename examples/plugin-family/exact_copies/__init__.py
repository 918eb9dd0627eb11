"""The ``exact_copies`` evaluation family for alc_dask: an example to copy when writing a family."""

from exact_copies.family import ExactCopies, ExactCopiesParams

__all__ = ["ExactCopies", "ExactCopiesParams"]
