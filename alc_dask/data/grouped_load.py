"""Reading a group-anonymized release into a ``GroupedTable``, with every check made before any work.

A generalized (k-anonymous) release is one table: generalized quasi-identifier cells and the
sensitive value in clear; its groups are given by a group column, or are the rows whose
generalized cells are all alike. An Anatomy release is two tables joined by a group column: the
quasi-identifiers in clear, and the sensitive values (with a count column, or one row each).

Groups are numbered 0, 1, ... in order of first appearance in the (quasi-identifier) table, and
rows keep their order within a group; an Anatomy group's sensitive values are in the sensitive
table's order. Domains (see ``alc_dask.data.generalization``): per quasi-identifier, the
original's values, the hierarchy's leaves and the values an Anatomy table holds; for the
sensitive column, the original's and the release's. A generalized cell must cover a value of
that domain, so a release the original does not explain is refused rather than guessed at.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd

from alc_dask.data.errors import ReleaseError
from alc_dask.data.generalization import Domain, Hierarchy, texts
from alc_dask.data.grouped import OUTSIDE, GroupedTable
from alc_dask.data.io import read_table
from alc_dask.data.parts import is_dataset, read_dataset
from alc_dask.shown import shown


class _Rows(NamedTuple):
    """The released rows sorted by group, and each group's name in messages."""

    group_offsets: np.ndarray
    sensitive_codes: np.ndarray
    qi: np.ndarray
    cell_offsets: tuple
    cell_values: tuple
    labels: list[str]


def load_grouped(spec, original: pd.DataFrame, original_name: str, control: pd.DataFrame | None = None) -> GroupedTable:
    """The release ``spec`` (a ``GroupedSpec`` or a mapping of its fields) describes, encoded against
    the original table (its rows are the victims, its values the domains' core) and the control
    table (people not in the release). ``ReleaseError`` names the file, column, row or group and value at fault."""
    spec = dict(spec) if isinstance(spec, Mapping) else spec.model_dump()
    anatomy = spec["scheme"] == "anatomy"
    if anatomy and not (spec.get("sensitive_table") and spec.get("group")):
        raise ReleaseError(f"{os.fspath(spec['table'])}: an Anatomy release needs sensitive_table and group")
    table_name, table = _read(spec["table"])
    sensitive_name, sensitive_table = _read(spec["sensitive_table"]) if anatomy else (table_name, table)
    quasi = _quasi_identifiers(spec, table, table_name, sensitive_table, sensitive_name, original, original_name)
    hierarchies = _hierarchies(spec, quasi, table_name)
    for column, hierarchy in hierarchies.items():
        _check_covered(hierarchy, column, original[column], original_name)
        if anatomy:
            _check_covered(hierarchy, column, table[column], table_name)
    sensitive = spec["sensitive"]

    domains = [_domain(original[c], hierarchies.get(c), table[c] if anatomy else None) for c in quasi]
    sensitive_domain = Domain.joined(_present(original[sensitive]), _present(sensitive_table[sensitive]))
    if anatomy:
        rows = _anatomy(table, table_name, sensitive_table, sensitive_name, spec, quasi, domains, sensitive_domain)
    else:
        rows = _generalized(table, table_name, spec, quasi, domains, sensitive_domain, hierarchies)
    grouped = GroupedTable(
        spec["scheme"],
        tuple(quasi),
        sensitive,
        tuple(d.values for d in domains),
        sensitive_domain.values,
        rows.group_offsets,
        rows.sensitive_codes,
        rows.qi,
        rows.cell_offsets,
        rows.cell_values,
        _encode(original, quasi, domains),
        sensitive_domain.codes(texts(original[sensitive])),
        _encode(control, quasi, domains) if control is not None else None,
    )
    _check_sizes(grouped, rows.labels, spec, table_name)
    return grouped


def _read(source) -> tuple[str, pd.DataFrame]:
    name = os.fspath(source)
    return name, read_dataset(name, name) if is_dataset(name) else read_table(name, name)


def _require(table: pd.DataFrame, columns: list[str], name: str) -> None:
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ReleaseError(f"{name}: column {missing[0]!r} is missing; the table has {list(table.columns)}")


