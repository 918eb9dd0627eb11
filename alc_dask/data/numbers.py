"""The numbers of one column, exact: float64 when that loses nothing, else Python numbers.

float64 holds every integer up to 2^53 exactly; beyond, distinct integers round to one double
(two 18-digit account ids, int64 values 2^60 and 2^60+1), so a code table built on doubles would
merge them and the attack would see one category where the data has two. A column holding such
an integer in any table is therefore kept as Python numbers in every table: ints for integral
values, floats otherwise (which compare exactly with each other), NaN missing. Other columns are
float64 as before. Continuous columns become float64 (`as_floats`) only for distances, measured
from the column's `origin` (its smallest integer, subtracted exactly): an 18-digit id column
spanning less than 2^53 keeps every id apart as a float, where the ids themselves would round
into each other and an unchanged copy of the original would look safe.

Datetimes count as integer nanoseconds since 1970-01-01 UTC (tz-aware values are converted to
UTC, naive ones read as UTC; text in ISO 8601, as CSV files hold them, alike); durations as
integer nanoseconds.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from alc_dask.data.errors import ReleaseError

FLOAT_EXACT_LIMIT = 2**53
"""Every integer of at most this magnitude is exact in float64."""
TIME_TYPES = {"datetime64", "datetime", "date", "timedelta64", "timedelta", "datetime text"}
"""pandas' inferred types of times (and ours of text read as datetimes), counted in nanoseconds."""
_INTEGER_TEXT = r"\s*[+-]?\d+\s*"


def numbers_of(column: str, table: str, series: pd.Series, inferred: str) -> pd.Series:
    """One table's values of a numeric column (pandas' `inferred` type): float64, or Python numbers."""
    if inferred in TIME_TYPES:
        numbers = _time_ticks(column, table, series, inferred)
    elif inferred == "string":
        numbers = _parsed_text(series)
    elif inferred in ("integer", "mixed-integer-float"):
        numbers = _integers(series)
    else:
        numbers = _floats(series)
    if _has_infinite(numbers):
        raise ReleaseError(f"{table}: column {column!r} holds infinite values")
    return numbers


def parses_as_datetimes(text: pd.Series) -> bool:
    """Whether every value of `text` is a datetime in ISO 8601 (day and month never guessed)."""
    try:
        pd.to_datetime(pd.Series(text.dropna().unique()), utc=True, format="ISO8601")
    except (TypeError, ValueError, OverflowError):
        return False
    return True


def origin_of(typed: list[pd.Series]) -> int:
    """Where a column of exact numbers is measured from: the floor of its smallest value (0 for
    float64 columns, which lose nothing by rounding and so stay as they are)."""
    if all(series.dtype != object for series in typed):
        return 0
    present = [v for series in typed for v in series.tolist() if v == v]
    return math.floor(min(present)) if present else 0


def as_floats(column: str, table: str, series: pd.Series, origin: int = 0) -> np.ndarray:
    """float64 values of a continuous column (for distances and bins) measured from `origin`
    (subtracted exactly, before rounding), NaN missing."""
    try:
        if origin:
            return np.array([float(v - origin) if v == v else np.nan for v in series.tolist()], dtype=np.float64)
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    except OverflowError:
        raise ReleaseError(
            f"{table}: column {column!r} holds a number beyond the float range (about 1.8e308), which a continuous "
            "column cannot measure; declare it categorical in `columns`"
        ) from None


def _floats(series: pd.Series) -> pd.Series:
    if series.dtype == np.float64:  # already: kept, not copied (pandas copies on write); check held each column of its tables twice
        return series
    return pd.Series(series.to_numpy(dtype=np.float64, na_value=np.nan), index=series.index)


def _integers(series: pd.Series) -> pd.Series:
    """Typed integers (numpy, nullable) or Python ints among floats: Python numbers once one is too big."""
    if pd.api.types.is_integer_dtype(series.dtype):
        present = series.dropna()
        too_big = len(present) and (present.max() > FLOAT_EXACT_LIMIT or present.min() < -FLOAT_EXACT_LIMIT)
    else:
        too_big = any(isinstance(v, (int, np.integer)) and abs(int(v)) > FLOAT_EXACT_LIMIT for v in series.dropna())
    return python_numbers(series) if too_big else _floats(series)


def _parsed_text(series: pd.Series) -> pd.Series:
    """Numbers written as text (CSV cells): integer text is parsed exactly when a double would round it."""
    numbers = pd.to_numeric(series)
    if pd.api.types.is_integer_dtype(numbers.dtype):
        return _integers(numbers)
    if numbers.dtype == np.float64 and not (np.abs(numbers.to_numpy()) >= FLOAT_EXACT_LIMIT).any():
        return numbers
    values = numbers.to_numpy(dtype=object)
    text = series.to_numpy(dtype=object)
    integral = series.str.fullmatch(_INTEGER_TEXT).fillna(False).to_numpy(dtype=bool)
    values[integral] = [int(t) for t in text[integral]]
    return python_numbers(pd.Series(values, index=series.index))


def _time_ticks(column: str, table: str, series: pd.Series, inferred: str) -> pd.Series:
    try:
        if inferred.startswith("timedelta"):
            times = pd.to_timedelta(series)
        else:
            text_format = "ISO8601" if inferred == "datetime text" else None
            times = pd.to_datetime(series, utc=True, format=text_format).dt.tz_convert(None)
    except (TypeError, ValueError) as error:
        raise ReleaseError(f"{table}: column {column!r} holds datetimes that cannot be compared ({error})") from None
    unit, _ = np.datetime_data(times.dtype)
    ticks = times.to_numpy().view(np.int64).astype(object) * int(np.timedelta64(1, unit) / np.timedelta64(1, "ns"))
    ticks[times.isna().to_numpy()] = np.nan
    return _integers(pd.Series(ticks, index=series.index))


def _has_infinite(numbers: pd.Series) -> bool:
    if numbers.dtype == np.float64:
        return bool(np.isinf(numbers.to_numpy()).any())
    return any(isinstance(v, float) and np.isinf(v) for v in numbers)


def python_numbers(series: pd.Series) -> pd.Series:
    """object Series of Python ints (integral values) and floats, NaN missing: exact and hashable alike."""
    return pd.Series([_exact(v) for v in series.tolist()], index=series.index, dtype=object)


def _exact(value: object) -> int | float:
    if value is None or value is pd.NA or value is pd.NaT:
        return np.nan
    if isinstance(value, (int, np.integer)):
        return int(value)
    number = float(value)
    return int(number) if number.is_integer() else number
