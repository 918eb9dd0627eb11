"""Values as messages show them: a numpy scalar as the Python value it holds, ``3`` and not
``np.int64(3)`` (numpy 2's repr), so that an error reads as the file or job it is about."""

import numpy as np


def shown(value) -> str:
    """``repr(value)``, numpy scalars (alone, or in a list or tuple) shown as Python's."""
    return repr(_plain(value))


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value
