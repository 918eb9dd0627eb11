"""Attribute-inference attacks: each turns a batch of targets into (prediction, confidence | abstain)."""

from alc_dask.attacks.best_row_match import ABSTAINED, BestRowMatch, Predictions

__all__ = ["ABSTAINED", "BestRowMatch", "Predictions"]
