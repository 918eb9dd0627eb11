"""Attacks installed from outside alc_dask, found by their entry points (a family installed so is
``examples/plugin-family``).

``first_row``: predicts every target's secret as the first anonymized row's.
``copies_found``: scores a record 1 when an anonymized table holds an exact copy of it, else 0.
"""

import numpy as np

from alc_dask.attacks.base import AttributeAttack, MembershipAttack, Predictions


class FirstRow(AttributeAttack):
    def prepare(self, release, task) -> int:
        """The secret's code in the first anonymized row."""
        return int(release.true_codes(task.secret, release.anonymized[0].rows(slice(0, 1)))[0])

    def predict(self, prepared: int, targets) -> Predictions:
        n = len(targets.rows)
        return Predictions(np.full(n, prepared, dtype=np.int32), np.ones(n), np.zeros(n, dtype=bool))


class CopiesFound(MembershipAttack):
    def prepare(self, release, task) -> set:
        """The attacked anonymized table's rows."""
        return {row.tobytes() for row in _rows(release.anonymized[task.table])}

    def score(self, prepared: set, records) -> np.ndarray:
        return np.array([row.tobytes() in prepared for row in _rows(records.encoded)], dtype=float)


def _rows(table) -> np.ndarray:
    return np.hstack([table.codes.T.astype(np.float64), table.values.T])
