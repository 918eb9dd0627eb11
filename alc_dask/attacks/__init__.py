"""Attacks: what they return (``base``) and how they are found by name (``registry``)."""

from alc_dask.attacks.base import ABSTAINED, Predictions

__all__ = ["ABSTAINED", "Predictions"]
