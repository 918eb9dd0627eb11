"""The ALC paper's attack loop (Francis & Wagner 2025, §5) for attacks of your own: one target at a
time, your guess paired with the baseline's, halting when the ALC is known well enough."""

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from alc_dask.attacks import ABSTAINED, Predictions
from alc_dask.data import Release
from alc_dask.families.alc.loop.result import AttackResult
from alc_dask.families.alc.loop.scenario_run import ScenarioRun
from alc_dask.families.alc.targets import column_values


@dataclass(frozen=True)
class Target:
    """One target handed to a custom attack: its original row and the values of the known columns."""

    row: int
    known: dict


class AttackLoop:
    """The paper's attack loop for attacks of your own.

    ::

        loop = AttackLoop(release, secret="income", known=["age", "zip"], baseline="ml", seed=0)
        for target in loop:
            guess, score = my_guess(target.known)        # your attack
            if guess is None:
                loop.abstain()
            else:
                loop.predict(guess, confidence=score)    # a secret value and a rank score
        result = loop.result()                           # an AttackResult, as run_attack gives

    The loop makes the baseline prediction for each target, pairs it with yours and stops when the
    halting rules say the ALC is known well enough.
    """

    def __init__(self, release: Release, secret: str, known: Sequence[str], *, name: str = "custom", **options):
        self.release, self.secret, self.known, self.name = release, secret, list(known), name
        self._run = ScenarioRun(release, secret, known, **options)
        self._codes = release.secret_codes(secret)
        self._known_columns = {column: column_values(release, column) for column in self.known}
        self._current: Target | None = None

    def __iter__(self) -> Iterator[Target]:
        while (rows := self._run.next_targets(1)).size:
            row = int(rows[0])
            self._current = Target(row, {column: values[row] for column, values in self._known_columns.items()})
            yield self._current
            if self._current is not None:
                raise RuntimeError("call predict() or abstain() for every target")

    def predict(self, value, confidence: float) -> None:
        """Predict ``value`` (a secret value, a number for a continuous secret) with a rank score."""
        code = self._encode(value)
        self._record(Predictions(np.array([code], np.int32), np.array([float(confidence)]), np.array([False])))

    def abstain(self) -> None:
        self._record(Predictions(np.array([ABSTAINED], np.int32), np.zeros(1), np.array([True])))

    def result(self) -> AttackResult:
        return self._run.result(self.name)

    def _record(self, predictions: Predictions) -> None:
        if self._current is None:
            raise RuntimeError("no target is waiting for a prediction")
        self._current = None
        self._run.record(predictions)

    def _encode(self, value) -> int:
        encoded = self._codes.encode(pd.Series([value]) if hasattr(self._codes, "values") else np.array([float(value)]))
        return int(encoded[0])
