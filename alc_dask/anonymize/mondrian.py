"""Strict multidimensional Mondrian (LeFevre, DeWitt and Ramakrishnan, ICDE 2006), optionally distinct ℓ-diverse.

Makes test releases of the generalization scheme. The rows are cut in two at the median of one
quasi-identifier, again and again, and every quasi-identifier cell is then replaced by its group's
extent, written as text: one value as itself, several numbers as the closed interval ``[lo, hi]``,
several text values as the set ``{a, b, c}``. Strict: rows that share the cut value fall on the same
side, so groups never overlap. A cut is allowed only when both halves keep k rows (and, with ℓ, ℓ
distinct sensitive values, Machanavajjhala et al. 2007); every group, so the release, keeps both.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class _Attribute:
    """A quasi-identifier as codes into its sorted distinct values: numbers and text cut alike, in their order."""

    values: np.ndarray
    codes: np.ndarray
    numeric: bool

    def width(self, rows: np.ndarray) -> float:
        """The rows' range over the whole table's, so attributes on different scales compare."""
        codes = self.codes[rows]
        if not self.numeric:
            return len(np.unique(codes)) / len(self.values)
        whole = self.values[-1] - self.values[0]
        return float(self.values[codes.max()] - self.values[codes.min()]) / whole if whole else 0.0

    def cut(self, rows: np.ndarray) -> np.ndarray:
        """Which rows go left: those up to the (lower) median, or below it when the median is the largest value."""
        codes = self.codes[rows]
        middle = (len(codes) - 1) // 2
        median = np.partition(codes, middle)[middle]
        left = codes <= median
        return codes < median if left.all() else left

    def generalize(self, rows: np.ndarray) -> str:
        present = self.values[np.unique(self.codes[rows])]
        if len(present) == 1:
            return str(present[0])
        if self.numeric:
            return f"[{present[0]}, {present[-1]}]"
        return "{" + ", ".join(present) + "}"


def _attribute(frame: pd.DataFrame, name: str) -> _Attribute:
    """Numbers keep their type (an integer is written "37"); anything else is ordered and written as text."""
    column = frame[name]
    if column.isna().any():
        raise ValueError(f"quasi-identifier {name!r} has missing values, which no group could be generalized to")
    numeric = pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)
    values, codes = np.unique(column.to_numpy() if numeric else column.astype(str).to_numpy(dtype=object), return_inverse=True)
    unwritable = [] if numeric else [v for v in values if ", " in v or "{" in v or "}" in v]
    if unwritable:
        raise ValueError(f"quasi-identifier {name!r} has the value {unwritable[0]!r}, which could not be written in a set (', ' or a brace)")
    return _Attribute(values, codes, numeric)


def _split(rows: np.ndarray, attributes: list[_Attribute], allowed: Callable[[np.ndarray], bool]) -> tuple[np.ndarray, np.ndarray] | None:
    """The median cut on the widest attribute that allows one (ties in quasi-identifier order), if any does."""
    widths = [attribute.width(rows) for attribute in attributes]
    for index in sorted(range(len(attributes)), key=lambda i: -widths[i]):
        left = attributes[index].cut(rows)
        if allowed(rows[left]) and allowed(rows[~left]):
            return rows[left], rows[~left]
    return None


def _groups(n_rows: int, attributes: list[_Attribute], allowed: Callable[[np.ndarray], bool]) -> list[np.ndarray]:
    """The partitions no cut is allowed in, depth first and left half first, so their numbering is fixed."""
    groups, pending = [], [np.arange(n_rows)]
    while pending:
        rows = pending.pop()
        halves = _split(rows, attributes, allowed)
        if halves is None:
            groups.append(rows)
        else:
            pending.extend(reversed(halves))
    return groups


def _by_row(groups: list[np.ndarray], per_group: Sequence, dtype: type) -> np.ndarray:
    """Each group's value on each of its rows."""
    out = np.empty(sum(len(rows) for rows in groups), dtype=dtype)
    for rows, value in zip(groups, per_group):
        out[rows] = value
    return out


def _check_arguments(frame: pd.DataFrame, quasi_identifiers: Sequence[str], sensitive: str, k: int, diversity: int | None, group_column: str | None) -> None:
    missing = [c for c in (*quasi_identifiers, sensitive) if c not in frame.columns]
    if missing:
        raise ValueError(f"columns {missing} are not in the frame")
    if k < 1 or (diversity is not None and diversity < 1):
        raise ValueError(f"k and l must be at least 1; got k = {k}, l = {diversity}")
    if group_column in frame.columns:
        raise ValueError(f"group column {group_column!r} is already a column of the frame")
    if len(frame) < k:
        raise ValueError(f"the table has {len(frame)} rows, fewer than k = {k}")
    distinct = frame[sensitive].nunique(dropna=False)
    if diversity is not None and distinct < diversity:
        raise ValueError(f"sensitive column {sensitive!r} has {distinct} distinct values, fewer than l = {diversity}")


def mondrian(
    frame: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    sensitive: str,
    k: int,
    l: int | None = None,  # noqa: E741 - the papers' name
    group_column: str | None = "group",
) -> pd.DataFrame:
    """A copy of ``frame`` (same rows, same order) whose quasi-identifiers are generalized to k-anonymous (ℓ-diverse) groups.

    Strict Mondrian: the quasi-identifier space is cut at medians while both halves keep k rows
    (and ℓ distinct sensitive values). Deterministic. A test release for the attacks on
    group-anonymized data (``release.grouped``).

    Parameters
    ----------
    frame : pandas.DataFrame
        The original.
    quasi_identifiers : sequence of str
        The columns generalized: numbers to ranges ``[low, high]``, categories to sets ``{a, b}``.
    sensitive : str
        The column kept as is.
    k : int
        The fewest rows per group.
    l : int, optional
        The fewest distinct sensitive values per group (distinct ℓ-diversity).
    group_column : str or None, default "group"
        A column numbering the groups 0..G−1 in the order of the quasi-identifier space; None: left out.

    Returns
    -------
    pandas.DataFrame
        Quasi-identifier columns become text.

    Raises
    ------
    ValueError
        Unknown columns, or a ``k`` or ``l`` the table cannot meet.

    Examples
    --------
    >>> from alc_dask.anonymize import mondrian
    >>> from alc_dask.testing.truth import truth_releases
    >>> people = truth_releases(rows=500).members[["age", "sex", "region", "occupation"]]
    >>> release = mondrian(people, ["age", "sex", "region"], "occupation", k=5, l=3)
    >>> release.loc[0, ["age", "region"]].tolist()
    ['[46.0, 55.0]', '{hills, islands}']
    >>> int(release.groupby("group").size().min()) >= 5
    True
    """
    _check_arguments(frame, quasi_identifiers, sensitive, k, l, group_column)
    attributes = [_attribute(frame, name) for name in quasi_identifiers]
    sensitive_codes = pd.factorize(frame[sensitive], use_na_sentinel=False)[0]

    def allowed(rows: np.ndarray) -> bool:
        return len(rows) >= k and (l is None or len(np.unique(sensitive_codes[rows])) >= l)

    groups = _groups(len(frame), attributes, allowed)
    out = frame.copy()
    for name, attribute in zip(quasi_identifiers, attributes):
        out[name] = pd.array(_by_row(groups, [attribute.generalize(rows) for rows in groups], object), dtype="str")
    if group_column is not None:
        out[group_column] = _by_row(groups, range(len(groups)), np.int64)
    return out
