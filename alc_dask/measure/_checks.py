"""Argument checks shared by the measure functions: errors name the argument at fault."""

import numpy as np


def as_float_array(name: str, values, *, low: float | None = None, high: float | None = None) -> np.ndarray:
    """Return ``values`` as a float array, refusing NaN and values outside [low, high]."""
    arr = np.asarray(values, dtype=float)
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN")
    if low is not None and (arr < low).any():
        raise ValueError(f"{name} must be >= {low}; got {arr.min()!r}")
    if high is not None and (arr > high).any():
        raise ValueError(f"{name} must be <= {high}; got {arr.max()!r}")
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
        raise ValueError(f"{name} must lie strictly between 0 and 1; got {value!r}")
    return float(value)


def scalar_or_array(result: np.ndarray):
    """Give back a plain float for scalar input, an array otherwise."""
    return float(result) if result.ndim == 0 else result
