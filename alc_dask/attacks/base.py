"""The one contract every attack follows, in the spirit of scikit-learn estimators.

An attack is built from its parameters: the constructor only stores each under its own name and
checks it (``SettingError`` naming the parameter), so building one is cheap and job files are
checked by building their attacks. It declares its ``kind``: what it is asked and how it answers.

- ``ATTRIBUTE`` inference (the ALC family): ``predict(prepared, targets) -> Predictions``, a secret
  guessed for each target of a ``TargetBlock``;
- ``MEMBERSHIP`` inference (the membership family): ``score(prepared, records) -> scores``, one
  number per record, higher for likelier members.

Before it answers, an attack is prepared once per release, task and worker process:
``prepare(release, task)`` returns whatever its answers share (matched tables' value counts, a
posterior, distances to the release), which ``alc_dask.attacks.prepared`` remembers for as long as
the release lives. ``check(release, task)`` raises ``ScenarioError`` for a task the attack cannot
carry out on the release, before any work (``plan`` calls it).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Hashable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from alc_dask.data import Release
    from alc_dask.measure import Tolerance

ABSTAINED = -1
"""Prediction code of an abstention."""


class Predictions(NamedTuple):
    """Per target: predicted secret code (`ABSTAINED` when abstaining), confidence, abstention; and
    for a continuous secret predicted as a number (within a tolerance), the number (NaN: missing)."""

    codes: np.ndarray
    confidence: np.ndarray
    abstained: np.ndarray
    values: np.ndarray | None = None


class AttackKind(StrEnum):
    ATTRIBUTE = "attribute inference"
    MEMBERSHIP = "membership"


@dataclass(frozen=True)
class AttributeTask:
    """What an attribute-inference attack is asked: the ``secret`` of targets whose ``known``
    columns it knows, as a number right within ``tolerance`` when one is given (else a code)."""

    secret: str
    known: tuple[str, ...]
    tolerance: Tolerance | None = None

    @property
    def key(self) -> Hashable:
        return (self.secret, self.known, self.tolerance)


@dataclass(frozen=True, eq=False)
class TargetBlock:
    """Targets to predict: ``rows`` of the release's original table (``source="control"``: of its
    control table), for ``task``; ``client`` is the Dask client to search a partitioned release on."""

    release: Release
    task: AttributeTask
    rows: np.ndarray | slice
    source: str = "original"
    client: Any = None


class Attack:
    """Base of every attack: its parameters, what its prepared state depends on, and the defaults
    of ``check`` (any task fits) and ``prepare`` (nothing to share: ``prepared`` is None)."""

    kind: ClassVar[AttackKind]

    def get_params(self) -> dict[str, Any]:
        """The constructor's parameters, read from the attributes that store them (scikit-learn's convention)."""
        names = [
            p.name for p in inspect.signature(type(self).__init__).parameters.values() if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        missing = [name for name in names if not hasattr(self, name)]
        if missing:
            raise TypeError(
                f"{type(self).__name__} stores no attribute {', '.join(missing)}: keep each parameter under its own name, or override preparation_key"
            )
        return {name: getattr(self, name) for name in names}

    def identity(self) -> tuple[str, str, str]:
        """The attack's class and parameters: two attacks with the same identity answer alike."""
        return (type(self).__module__, type(self).__qualname__, json.dumps(self.get_params(), sort_keys=True, default=repr))

    def preparation_key(self, task) -> Hashable:
        """What the prepared state depends on besides the release: the attack's identity and the task,
        unless the attack says otherwise."""
        return (*self.identity(), task.key)

    def prepared_on(self, release: Release) -> object:
        """What the prepared state belongs to, and is remembered for as long as it lives: the release,
        or the one of its tables the preparation reads when releases made from another (the prior
        baseline's stand-ins) share that table."""
        return release

    def check(self, release: Release, task) -> None:
        """Raise ``ScenarioError`` when ``task`` cannot be carried out on ``release``."""

    def prepare(self, release: Release, task) -> Any:
        """The state every answer on ``release`` for ``task`` shares. It must not hold ``release`` itself
        (only its tables or arrays): it is remembered for as long as the release lives."""
        return None


class AttributeAttack(Attack):
    """Guesses a secret per target (Francis & Wagner 2025, §5)."""

    kind = AttackKind.ATTRIBUTE

    def predict(self, prepared: Any, targets: TargetBlock) -> Predictions:
        raise NotImplementedError


class MembershipAttack(Attack):
    """Scores records, higher for likelier members of the data the release was made from."""

    kind = AttackKind.MEMBERSHIP

    def score(self, prepared: Any, records) -> np.ndarray:
        """One number per record of ``records`` (a ``MembershipRecords`` of ``alc_dask.families.membership.attacks``)."""
        raise NotImplementedError
