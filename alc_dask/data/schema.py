"""Column types and kinds, decided once over every table of a release.

Typing: a column is numeric when every table holds numbers in it (CSV text that parses as
numbers counts, and so do datetimes, as nanoseconds: see `alc_dask.data.numbers`); otherwise it
is text. Numbers stay exact: integers beyond 2^53 are never merged by rounding to float64.
Kind: a numeric column with more than `max_categories` distinct values is continuous, every
other column categorical; `columns` overrides either.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd

from alc_dask.data.encoding import Bins, CodeTable
from alc_dask.data.errors import ReleaseError
from alc_dask.data.numbers import TIME_TYPES, as_floats, numbers_of, origin_of, parses_as_datetimes, python_numbers

MAX_CATEGORIES = 20
_NUMBER_TYPES = {"integer", "floating", "mixed-integer-float", "decimal", "boolean"}


class ColumnKind(StrEnum):
    CATEGORICAL = "categorical"
    CONTINUOUS = "continuous"


@dataclass(frozen=True, eq=False)
class Column:
    """One column of the release: its kind and how its values become codes.

    Categorical: `codes` maps values to codes. Continuous: `bins` discretizes it when it is a secret
    (the copy named `<name>__discretized`); as a known column its value is used as it is, measured
    from `origin` (0 but for columns of integers beyond 2^53, see `alc_dask.data.numbers`).
    """

    name: str
    kind: ColumnKind
    codes: CodeTable | None = None
    bins: Bins | None = None
    origin: int = 0

    @property
    def secret_codes(self) -> CodeTable | Bins:
        """How the column's values are coded when it is the secret."""
        return self.codes if self.kind is ColumnKind.CATEGORICAL else self.bins


def parse_kind(column: str, kind: object) -> ColumnKind:
    try:
        return ColumnKind(kind)
    except ValueError:
        allowed = [k.value for k in ColumnKind]
        raise ReleaseError(f"columns[{column!r}]: unknown kind {kind!r}; expected one of {allowed}") from None


@dataclass(frozen=True)
class Typing:
    """How one column's values are typed in every table, decided over all of them.

    `numeric`: numbers (float64, or Python numbers where `exact`) rather than text. `readings` maps a
    table to how its values are read: pandas' inferred type of them, or "datetime text" for ISO
    8601 text read as datetimes. A table read in parts (partitions) applies the same typing to each.
    """

    numeric: bool
    exact: bool
    readings: dict[str, str]

    def apply(self, column: str, table: str, series: pd.Series) -> pd.Series:
        """`series` (all or part of `table`'s values of `column`) in this typing."""
        reading = self.readings[table]
        if not self.numeric:
            if reading == "string" or (reading == "empty" and series.dtype == object):
                return series
            if reading == "empty":
                return series.astype(object)
            return series.map(_as_text, na_action="ignore")
        numbers = numbers_of(column, table, series, reading)
        if self.exact and numbers.dtype != object:
            return python_numbers(numbers)
        return numbers


def _decide(column: str, parts: dict[str, pd.Series], kind: ColumnKind | None) -> tuple[Typing, dict | None]:
    """Give `column` one type in every table: numbers (NaN missing) or text; numbers also typed.

    Numbers are float64, or Python numbers in every table when one integer is beyond 2^53 (see
    `alc_dask.data.numbers`); datetimes are numbers of nanoseconds. `parts` maps a table name to
    the column's values in that table; the decision depends only on each table's set of distinct
    values, so a table's distinct values (with its extremes) decide as the whole table does. Text
    that parses as numbers (as CSV cells do) is numeric unless another table holds non-numeric text
    in the column; ISO 8601 text is a datetime where another table holds datetimes. Typed numbers
    in one table and non-numeric text in another are an error unless the column is declared
    categorical, which turns every value into text.
    """
    numbers, number_text, text, empty = {}, {}, {}, {}
    readings = {table: pd.api.types.infer_dtype(series, skipna=True) for table, series in parts.items()}
    for table, series in parts.items():
        inferred = readings[table]
        if inferred == "empty":
            empty[table] = series
        elif inferred in _NUMBER_TYPES or inferred in TIME_TYPES:
            numbers[table] = series
        elif inferred == "string":
            if _parses_as_numbers(series):
                number_text[table] = series
            else:
                text[table] = series
        elif inferred in ("mixed-integer", "mixed") and _numbers_and_text(series):
            if kind is not ColumnKind.CATEGORICAL:
                raise ReleaseError(f"{table}: column {column!r} mixes numbers and text; declare it categorical in `columns` to treat every value as text")
            text[table] = series
        else:
            raise ReleaseError(f"{table}: column {column!r} holds values that are neither numbers nor text ({inferred})")
    if text and any(readings[t] in TIME_TYPES for t in numbers):
        for table in [t for t in text if parses_as_datetimes(text[t])]:
            numbers[table], readings[table] = text.pop(table), "datetime text"
    if text and numbers and kind is not ColumnKind.CATEGORICAL:
        number_table, text_table = next(iter(numbers)), next(iter(text))
        raise ReleaseError(
            f"column {column!r} cannot be typed consistently: numbers in {number_table} but text in "
            f"{text_table} (e.g. {_first_non_number(text[text_table])!r}); declare it categorical in "
            "`columns` to treat every value as text"
        )
    if text:
        return Typing(numeric=False, exact=False, readings=readings), None
    typed = {table: numbers_of(column, table, series, readings[table]) for table, series in parts.items()}
    return Typing(numeric=True, exact=any(n.dtype == object for n in typed.values()), readings=readings), typed