def _quasi_identifiers(spec, table, table_name, sensitive_table, sensitive_name, original, original_name) -> list[str]:
    """The quasi-identifiers (default: every other column of the table), once every column needed is found."""
    sensitive, group = spec["sensitive"], spec.get("group")
    _require(sensitive_table, [sensitive, *([group] if group else [])], sensitive_name)
    if group:
        _require(table, [group], table_name)
    quasi = list(spec.get("quasi_identifiers") or [c for c in table.columns if c not in (sensitive, group)])
    _require(table, quasi, table_name)
    _require(original, [*quasi, sensitive], original_name)
    return quasi


def _hierarchies(spec, quasi: list[str], table_name: str) -> dict[str, Hierarchy]:
    paths = spec.get("hierarchies") or {}
    unknown = sorted(set(paths) - set(quasi))
    if unknown:
        raise ReleaseError(f"hierarchies: {unknown} are not quasi-identifiers of {table_name} ({quasi})")
    delimiter = spec.get("hierarchy_delimiter") or ";"
    return {c: Hierarchy.read(os.fspath(p), delimiter, f"hierarchies.{c}") for c, p in paths.items()}


def _check_covered(hierarchy: Hierarchy, column: str, values: pd.Series, name: str) -> None:
    """Every value of the column is a leaf of its hierarchy: a value no leaf stands for is in no
    generalized cell, so the attack would read the release as saying its holders are not in it."""
    leaves = Domain(hierarchy.leaves)
    written = texts(values)
    uncovered = [v for v in dict.fromkeys(written) if v is not None and leaves.find(v) == OUTSIDE]
    if uncovered:
        first = f"{uncovered[0]!r} (row {written.index(uncovered[0]) + 1})"
        what = f"{len(uncovered)} values of {name}, e.g. {first}" if len(uncovered) > 1 else f"value {first} of {name}"
        raise ReleaseError(f"{hierarchy.path}: the hierarchy of column {column!r} does not cover {what}; every value must be a leaf (first column) of it")


def _present(series: pd.Series) -> list[str]:
    return [v for v in texts(series) if v is not None]


def _domain(original: pd.Series, hierarchy: Hierarchy | None, released: pd.Series | None) -> Domain:
    more = (list(hierarchy.leaves) if hierarchy else []) + (_present(released) if released is not None else [])
    return Domain.joined(_present(original), more)


def _encode(table: pd.DataFrame, quasi: list[str], domains: list[Domain]) -> np.ndarray:
    return np.ascontiguousarray(np.column_stack([d.codes(texts(table[c])) for c, d in zip(quasi, domains)]), dtype=np.int32)


def _group_keys(table: pd.DataFrame, group: str, name: str) -> list[str]:
    keys = texts(table[group])
    if None in keys:
        raise ReleaseError(f"{name}: column {group!r}, row {keys.index(None) + 1}: a missing group id")
    return keys


