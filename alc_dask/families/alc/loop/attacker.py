"""A scenario's attack, as the scenario loop and the prior and control baselines ask it."""

from dataclasses import dataclass

from alc_dask.attacks.base import AttributeAttack, AttributeTask, Predictions, TargetBlock
from alc_dask.attacks.prepared import prepared_state


@dataclass(frozen=True)
class Attacker:
    """An attribute-inference attack set on one scenario's task: checked once, prepared once per
    release it is asked on (``alc_dask.attacks.prepared``), then asked block after block."""

    attack: AttributeAttack
    task: AttributeTask

    def check(self, release) -> None:
        self.attack.check(release, self.task)

    def predict(self, release, rows, source: str = "original") -> Predictions:
        """The attack's predictions for ``rows`` of the release's ``source`` table."""
        prepared = prepared_state(self.attack, release, self.task)
        return self.attack.predict(prepared, TargetBlock(release, self.task, rows, source))
