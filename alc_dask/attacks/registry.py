"""Attacks by name, so job files can name them and users can add their own.

An attack is any object with ``predict(release, secret, known, target_rows, source=..., client=...)``
returning ``Predictions`` (codes, confidence, abstained), one per target row; it may also have
``check(release, secret, known, tolerance)`` raising ``ScenarioError`` for a scenario it cannot
attack, which job loading calls so that ``plan`` refuses it. Two ways in: a package's entry point
in the ``alc_dask.attacks`` group, as this package registers its own (found in every process, so
by every worker of a cluster that has the package installed); and ``register_attack`` in your
own process, whose attacks the engine sends along with a job's tasks to every worker. Building one is cheap
(scikit-learn style: the constructor only stores and checks its parameters), so job files are
checked by building their attacks at load. An installed attack's module is imported when
it is first built, and should import its heavy libraries (Numba, Dask) only when it predicts.
"""

import inspect
from collections.abc import Callable

from alc_dask.measure import SettingError
from alc_dask.plugins import installed, load_object

ATTACK_GROUP = "alc_dask.attacks"
_REGISTERED: dict[str, Callable[..., object]] = {}


def register_attack(name: str, factory: Callable[..., object]) -> None:
    """Make ``factory(**params)`` available as ``attack=name``, here and on the workers of jobs run from here."""
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


def attack_names() -> list[str]:
    return sorted({*_REGISTERED, *installed(ATTACK_GROUP)})


def build_attack(name: str, **params):
    """The attack ``name`` built with ``params``; a ``SettingError`` names the name or the parameter at fault."""
    factory = _factory(name)
    if factory is None:
        known = ", ".join(attack_names())
        raise SettingError("name", name, f"a known attack: {known}", f"unknown attack {name!r}; known attacks: {known}")
    _check_accepted(name, factory, params)
    try:
        return factory(**params)
    except SettingError as error:
        raise SettingError(f"params.{error.field}", error.value, error.expected) from None
    except (TypeError, ValueError) as error:
        raise SettingError("params", params, f"parameters attack {name!r} accepts ({error})") from None


def _factory(name: str) -> Callable[..., object] | None:
    """What builds the attack ``name``: registered in this process, else installed (imported now)."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    target = installed(ATTACK_GROUP).get(name)
    return None if target is None else load_object(target)


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
