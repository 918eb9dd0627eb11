"""A report section per evaluation family: the tables and figures that family's results call for.

Built-in families have their own section; any other family (one installed with an entry point)
gets the generic one, its headline measure and risk label per evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from alc_dask.families import DEFAULT_FAMILY, get_family


@dataclass(frozen=True)
class Section:
    title: str
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    """Caption -> table, in report order."""
    figures: dict[str, bytes] = field(default_factory=dict)
    """Caption -> PNG."""
    notes: tuple[str, ...] = ()


def section_for(family: str, scores: pd.DataFrame) -> Section:
    """The section of ``family`` for its successful evaluations in ``scores``."""
    from alc_dask.report.sections import alc, generic, identification, membership, relative_threat, wp29

    builders = {
        "alc": alc.section,
        "singling_out": wp29.section,
        "linkability": wp29.section,
        "inference": wp29.section,
        "membership": membership.section,
        "identification": identification.section,
        "relative_threat": relative_threat.section,
    }
    builder = builders.get(family, generic.section)
    return builder(family, scores[[c for c in scores.columns if c in _columns_of(family)]])


def _columns_of(family: str) -> set[str]:
    """The identity columns and the family's own measures (not the other families')."""
    from alc_dask.results.schema import IDENTITY

    return {field.name for field in (*IDENTITY, *get_family(family).fields)}


def with_family(scores: pd.DataFrame) -> pd.DataFrame:
    """``scores`` with a ``family`` in every row: results written before families existed are ALC's.
    The column is text even when every value is missing (a column of nulls reads as numbers)."""
    family = scores["family"].astype("str").fillna(DEFAULT_FAMILY) if "family" in scores else DEFAULT_FAMILY
    return scores.assign(family=family)


def headline_of(family: str) -> str:
    """The measure a family's evaluations are ranked and compared by."""
    return get_family(family).headline
