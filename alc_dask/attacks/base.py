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

import functools
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
    """What an attribute attack answers for a block of targets, one entry per target.

    Attributes
    ----------
    codes : numpy.ndarray of int32
        The predicted secret code (as the release encodes the secret), `ABSTAINED` when abstaining.
    confidence : numpy.ndarray of float
        The rank score: the measure keeps the attack's most confident predictions when that pays.
    abstained : numpy.ndarray of bool
        Whether the attack made no guess (counted as the baseline's guess at confidence 0).
    values : numpy.ndarray of float or None
        For a continuous secret predicted as a number (scored within a tolerance), the number (NaN: missing).

    Examples
    --------
    >>> import numpy as np
    >>> from alc_dask.attacks import ABSTAINED, Predictions
    >>> codes = np.array([2, ABSTAINED], np.int32)
    >>> Predictions(codes, np.array([0.8, 0.0]), codes == ABSTAINED).abstained.tolist()
    [False, True]
    """

    codes: np.ndarray
    confidence: np.ndarray
    abstained: np.ndarray
    values: np.ndarray | None = None


class AttackKind(StrEnum):
    """What an attack is asked: a secret per target (attribute inference) or a score per record (membership).

    Examples
    --------
    >>> from alc_dask.attacks import AttackKind, AttributeAttack
    >>> AttributeAttack.kind is AttackKind.ATTRIBUTE
    True
    """

    ATTRIBUTE = "attribute inference"
    MEMBERSHIP = "membership"


@dataclass(frozen=True)
class AttributeTask:
    """What an attribute-inference attack is asked: the ``secret`` of targets whose ``known``
    columns it knows, as a number right within ``tolerance`` when one is given (else a code).

    Attributes
    ----------
    secret : str
    known : tuple of str
    tolerance : Tolerance or None

    Examples
    --------
    >>> from alc_dask.attacks import AttributeTask
    >>> AttributeTask("income", ("age", "zip")).key
    ('income', ('age', 'zip'), None)
    """

    secret: str
    known: tuple[str, ...]
    tolerance: Tolerance | None = None

    @property
    def key(self) -> Hashable:
        """What a prepared state for this task is remembered under."""
        return (self.secret, self.known, self.tolerance)


@dataclass(frozen=True, eq=False)
class TargetBlock:
    """Targets to predict: ``rows`` of the release's original table (``source="control"``: of its
    control table), for ``task``. A release partitioned on a cluster is searched there: its blocks'
    futures carry their client.

    Attributes
    ----------
    release : Release
    task : AttributeTask
    rows : numpy.ndarray or slice
    source : {"original", "control"}

    Examples
    --------
    >>> import numpy as np
    >>> from alc_dask.attacks import AttributeTask, TargetBlock
    >>> from alc_dask.testing.truth import truth_releases
    >>> release = truth_releases(rows=500).release("copy")
    >>> block = TargetBlock(release, AttributeTask("occupation", ("sex", "region")), np.arange(3))
    >>> release.targets(block.rows, block.source).column_array("sex").tolist()  # the targets' codes
    [1, 1, 0]
    """

    release: Release
    task: AttributeTask
    rows: np.ndarray | slice
    source: str = "original"


class Attack:
    """Base of every attack: its parameters, what its prepared state depends on, and the defaults
    of ``check`` (any task fits) and ``prepare`` (nothing to share: ``prepared`` is None)."""

    kind: ClassVar[AttackKind]

    def get_params(self) -> dict[str, Any]:
        """The constructor's parameters, read from the attributes that store them (scikit-learn's convention)."""
        names = _parameter_names(type(self))
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
    """Guesses a secret per target (Francis & Wagner 2025, §5): the attacks of the ALC family.

    Subclass it: the constructor stores each parameter under its own name, ``prepare`` computes
    once per release what every answer shares, and ``predict`` answers a block of targets.
    `register_attack` (or an entry point in the ``alc_dask.attacks`` group) makes it available by
    name to `run_attack`, job files and a cluster's workers.

    Examples
    --------
    An attack that guesses the secret most common in the release, for everyone: it should teach no
    more than the baseline does (an ALC about 0).

    >>> import numpy as np
    >>> from alc_dask import register_attack, run_attack
    >>> from alc_dask.attacks import AttributeAttack, Predictions
    >>> from alc_dask.testing.truth import truth_releases
    >>> class MostCommon(AttributeAttack):
    ...     def prepare(self, release, task):
    ...         return np.bincount(release.true_codes(task.secret, release.anonymized[0])).argmax()
    ...
    ...     def predict(self, prepared, targets):
    ...         n = targets.release.targets(targets.rows, targets.source).n_rows
    ...         return Predictions(np.full(n, prepared, np.int32), np.ones(n), np.zeros(n, bool))
    >>> register_attack("most_common", MostCommon)
    >>> result = run_attack(truth_releases(rows=500).release("copy"), "occupation", ["sex", "region"], attack="most_common")
    >>> round(result.alc, 2)
    -0.04
    """

    kind = AttackKind.ATTRIBUTE

    def predict(self, prepared: Any, targets: TargetBlock) -> Predictions:
        """One prediction per target of ``targets``, from ``prepared`` (what ``prepare`` returned)."""
        raise NotImplementedError


class MembershipAttack(Attack):
    """Scores records, higher for likelier members of the data the release was made from: the
    attacks of the membership family.

    Subclass it as `AttributeAttack`, with ``score`` instead of ``predict``.

    Examples
    --------
    Members whose every value is found as is in the release: a copy gives everyone away, a fresh
    sample no one (an AUC of 0.5).

    >>> import numpy as np
    >>> from alc_dask import register_attack
    >>> from alc_dask.attacks import MembershipAttack
    >>> from alc_dask.families import get_family
    >>> from alc_dask.testing.truth import truth_releases
    >>> class SeenAsIs(MembershipAttack):
    ...     def prepare(self, release, task):
    ...         table = release.anonymized[task.table]
    ...         return set(zip(*(table.column_array(column) for column in task.columns)))
    ...
    ...     def score(self, prepared, records):
    ...         rows = zip(*(records.encoded.column_array(column) for column in records.task.columns))
    ...         return np.array([row in prepared for row in rows], dtype=float)
    >>> register_attack("seen_as_is", SeenAsIs)
    >>> membership, truth = get_family("membership"), truth_releases(rows=500)
    >>> [membership(attack="seen_as_is").evaluate(truth.release(name), seed=0).measures["auc"] for name in ("copy", "bootstrap")]
    [1.0, 0.5]
    """

    kind = AttackKind.MEMBERSHIP

    def score(self, prepared: Any, records) -> np.ndarray:
        """One number per record of ``records`` (a ``MembershipRecords`` of ``alc_dask.families.membership.attacks``)."""
        raise NotImplementedError


@functools.cache
def _parameter_names(attack_class: type) -> tuple[str, ...]:
    """The constructor's named parameters; read once per class (every batch of targets asks for an attack's identity)."""
    parameters = inspect.signature(attack_class.__init__).parameters.values()
    return tuple(p.name for p in parameters if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))
