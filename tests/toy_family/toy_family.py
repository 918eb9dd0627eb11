"""A family and an attack installed from outside alc_dask, found by their entry points.

``exact_copies``: the share of original records released unchanged in an anonymized table.
``first_row``: predicts every target's secret as the first anonymized row's.
"""

import numpy as np
import pyarrow as pa

from alc_dask.attacks import Predictions
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


class FirstRow:
    def predict(self, release, secret, known, target_rows, source="original", client=None) -> Predictions:
        table = release.anonymized[0]
        code = release.true_codes(secret, table.rows(slice(0, 1)))[0]
        n = len(target_rows)
        return Predictions(np.full(n, code, dtype=np.int32), np.ones(n), np.zeros(n, dtype=bool))
