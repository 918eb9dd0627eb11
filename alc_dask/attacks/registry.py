"""Attacks by name, so job files can name them and users can add their own.

An attack is any object with ``predict(release, secret, known, target_rows, source=..., client=...)``
returning ``Predictions`` (codes, confidence, abstained), one per target row. Building one is cheap
(scikit-learn style: the constructor only stores and checks its parameters), so job files are
checked by building their attacks at load.
"""

import inspect
from collections.abc import Callable

from alc_dask.attacks.best_row_match import BestRowMatch
from alc_dask.measure import SettingError

_ATTACKS: dict[str, Callable[..., object]] = {"best_row_match": BestRowMatch}


def register_attack(name: str, factory: Callable[..., object]) -> None:
    """Make ``factory(**params)`` available as ``attack=name``."""
    if name in _ATTACKS:
        raise ValueError(f"an attack named {name!r} is already registered")
    _ATTACKS[name] = factory


def build_attack(name: str, **params):
    """The attack ``name`` built with ``params``; a ``SettingError`` names the name or the parameter at fault."""
    if name not in _ATTACKS:
        registered = ", ".join(sorted(_ATTACKS))
        raise SettingError("name", name, f"a registered attack: {registered}", f"unknown attack {name!r}; registered: {registered}")
    factory = _ATTACKS[name]
    _check_accepted(name, factory, params)
    try:
        return factory(**params)
    except SettingError as error:
        raise SettingError(f"params.{error.field}", error.value, error.expected) from None
    except (TypeError, ValueError) as error:
        raise SettingError("params", params, f"parameters attack {name!r} accepts ({error})") from None


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
