"""What the typing of a column needs to know of a table read in parts, gathered part by part.

A column's typing and code table depend only on each table's set of distinct values (see
`alc_dask.data.schema`), so a profile keeps those, merged over the parts in a tree. A column with
more than `DISTINCT_LIMIT` distinct values keeps that many plus its extremes (lowest and highest
value, by their numbers for number text) and, for text, one value that is not a number: enough
to type it, bin it and tell it continuous, as the whole table would.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

DISTINCT_LIMIT = 100_000
"""Distinct values kept per column: every category of a categorical column must be among them."""


@dataclass(frozen=True)
class ColumnProfile:
    distinct: pd.Series
    """Distinct present values, at most `DISTINCT_LIMIT`, as read."""
    extremes: pd.Series
    """When truncated: the lowest and highest value and, for text, a value that is not a number."""
    truncated: bool

    @classmethod
    def of(cls, values: pd.Series) -> ColumnProfile:
        distinct = pd.Series(values.dropna().unique())
        if len(distinct) <= DISTINCT_LIMIT:
            return cls(distinct, distinct.iloc[:0], truncated=False)
        return cls(distinct.iloc[:DISTINCT_LIMIT].reset_index(drop=True), _extremes(distinct), truncated=True)

    def merge(self, other: ColumnProfile) -> ColumnProfile:
        merged = ColumnProfile.of(pd.concat([self.representative(), other.representative()], ignore_index=True))
        return merged if merged.truncated or not (self.truncated or other.truncated) else _truncated(merged)

    def representative(self) -> pd.Series:
        """Values that type the column as all of its values do."""
        if not self.truncated:
            return self.distinct
        return pd.concat([self.distinct, self.extremes], ignore_index=True).drop_duplicates().reset_index(drop=True)


@dataclass(frozen=True)
class TableProfile:
    n_rows: int
    columns: dict[str, ColumnProfile]

    @classmethod
    def of(cls, frame: pd.DataFrame) -> TableProfile:
        return cls(len(frame), {c: ColumnProfile.of(frame[c]) for c in frame.columns})

    def merge(self, other: TableProfile) -> TableProfile:
        return TableProfile(self.n_rows + other.n_rows, {c: p.merge(other.columns[c]) for c, p in self.columns.items()})


def merge_profiles(*profiles: TableProfile) -> TableProfile:
    merged = profiles[0]
    for other in profiles[1:]:
        merged = merged.merge(other)
    return merged


def _truncated(profile: ColumnProfile) -> ColumnProfile:
    """A merge of a truncated profile stays truncated even when the union fits: values were dropped."""
    return ColumnProfile(profile.distinct, _extremes(profile.distinct), truncated=True)


def _extremes(distinct: pd.Series) -> pd.Series:
    if distinct.dtype != object and not pd.api.types.is_string_dtype(distinct.dtype):
        return pd.Series([distinct.min(), distinct.max()], dtype=distinct.dtype)
    numbers = pd.to_numeric(distinct, errors="coerce")
    picks = [numbers.idxmin(), numbers.idxmax()] if numbers.notna().any() else []
    not_numbers = numbers.isna()
    if not_numbers.any():
        picks.append(not_numbers.idxmax())
    return distinct.loc[picks].reset_index(drop=True)
