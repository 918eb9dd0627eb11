"""A report section per evaluation family: each family builds its own (``report_section``); one
without a section of its own shows each evaluation's headline measure and risk label."""

from __future__ import annotations

import pandas as pd

from alc_dask.families import DEFAULT_FAMILY, get_family
from alc_dask.families.presentation import Section

__all__ = ["Section", "headline_of", "section_for", "with_family"]


def section_for(family: str, scores: pd.DataFrame) -> Section:
    """The section of ``family`` for its successful evaluations in ``scores``."""
    return get_family(family).report_section(scores[[c for c in scores.columns if c in _columns_of(family)]])


def _columns_of(family: str) -> set[str]:
    """The identity columns and the family's own measures (not the other families')."""
    from alc_dask.results.schema import family_schema

    return set(family_schema(family).names)


def with_family(scores: pd.DataFrame) -> pd.DataFrame:
    """``scores`` with a ``family`` in every row: results written before families existed are ALC's.
    The column is text even when every value is missing (a column of nulls reads as numbers)."""
    family = scores["family"].astype("str").fillna(DEFAULT_FAMILY) if "family" in scores else DEFAULT_FAMILY
    return scores.assign(family=family)


def headline_of(family: str) -> str:
    """The measure a family's evaluations are ranked and compared by."""
    return get_family(family).headline
