"""What ``check``'s default battery hands each family, and what a family gives back: the inputs with
the choices every family shares (the secrets, the quasi-identifiers), and the job entries the family
adds for them (``EvaluationFamily.battery``). The battery (``alc_dask.apps.battery``) names no family:
each says for itself which evaluations plain tables call for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import pandas as pd
from pandas.api.types import is_numeric_dtype

from alc_dask.data.row_keys import row_keys
from alc_dask.data.schema import MAX_CATEGORIES


@dataclass(frozen=True)
class BatteryTables:
    """The tables a battery is for, and the choices made once for every family.

    Attributes
    ----------
    original, release : pandas.DataFrame
        The people the release was made from, and the release.
    has_control : bool
        Whether a control table of other people comes with them (what every family comparing
        members with non-members needs).
    secrets : tuple of str
        The columns an attacker would want to learn (informative ones only: see the battery).
    quasi_identifiers : tuple of str
        The columns an attacker most likely knows of a person.
    population : int
        How many people the release's people are drawn from (for identification and skews).
    """

    original: pd.DataFrame
    release: pd.DataFrame
    has_control: bool
    secrets: tuple[str, ...]
    quasi_identifiers: tuple[str, ...]
    population: int

    @property
    def columns(self) -> list[str]:
        return list(self.original.columns)

    def is_continuous(self, name: str) -> bool:
        """Numeric with more than ``MAX_CATEGORIES`` distinct values, as the data layer reads it."""
        return is_continuous(self.original[name])

    @cached_property
    def microdata_share(self) -> float:
        """The share of the release's rows that are rows of the original (``copied_share``)."""
        return copied_share(self.original, self.release)


@dataclass(frozen=True)
class BatteryEntries:
    """The job entries a family adds to a battery, and the top-level job settings they need."""

    entries: list[dict[str, Any]]
    job_settings: dict[str, Any] = field(default_factory=dict)


def copied_share(original: pd.DataFrame, release: pd.DataFrame) -> float:
    """The share of the release's rows that are rows of the original, on every column the release has."""
    if release.empty:
        return 0.0
    original_keys, release_keys = row_keys([original, release], list(release.columns))
    return float(pd.Series(release_keys).isin(original_keys).mean())


def is_continuous(column: pd.Series) -> bool:
    """Numeric with more than ``MAX_CATEGORIES`` distinct values."""
    return is_numeric_dtype(column) and column.nunique() > MAX_CATEGORIES
