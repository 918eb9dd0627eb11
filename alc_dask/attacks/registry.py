"""Attacks by name, so job files can name them and users can add their own.

An attack is any object with ``predict(release, secret, known, target_rows, source=..., client=...)``
returning ``Predictions`` (codes, confidence, abstained), one per target row.
"""

from collections.abc import Callable

from alc_dask.attacks.best_row_match import BestRowMatch

_ATTACKS: dict[str, Callable[..., object]] = {"best_row_match": BestRowMatch}


def register_attack(name: str, factory: Callable[..., object]) -> None:
    """Make ``factory(**params)`` available as ``attack=name``."""
    if name in _ATTACKS:
        raise ValueError(f"an attack named {name!r} is already registered")
    _ATTACKS[name] = factory


def build_attack(name: str, **params):
    if name not in _ATTACKS:
        raise ValueError(f"unknown attack {name!r}; registered: {sorted(_ATTACKS)}")
    return _ATTACKS[name](**params)
