"""Attacks by name, so job files can name them and users can add their own; families ask for the
attacks of their kind (``AttackKind``).

An attack follows ``alc_dask.attacks.base``: a class whose constructor takes its parameters and
whose ``kind`` says what it is asked. Two ways in: a package's entry point in the
``alc_dask.attacks`` group, as this package registers its own (found in every process, so by every
worker of a cluster that has the package installed); and ``register_attack`` in your own process,
whose attacks the engine sends along with a job's tasks to every worker. Building one is cheap, so
job files are checked by building their attacks at load. An installed attack's module is imported
when it is first built (or its kind asked), and should import its heavy libraries (Numba, Dask)
only when it prepares or answers.

A factory without a ``kind`` (a function, or a class of the earlier contract) is taken as an
attribute-inference attack; an object it builds that is no ``Attack`` but has the earlier
``predict(release, secret, known, target_rows, ...)`` is run through ``PlainPredictor``.
"""

import inspect
from collections.abc import Callable

from alc_dask.attacks.base import Attack, AttackKind
from alc_dask.measure import SettingError
from alc_dask.plugins import installed, load_object

ATTACK_GROUP = "alc_dask.attacks"
_REGISTERED: dict[str, Callable[..., object]] = {}


def register_attack(name: str, factory: Callable[..., object]) -> None:
    """Make ``factory(**params)`` available as ``attack=name``, here and on the workers of jobs run from here.

    For an attack of your own without packaging it: jobs run from this process send it to every
    worker. An installed package registers its attacks by entry points instead.

    Parameters
    ----------
    name : str
        The name `run_attack`, `AttackLoop` and job files use.
    factory : callable
        An `AttributeAttack` or `MembershipAttack` class, or anything that builds one from the
        attack's parameters (one without ``kind`` is taken for an attribute attack).

    Returns
    -------
    None

    Raises
    ------
    ValueError
        ``name`` is taken (by a registered or an installed attack).

    Examples
    --------
    >>> import numpy as np
    >>> from alc_dask import register_attack, run_attack
    >>> from alc_dask.attacks import ABSTAINED, AttributeAttack, Predictions
    >>> from alc_dask.testing.truth import truth_releases
    >>> class Abstains(AttributeAttack):
    ...     def predict(self, prepared, targets):
    ...         n = targets.release.targets(targets.rows, targets.source).n_rows
    ...         return Predictions(np.full(n, ABSTAINED, np.int32), np.zeros(n), np.ones(n, bool))
    >>> register_attack("abstains", Abstains)
    >>> run_attack(truth_releases(rows=500).release("copy"), "occupation", ["sex"], attack="abstains").abstentions > 0
    True
    >>> register_attack("best_row_match", Abstains)
    Traceback (most recent call last):
    ...
    ValueError: an attack named 'best_row_match' is already registered
    """
    if name in attack_names():
        raise ValueError(f"an attack named {name!r} is already registered")
    _REGISTERED[name] = factory


def registered_attacks() -> dict[str, Callable[..., object]]:
    """The attacks ``register_attack`` added in this process (what a job sends to its workers)."""
    return dict(_REGISTERED)


def ensure_registered(attacks: dict[str, Callable[..., object]]) -> None:
    """Register on a worker the attacks its client registered (each once)."""
    for name, factory in attacks.items():
        _REGISTERED.setdefault(name, factory)


def attack_names(kind: AttackKind | None = None) -> list[str]:
    """Every attack's name, or those of one kind (their modules imported to read it)."""
    names = sorted({*_REGISTERED, *installed(ATTACK_GROUP)})
    return names if kind is None else [name for name in names if _kind_of(_factory(name)) is kind]


def build_attack(name: str, kind: AttackKind | None = None, /, **params) -> Attack:
    """The attack ``name`` built with ``params``, of ``kind`` when one is asked for; a ``SettingError``
    names the name (unknown, or of another kind, with the known attacks of the kind) or the parameter at fault."""
    factory = _factory(name)
    if factory is None:
        known = ", ".join(attack_names(kind))
        raise SettingError("name", name, f"a known {_described(kind)}: {known}", f"unknown {_described(kind)} {name!r}; known: {known}")
    if kind is not None and _kind_of(factory) is not kind:
        _refuse_kind(name, kind, _kind_of(factory))
    _check_accepted(name, factory, params)
    try:
        built = factory(**params)
    except SettingError as error:
        raise SettingError(f"params.{error.field}", error.value, error.expected) from None
    except (TypeError, ValueError) as error:
        raise SettingError("params", params, f"parameters attack {name!r} accepts ({error})") from None
    built = _as_attack(name, built)
    if kind is not None and built.kind is not kind:
        _refuse_kind(name, kind, built.kind)
    return built


def _described(kind: AttackKind | None) -> str:
    return "attack" if kind is None else f"{kind} attack"


def _refuse_kind(name: str, kind: AttackKind, other: AttackKind):
    known = ", ".join(attack_names(kind))
    raise SettingError(
        "name",
        name,
        f"one of the {kind} attacks: {known} ({name!r} is for {other})",
        f"attack {name!r} is for {other}, not {kind}; known {kind} attacks: {known}",
    )


def _factory(name: str) -> Callable[..., object] | None:
    """What builds the attack ``name``: registered in this process, else installed (imported now)."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    target = installed(ATTACK_GROUP).get(name)
    return None if target is None else load_object(target)


def _kind_of(factory) -> AttackKind:
    return getattr(factory, "kind", AttackKind.ATTRIBUTE)


def _as_attack(name: str, built) -> Attack:
    if isinstance(built, Attack):
        return built
    if callable(getattr(built, "predict", None)):
        from alc_dask.attacks.legacy import PlainPredictor

        return PlainPredictor(built)
    raise TypeError(f"attack {name!r} built a {type(built).__name__}, which is no alc_dask.attacks.base.Attack (nor has the earlier predict method)")


def _check_accepted(name: str, factory: Callable[..., object], params: dict) -> None:
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # no signature to read (e.g. a builtin): the factory checks itself
        return
    parameters = signature.parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return
    accepted = [p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for key, value in params.items():
        if key not in accepted:
            raise SettingError(f"params.{key}", value, f"a parameter of attack {name!r}, one of: {', '.join(accepted) or '(none)'}")
