"""The best row match attack (spec §7, §5.2 of the paper).

A target's matches are the rows, over every anonymized table holding the secret and at least one
known column, at the minimum Gower distance on the known columns (known columns a table lacks
count 0.5 each; see `alc_dask.search` for the reference's rounding). The prediction is the modal
secret among the matches (the lowest code when several are modal) and the confidence
`(1 - d_min) * (modal count / matches)`, rounded to 3 decimals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from alc_dask.data import Release
from alc_dask.measure._checks import check_count
from alc_dask.search import SPLIT_EVERY, best_matches

ABSTAINED = -1
"""Prediction code of an abstention."""


class Predictions(NamedTuple):
    """Per target: predicted secret code (`ABSTAINED` when abstaining), confidence, abstention."""

    codes: np.ndarray
    confidence: np.ndarray
    abstained: np.ndarray


class BestRowMatch:
    """Predict a target's secret from its best-matching anonymized rows.

    Parameters follow scikit-learn: set here, never learned. Targets are searched `batch_size` at
    a time (each batch holds a histogram of the secret's codes per target); `split_every` is the
    fan-in of the reduction over partitions.
    """

    def __init__(self, batch_size: int = 1000, split_every: int = SPLIT_EVERY):
        check_count("batch_size", batch_size)
        check_count("split_every", split_every, minimum=2)  # fewer never reduces the partitions
        self.batch_size = batch_size
        self.split_every = split_every

    def predict(self, release: Release, secret: str, known: Sequence[str], target_rows, source: str = "original", client=None) -> Predictions:
        """Predictions for the rows `target_rows` of the original (or `source="control"`) table.

        Raises `ScenarioError` when the scenario does not fit the release (see
        `Release.usable_tables`); abstains on every target when no table holds both the secret
        and a known column.
        """
        tables = release.usable_tables(secret, known)
        targets = release.targets(target_rows, source)
        if not tables:
            n = targets.n_rows
            return Predictions(np.full(n, ABSTAINED, dtype=np.int32), np.zeros(n), np.ones(n, dtype=bool))
        known_names = [release.column(c).name for c in known]
        codes, confidence = [np.empty(0, dtype=np.int32)], [np.empty(0)]
        for start in range(0, targets.n_rows, self.batch_size):
            batch = targets.rows(slice(start, start + self.batch_size))
            matches = best_matches(batch, tables, release.column(secret), known_names, client=client, split_every=self.split_every)
            modal_code = matches.histogram.argmax(axis=1).astype(np.int32)
            modal = np.take_along_axis(matches.histogram, modal_code[:, None], axis=1)[:, 0]
            codes.append(modal_code)
            fraction = modal / matches.histogram.sum(axis=1)
            confidence.append(np.array([round(float(c), 3) for c in (1.0 - matches.distance) * fraction]))
        return Predictions(np.concatenate(codes), np.concatenate(confidence), np.zeros(targets.n_rows, dtype=bool))
