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
    """One target handed to a custom attack: its original row and the values of the known columns.

    Examples
    --------
    >>> from alc_dask import AttackLoop
    >>> from alc_dask.testing.truth import truth_releases
    >>> loop = AttackLoop(truth_releases(rows=500).release("copy"), "occupation", ["sex", "region"])
    >>> target = next(iter(loop))
    >>> sorted(target.known)
    ['region', 'sex']
    """

    row: int
    known: dict


class AttackLoop:
    """The paper's attack loop for attacks of your own: iterate over targets, answer each.

    The loop hands out targets (`Target`: the row and its known values) in a seeded random order,
    makes the baseline's prediction for each, pairs it with yours and stops when the halting rules
    say the ALC is known well enough. Answer every target with `predict` or `abstain` before the
    next; `result` gives an `AttackResult`, as `run_attack` does.

    Parameters
    ----------
    release : Release
        The release attacked.
    secret : str
        The column to guess.
    known : sequence of str
        The columns your attack knows of each target (in ``Target.known``).
    name : str, default "custom"
        The attack's name in the result.
    **options
        As `run_attack`'s: ``baseline``, ``targets``, ``seed``, ``halting``, ``measure``, ...

    Raises
    ------
    RuntimeError
        A target left without an answer, or an answer without a target.

    Examples
    --------
    An attack that knows the truth for men and abstains for women:

    >>> from alc_dask import AttackLoop
    >>> from alc_dask.testing.truth import truth_releases
    >>> truth = truth_releases(rows=500)
    >>> loop = AttackLoop(truth.release("copy"), secret="occupation", known=["sex", "region"], seed=0)
    >>> for target in loop:
    ...     if target.known["sex"] == "male":
    ...         loop.predict(truth.members.occupation[target.row], confidence=1.0)
    ...     else:
    ...         loop.abstain()
    >>> result = loop.result()
    >>> round(result.alc, 2), result.halt_code, result.abstentions > 0
    (0.97, 'early_high_loose', True)
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
        """Answer the current target: ``value`` (a secret value; a number for a continuous secret)
        with ``confidence``, a rank score (higher: surer), by which the measure keeps your best guesses."""
        code = self._encode(value)
        self._record(Predictions(np.array([code], np.int32), np.array([float(confidence)]), np.array([False])))

    def abstain(self) -> None:
        """Answer the current target with no guess: it counts as the baseline's guess at confidence 0."""
        self._record(Predictions(np.array([ABSTAINED], np.int32), np.zeros(1), np.array([True])))

    def result(self) -> AttackResult:
        """The scenario's outcome so far (the final one once the loop has stopped)."""
        return self._run.result(self.name)

    def _record(self, predictions: Predictions) -> None:
        if self._current is None:
            raise RuntimeError("no target is waiting for a prediction")
        self._current = None
        self._run.record(predictions)

    def _encode(self, value) -> int:
        encoded = self._codes.encode(pd.Series([value]) if hasattr(self._codes, "values") else np.array([float(value)]))
        return int(encoded[0])
