"""Which original rows are attacked: all of them in a seeded random order, or a pre-targeted group.

A pre-targeted group is declared, not programmed: conditions on columns, all of which a row must
meet (equality, membership, ranges, a top or bottom quantile, missing values). Job files hold
these as data; nothing is evaluated.
"""

from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from alc_dask.data import ColumnKind, Release, ScenarioError
from alc_dask.measure import RecallBasis
from alc_dask.shown import shown

Operator = Literal["eq", "ne", "in", "not_in", "lt", "le", "gt", "ge", "between", "top_quantile", "bottom_quantile", "missing", "present"]


class Condition(BaseModel):
    """``column op value``; ``between`` takes ``[low, high]`` (inclusive), the quantiles a share in (0, 1)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    column: str
    op: Operator
    """``eq ne in not_in lt le gt ge between top_quantile bottom_quantile missing present``."""
    value: Any = None


class TargetSelector(BaseModel):
    """Pre-targeted selection: rows meeting every condition, and what their recall is relative to."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    conditions: Annotated[list[Condition], Field(min_length=1)]
    recall_basis: RecallBasis = RecallBasis.POPULATION
    """Recall relative to the whole population (scaled by the group's share) or to the selected targets."""


def column_values(release: Release, column: str) -> np.ndarray:
    """The original table's values of ``column``: decoded categories (None missing) or numbers (NaN)."""
    spec = release.column(column)
    if spec.name != column:
        raise ScenarioError(f"selector: use the column {spec.name!r}, not its discretized copy")
    values = release.original.column_array(spec.name)
    return spec.codes.decode(values) if spec.kind is ColumnKind.CATEGORICAL else values


def _is_missing(values: np.ndarray) -> np.ndarray:
    if values.dtype == object:
        return np.array([v is None for v in values], dtype=bool)
    return np.isnan(values)


def _matches(values: np.ndarray, condition: Condition) -> np.ndarray:
    op, value = condition.op, condition.value
    missing = _is_missing(values)
    if op in ("missing", "present"):
        return missing if op == "missing" else ~missing
    present = values[~missing]
    result = np.zeros(len(values), dtype=bool)
    if op in ("eq", "ne"):
        hit = present == value
        result[~missing] = hit if op == "eq" else ~hit
    elif op in ("in", "not_in"):
        if not isinstance(value, list):
            raise ScenarioError(f"selector: {condition.column} {op} needs a list of values; got {shown(value)}")
        hit = np.isin(present, np.array(value, dtype=present.dtype if present.dtype != object else object))
        result[~missing] = hit if op == "in" else ~hit
    elif op == "between":
        if not (isinstance(value, list) and len(value) == 2):
            raise ScenarioError(f"selector: {condition.column} between needs [low, high]; got {shown(value)}")
        result[~missing] = (present >= value[0]) & (present <= value[1])
    elif op in ("top_quantile", "bottom_quantile"):
        if not (isinstance(value, (int, float)) and 0 < value < 1) or values.dtype == object:
            raise ScenarioError(f"selector: {condition.column} {op} needs a share in (0, 1) of a numeric column; got {shown(value)}")
        numbers = present.astype(float)
        if op == "top_quantile":
            result[~missing] = numbers >= np.quantile(numbers, 1 - value)
        else:
            result[~missing] = numbers <= np.quantile(numbers, value)
    else:
        compare = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}[op]
        result[~missing] = compare(present, value)
    return result


def select_rows(release: Release, selector: TargetSelector) -> np.ndarray:
    """Original row indices meeting every condition (ascending)."""
    keep = np.ones(release.original.n_rows, dtype=bool)
    for condition in selector.conditions:
        try:
            values = column_values(release, condition.column)
        except ScenarioError as error:
            raise ScenarioError(f"selector: {error}") from error
        try:
            keep &= _matches(values, condition)
        except TypeError as error:
            raise ScenarioError(f"selector: {condition.column} {condition.op} {shown(condition.value)}: {error}") from error
    rows = np.flatnonzero(keep)
    if rows.size == 0:
        described = "; ".join(f"{c.column} {c.op} {shown(c.value)}" for c in selector.conditions)
        raise ScenarioError(f"selector matches no row of the original table ({described})")
    return rows
