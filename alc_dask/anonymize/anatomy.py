"""Anatomy (Xiao and Tao, VLDB 2006): ℓ-diverse groups whose quasi-identifiers and sensitive values are published apart.

Makes test releases of the bucketization scheme. Rows are bucketed by sensitive value; each group
takes one row from each of the ℓ largest buckets, so its ℓ rows hold ℓ distinct values, and the
fewer than ℓ rows left over each join a group that lacks their value. The quasi-identifier table
keeps every member's exact quasi-identifiers, the sensitive table each group's values with their
counts; which member holds which value is what the release hides, so members are shuffled within
their group. The paper's eligibility condition makes this possible: no value in more than N/ℓ rows.
"""

import heapq
from collections.abc import Sequence

import numpy as np
import pandas as pd

from alc_dask.seeds import stream
from alc_dask.shown import shown


def _check_arguments(frame: pd.DataFrame, quasi_identifiers: Sequence[str], sensitive: str, diversity: int, group_column: str, count_column: str) -> None:
    missing = [c for c in (*quasi_identifiers, sensitive) if c not in frame.columns]
    if missing:
        raise ValueError(f"columns {missing} are not in the frame")
    if diversity < 1:
        raise ValueError(f"l must be at least 1; got {diversity}")
    if group_column in (*quasi_identifiers, sensitive) or count_column in (group_column, sensitive):
        raise ValueError(f"group column {group_column!r} and count column {count_column!r} must not reuse a column's name")
    counts = frame[sensitive].value_counts(dropna=False)
    if len(counts) and counts.iloc[0] * diversity > len(frame):
        raise ValueError(
            f"sensitive value {shown(counts.index[0])} is in {counts.iloc[0]} of {len(frame)} rows, more than N/l = {len(frame) / diversity:g}: "
            f"Anatomy with l = {diversity} needs every value in at most N/l rows"
        )


def _create_groups(buckets: list[list[int]], size: int) -> list[list[int]]:
    """One row from each of the ``size`` largest buckets per group (ties: the smaller value code), while that many are non-empty."""
    groups = []
    largest = [(-len(rows), value) for value, rows in enumerate(buckets) if rows]
    heapq.heapify(largest)
    while len(largest) >= size:
        taken = [heapq.heappop(largest) for _ in range(size)]
        groups.append([buckets[value].pop() for _, value in taken])
        for negative_rows, value in taken:
            if negative_rows < -1:
                heapq.heappush(largest, (negative_rows + 1, value))
    return groups


def _place_residuals(buckets: list[list[int]], groups: list[list[int]], codes: np.ndarray, rng: np.random.Generator) -> None:
    """Each row left over joins a random group without its value; eligibility guarantees there is one."""
    for value, rows in enumerate(buckets):
        for row in rows:
            lacking = [number for number, members in enumerate(groups) if not (codes[members] == value).any()]
            groups[lacking[rng.integers(len(lacking))]].append(row)


def anatomize(
    frame: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    sensitive: str,
    l: int,  # noqa: E741 - the paper's name
    seed: int = 0,
    group_column: str = "group",
    count_column: str = "count",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The quasi-identifier table and the sensitive table of an Anatomy release with groups of l (or more) distinct values.

    A vertical scheme: the quasi-identifiers are published exactly, but only linked to their group's
    sensitive values. Seeded: the rows taken from each bucket, the residuals' groups and the order
    within groups.

    Parameters
    ----------
    frame : pandas.DataFrame
        The original.
    quasi_identifiers : sequence of str
        The columns of the quasi-identifier table.
    sensitive : str
        The column of the sensitive table.
    l : int
        Distinct sensitive values per group, at least 2.
    seed : int, default 0
    group_column, count_column : str
        The names of the group and count columns.

    Returns
    -------
    tuple of pandas.DataFrame
        The quasi-identifier table (``quasi_identifiers`` and ``group_column``, one row per original
        row, by group) and the sensitive table (``group_column``, ``sensitive`` and ``count_column``,
        one row per value of a group).

    Raises
    ------
    ValueError
        Unknown columns, or ``l`` larger than the sensitive column allows.

    Examples
    --------
    >>> from alc_dask.anonymize import anatomize
    >>> from alc_dask.testing.truth import truth_releases
    >>> people = truth_releases(rows=500).members
    >>> quasi, sensitive = anatomize(people, ["age", "sex", "region"], "occupation", l=3)
    >>> list(quasi.columns), list(sensitive.columns)
    (['age', 'sex', 'region', 'group'], ['group', 'occupation', 'count'])
    >>> int(sensitive.groupby("group")["occupation"].nunique().min())
    3
    """
    _check_arguments(frame, quasi_identifiers, sensitive, l, group_column, count_column)
    rng = stream(seed, "anatomy")
    codes, values = pd.factorize(frame[sensitive], sort=True, use_na_sentinel=False)
    buckets = [rng.permutation(np.flatnonzero(codes == value)).tolist() for value in range(len(values))]
    groups = _create_groups(buckets, l)
    _place_residuals(buckets, groups, codes, rng)
    order = np.concatenate([rng.permutation(members) for members in groups] or [np.empty(0, dtype=np.int64)])
    number = np.repeat(np.arange(len(groups)), [len(members) for members in groups])
    quasi_table = frame[list(quasi_identifiers)].iloc[order].reset_index(drop=True)
    quasi_table[group_column] = number
    members = pd.DataFrame({group_column: number, sensitive: frame[sensitive].iloc[order].reset_index(drop=True)})
    sensitive_table = members.groupby([group_column, sensitive], sort=True, dropna=False).size().reset_index(name=count_column)
    return quasi_table, sensitive_table