def _by_group(ids: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows sorted by group id, stable; group offsets)."""
    offsets = np.concatenate([[0], np.cumsum(np.bincount(ids, minlength=n_groups))]).astype(np.int64)
    return np.argsort(ids, kind="stable"), offsets


def _generalized(table, name, spec, quasi, domains, sensitive_domain, hierarchies) -> _Rows:
    group = spec.get("group")
    if group:
        keys = _group_keys(table, group, name)
        first = {k: i for i, k in enumerate(dict.fromkeys(keys))}
        ids, labels = np.array([first[k] for k in keys], dtype=np.int64), [f"group {k!r}" for k in first]
    else:
        ids = table.groupby(quasi, sort=False, dropna=False).ngroup().to_numpy()
        labels = [f"the group of row {row + 1}" for row in np.unique(ids, return_index=True)[1]]
    order, offsets = _by_group(ids, len(labels))
    qi = np.empty((len(table), len(quasi)), dtype=np.int32)
    cell_offsets, cell_values = [], []
    for a, (column, domain) in enumerate(zip(quasi, domains)):
        written = np.array([t if t is not None else "" for t in texts(table[column].iloc[order])], dtype=object)
        cells, first_rows, qi[:, a] = np.unique(written, return_index=True, return_inverse=True)
        covered = [_cell(domain, cell, hierarchies.get(column), name, column, order[row]) for cell, row in zip(cells, first_rows)]
        cell_offsets.append(np.concatenate([[0], np.cumsum([len(c) for c in covered])]).astype(np.int64))
        cell_values.append(np.ascontiguousarray(np.concatenate(covered), dtype=np.int32))
    sensitive = _sensitive_codes(table[spec["sensitive"]], sensitive_domain, name, spec["sensitive"])[order]
    return _Rows(offsets, sensitive, qi, tuple(cell_offsets), tuple(cell_values), labels)


def _cell(domain: Domain, cell: str, hierarchy: Hierarchy | None, name: str, column: str, row: int) -> np.ndarray:
    try:
        return domain.cell(cell, hierarchy)
    except ValueError as reason:
        raise ReleaseError(f"{name}: column {column!r}, row {row + 1}: cell {cell!r} cannot be read ({reason})") from None


def _anatomy(table, name, sensitive_table, sensitive_name, spec, quasi, domains, sensitive_domain) -> _Rows:
    group = spec["group"]
    keys, sensitive_keys = _group_keys(table, group, name), _group_keys(sensitive_table, group, sensitive_name)
    _same_groups(keys, name, sensitive_keys, sensitive_name)
    first = {k: i for i, k in enumerate(dict.fromkeys(keys))}
    order, offsets = _by_group(np.array([first[k] for k in keys], dtype=np.int64), len(first))

    counts = _counts(sensitive_table, spec.get("count"), sensitive_name)
    expanded_ids = np.repeat(np.array([first[k] for k in sensitive_keys], dtype=np.int64), counts)
    sizes = np.bincount(expanded_ids, minlength=len(first))
    for key, i in first.items():
        if sizes[i] != offsets[i + 1] - offsets[i]:
            raise ReleaseError(
                f"group {key!r}: {sensitive_name} holds {sizes[i]} sensitive values but {name} {offsets[i + 1] - offsets[i]} rows "
                "(groups must not overlap: every person once, in one group)"
            )
    expanded = np.repeat(_sensitive_codes(sensitive_table[spec["sensitive"]], sensitive_domain, sensitive_name, spec["sensitive"]), counts)
    qi = _encode(table, quasi, domains)
    if (qi == OUTSIDE).any():
        row, a = np.argwhere(qi == OUTSIDE)[0]
        raise ReleaseError(f"{name}: column {quasi[a]!r}, row {row + 1}: a missing quasi-identifier value (an Anatomy table holds each in clear)")
    sensitive = np.ascontiguousarray(expanded[np.argsort(expanded_ids, kind="stable")])
    return _Rows(offsets, sensitive, np.ascontiguousarray(qi[order]), (), (), [f"group {k!r}" for k in first])


def _same_groups(keys: list[str], name: str, sensitive_keys: list[str], sensitive_name: str) -> None:
    for mine, theirs, where in ((keys, sensitive_keys, name), (sensitive_keys, keys, sensitive_name)):
        only = set(mine) - set(theirs)
        if only:
            key = next(k for k in mine if k in only)
            raise ReleaseError(f"group {key!r} is only in {where}: every group must be in both tables")


def _counts(table: pd.DataFrame, count: str | None, name: str) -> np.ndarray:
    """How many people each row of the sensitive table stands for (one each without a count column)."""
    if not count:
        return np.ones(len(table), dtype=np.int64)
    _require(table, [count], name)
    values = pd.to_numeric(table[count], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.flatnonzero(~np.isfinite(values) | (values < 0) | (values != np.round(values)))
    if len(bad):
        raise ReleaseError(f"{name}: column {count!r}, row {bad[0] + 1}: count {shown(table[count].iloc[bad[0]])} is not a whole number of 0 or more")
    return values.astype(np.int64)


def _sensitive_codes(values: pd.Series, domain: Domain, name: str, column: str) -> np.ndarray:
    codes = domain.codes(texts(values))
    if (codes == OUTSIDE).any():
        raise ReleaseError(f"{name}: column {column!r}, row {np.flatnonzero(codes == OUTSIDE)[0] + 1}: a missing sensitive value")
    return codes


def _check_sizes(grouped: GroupedTable, labels: list[str], spec: dict, name: str) -> None:
    """The declared k (rows per group) and ℓ (distinct sensitive values per group) hold."""
    for declared, measured, what in (
        (spec.get("k"), grouped.group_sizes, "rows"),
        (spec.get("l"), grouped.distinct_sensitive_per_group(), "distinct sensitive values"),
    ):
        if declared and (measured < declared).any():
            g = int(np.flatnonzero(measured < declared)[0])
            raise ReleaseError(f"{name}: {labels[g]} has {measured[g]} {what}, fewer than the declared {'k' if what == 'rows' else 'l'} = {declared}")