def decide_typing(column: str, parts: dict[str, pd.Series], kind: ColumnKind | None) -> Typing:
    """The typing of `column` (see `_decide`), to apply to each part of a table read in parts."""
    return _decide(column, parts, kind)[0]


def type_column(column: str, parts: dict[str, pd.Series], kind: ColumnKind | None) -> tuple[dict[str, pd.Series], Typing]:
    """Every table's values of `column` typed alike, and their typing (see `decide_typing`)."""
    typing, numbers = _decide(column, parts, kind)
    if numbers is None:
        return {table: typing.apply(column, table, series) for table, series in parts.items()}, typing
    return {t: python_numbers(n) if typing.exact and n.dtype != object else n for t, n in numbers.items()}, typing


def infer_kind(column: str, typed: dict[str, pd.Series], typing: Typing, kind: ColumnKind | None, max_categories: int = MAX_CATEGORIES) -> ColumnKind:
    """The declared kind, else categorical for text, few values and integers that floats cannot keep apart."""
    if kind is ColumnKind.CONTINUOUS and not typing.numeric:
        table, series = next((t, s) for t, s in typed.items() if _first_non_number(s) is not None)
        raise ReleaseError(f"{table}: column {column!r} is declared continuous but holds text (e.g. {_first_non_number(series)!r})")
    merged = typing.numeric and _floats_merge_integers(typed, typing)
    if kind is ColumnKind.CONTINUOUS and merged:
        raise ReleaseError(
            f"column {column!r} is declared continuous but holds integers (e.g. {merged[0]} and {merged[1]}) that become one "
            "number as floats, even measured from the column's smallest value (its span is beyond 2^53); declare it categorical"
        )
    if kind is not None:
        return kind
    if not typing.numeric or merged:
        return ColumnKind.CATEGORICAL
    values = pd.concat([s.dropna() for s in typed.values()], ignore_index=True)
    head = values.iloc[:10_000].unique()  # more distinct values in a head settles it without a full pass
    many = len(head) > max_categories or len(values.unique()) > max_categories
    return ColumnKind.CONTINUOUS if many else ColumnKind.CATEGORICAL


def build_column(column: str, kind: ColumnKind, typed: dict[str, pd.Series], numeric: bool, released: list[str]) -> Column:
    """The code table (over every table, control included) or the secret's bins (over the
    original and the anonymized tables, named in `released`) and the origin its values are measured from."""
    if kind is ColumnKind.CATEGORICAL:
        return Column(column, kind, codes=CodeTable.from_values(list(typed.values()), numeric))
    origin = origin_of(list(typed.values()))
    present = np.concatenate([as_floats(column, t, typed[t], origin) for t in released if t in typed])
    present = present[~np.isnan(present)]
    low, high = (float(present.min()), float(present.max())) if present.size else (0.0, 0.0)
    return Column(column, kind, bins=Bins(low, high), origin=origin)


def _floats_merge_integers(typed: dict[str, pd.Series], typing: Typing) -> tuple[int, int] | None:
    """Two distinct integers of a column (not of times, where nanoseconds may round) that are one
    float64 even measured from the column's origin, if there are such."""
    if not typing.exact or any(reading in TIME_TYPES for reading in typing.readings.values()):
        return None
    distinct = pd.unique(pd.concat([s.dropna() for s in typed.values()], ignore_index=True))
    floats = as_floats("", "", pd.Series(distinct, dtype=object), origin_of([pd.Series(distinct, dtype=object)]))
    order = np.argsort(floats, kind="stable")
    same = np.flatnonzero(floats[order][1:] == floats[order][:-1])
    return (distinct[order[same[0]]], distinct[order[same[0] + 1]]) if same.size else None


def _parses_as_numbers(series: pd.Series) -> bool:
    distinct = pd.Series(series.dropna().unique())
    return bool(pd.to_numeric(distinct, errors="coerce").notna().all())


def _numbers_and_text(series: pd.Series) -> bool:
    return all(isinstance(v, (str, int, float, np.number)) for v in series.dropna())


def _as_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)):
        return str(int(value))  # exactly, however many digits
    if isinstance(value, (datetime.date, datetime.timedelta, np.datetime64, np.timedelta64)):
        return str(value)
    number = float(value)
    return str(int(number)) if number.is_integer() else repr(number)


def _first_non_number(series: pd.Series) -> object:
    parsed = pd.to_numeric(series, errors="coerce")
    odd = series[series.notna() & parsed.isna()]
    return odd.iloc[0] if len(odd) else None
