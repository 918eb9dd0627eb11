"""Argument checks shared by the measure functions: errors name the argument at fault."""

import math

import numpy as np

from alc_dask.errors import InputError
from alc_dask.shown import shown


def as_float_array(name: str, values, *, low: float | None = None, high: float | None = None) -> np.ndarray:
    """Return ``values`` as a float array, refusing NaN and values outside [low, high]."""
    arr = np.asarray(values, dtype=float)
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN")
    if low is not None and (arr < low).any():
        raise ValueError(f"{name} must be >= {low}; got {shown(arr.min())}")
    if high is not None and (arr > high).any():
        raise ValueError(f"{name} must be <= {high}; got {shown(arr.max())}")
    return arr


def as_nonempty_1d(name: str, values, dtype) -> np.ndarray:
    arr = np.asarray(values, dtype=dtype)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    return arr


def as_correctness(name: str, values) -> np.ndarray:
    """Return a non-empty 1-d boolean array, accepting booleans or 0/1 numbers."""
    arr = as_nonempty_1d(name, values, dtype=None)
    if arr.dtype == bool:
        return arr
    if arr.dtype.kind not in "iuf" or not np.isin(arr, (0, 1)).all():
        raise ValueError(f"{name} must hold only booleans or 0/1")
    return arr.astype(bool)


def same_length(**arrays: np.ndarray) -> None:
    lengths = {name: len(arr) for name, arr in arrays.items()}
    if len(set(lengths.values())) > 1:
        described = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        raise ValueError(f"mismatched lengths: {described}")


def in_open_unit(name: str, value: float) -> float:
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must lie strictly between 0 and 1; got {shown(value)}")
    return float(value)


def scalar_or_array(result: np.ndarray):
    """Give back a plain float for scalar input, an array otherwise."""
    return float(result) if result.ndim == 0 else result


class SettingError(InputError, ValueError):
    """A settings field holds a value it cannot take: names the field, the value and what is allowed.

    Raised when a settings object is built, so the Python API and job files refuse the same values
    (the job layer turns ``field`` into the place of the error in the job file). An `InputError`
    and a ``ValueError``.

    Parameters
    ----------
    field : str
        The field at fault (``params.<name>`` for an attack's parameter).
    value : object
        The value it holds.
    expected : str
        What it may hold, as the message says it ("a number greater than 0").
    message : str, optional
        The message, when not ``"<field> must be <expected>; got <value>"``.

    Examples
    --------
    >>> from alc_dask.measure import SettingError, Tolerance
    >>> try:
    ...     Tolerance(epsilon=0)
    ... except SettingError as error:
    ...     print(error.field, "|", error.expected, "|", error)
    epsilon | a number greater than 0 | epsilon must be a number greater than 0; got 0
    """

    def __init__(self, field: str, value, expected: str, message: str | None = None):
        super().__init__(message or f"{field} must be {expected}; got {shown(value)}")
        self.field, self.value, self.expected = field, value, expected

    def __reduce__(self):  # rebuilt from its fields, e.g. when Dask sends it from a worker
        return type(self), (self.field, self.value, self.expected, str(self))


def check_number(field: str, value, low: float = -math.inf, high: float = math.inf, *, open_low: bool = False, open_high: bool = False) -> None:
    """Refuse NaN, infinities and numbers outside [low, high] (or the open ends asked for)."""
    number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    inside = number and math.isfinite(value) and (value > low if open_low else value >= low) and (value < high if open_high else value <= high)
    if not inside:
        raise SettingError(field, value, _range_text(low, high, open_low, open_high))


def check_count(field: str, value, minimum: int = 1) -> None:
    """Refuse anything but a whole number of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise SettingError(field, value, f"a whole number at least {minimum}")


def check_order(low_field: str, low, high_field: str, high) -> None:
    """Refuse a lower bound above its upper bound, naming the upper one."""
    if low > high:
        raise SettingError(high_field, high, f"at least {low_field} ({shown(low)})")


def _range_text(low: float, high: float, open_low: bool, open_high: bool) -> str:
    if math.isinf(high):
        return f"a number {'greater than' if open_low else 'at least'} {low:g}"
    if math.isinf(low):
        return f"a number {'below' if open_high else 'at most'} {high:g}"
    return f"a number in {'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}"
