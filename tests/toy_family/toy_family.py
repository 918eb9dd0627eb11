"""A family and attacks installed from outside alc_dask, found by their entry points.

``exact_copies``: the share of original records released unchanged in an anonymized table.
``first_row``: predicts every target's secret as the first anonymized row's.
``copies_found``: scores a record 1 when an anonymized table holds an exact copy of it, else 0.
"""

import numpy as np
import pyarrow as pa

from alc_dask.attacks.base import AttributeAttack, MembershipAttack, Predictions
from alc_dask.families import Evaluation, EvaluationFamily, FamilyParams
from alc_dask.measure import risk_label


class ExactCopiesParams(FamilyParams):
    table: int = 0


class ExactCopies(EvaluationFamily):
    name = "exact_copies"
    Params = ExactCopiesParams
    fields = (pa.field("copy_share", pa.float64()), pa.field("risk", pa.string()))
    headline = "copy_share"

    def evaluate(self, release, seed: int) -> Evaluation:
        original, anonymized = release.original, release.anonymized[self.params.table]
        released = {row.tobytes() for row in _rows(anonymized)}
        share = float(np.mean([row.tobytes() in released for row in _rows(original)]))
        return Evaluation({"copy_share": share, "risk": risk_label(share)})


def _rows(table) -> np.ndarray:
    return np.hstack([table.codes.T.astype(np.float64), table.values.T])


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
