"""Attacks written for the contract before ``alc_dask.attacks.base``: any object with
``predict(release, secret, known, target_rows, source=..., client=...)`` (and ``tolerance=`` when
it predicts numbers), optionally ``check(release, secret, known, tolerance)``. They run as
attribute-inference attacks with nothing prepared; ``client`` is the one holding the release's
partitioned tables, or None."""

from __future__ import annotations

from alc_dask.attacks.base import AttributeAttack, AttributeTask, Predictions, TargetBlock
from alc_dask.data.partitioned import holding_client


class PlainPredictor(AttributeAttack):
    """An old-style attack object, asked as every attribute-inference attack is."""

    def __init__(self, predictor):
        self.predictor = predictor

    def check(self, release, task: AttributeTask) -> None:
        check = getattr(self.predictor, "check", None)
        if check is not None:
            check(release, task.secret, task.known, task.tolerance)

    def predict(self, prepared: None, targets: TargetBlock) -> Predictions:
        task = targets.task
        numbers = {} if task.tolerance is None else {"tolerance": task.tolerance}
        return self.predictor.predict(
            targets.release, task.secret, list(task.known), targets.rows, source=targets.source, client=holding_client(targets.release), **numbers
        )
