"""Reading a group-anonymized release into a ``GroupedTable``, with every check made before any work.

A generalized (k-anonymous) release is one table: generalized quasi-identifier cells and the
sensitive value in clear; its groups are given by a group column, or are the rows whose
generalized cells are all alike. An Anatomy release is two tables joined by a group column: the
quasi-identifiers in clear, and the sensitive values (with a count column, or one row each).
Groups are numbered in order of first appearance and rows kept in their order within a group.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np
import pandas as pd

from alc_dask.data.errors import ReleaseError
from alc_dask.data.generalization import Domain, Hierarchy, texts
from alc_dask.data.grouped import GroupedTable
from alc_dask.data.io import read_table


def load_grouped(spec, original: pd.DataFrame, original_name: str, control: pd.DataFrame | None = None) -> GroupedTable:
    """The release ``spec`` (a ``GroupedSpec`` or a mapping of its fields) describes, encoded against
    the original table (its values are the victims', and the domains' core). ``ReleaseError``
    names the file, column, row or group and value at fault."""
    spec = _fields(spec)
    table_name = os.fspath(spec["table"])
    table = read_table(spec["table"], table_name)
    group = spec.get("group")
    if spec["scheme"] == "anatomy":
        if not spec.get("sensitive_table") or not group:
            raise ReleaseError(f"{table_name}: an Anatomy release needs sensitive_table and group")
        sensitive_name = os.fspath(spec["sensitive_table"])
        sensitive_table = read_table(spec["sensitive_table"], sensitive_name)
        _require(sensitive_table, [group, spec["sensitive"]], sensitive_name)
    else:
        sensitive_name, sensitive_table = table_name, table
    _require(table, [spec["sensitive"]] if spec["scheme"] == "generalized" else [group], table_name)
    if group and spec["scheme"] == "generalized":
        _require(table, [group], table_name)
    quasi = list(spec.get("quasi_identifiers") or [c for c in table.columns if c not in (spec["sensitive"], group, spec.get("count"))])
    _require(table, quasi, table_name)
    _require(original, [*quasi, spec["sensitive"]], original_name)
    hierarchies = {
        c: Hierarchy.read(os.fspath(p), spec.get("hierarchy_delimiter", ";"), f"hierarchies.{c}") for c, p in (spec.get("hierarchies") or {}).items()
    }
    unknown = sorted(set(hierarchies) - set(quasi))
    if unknown:
        raise ReleaseError(f"hierarchies: {unknown} are not quasi-identifiers of {table_name} ({quasi})")

    domains = [Domain(_domain_values(original[c], hierarchies.get(c), table[c] if spec["scheme"] == "anatomy" else None)) for c in quasi]
    sensitive_domain = Domain({v for v in texts(original[spec["sensitive"]]) + texts(sensitive_table[spec["sensitive"]]) if v is not None})
    if spec["scheme"] == "anatomy":
        offsets, sensitive_codes, qi = _anatomy(table, table_name, sensitive_table, sensitive_name, spec, quasi, domains, sensitive_domain)
        cell_offsets, cell_values = (), ()
    else:
        offsets, sensitive_codes, qi, cell_offsets, cell_values = _generalized(table, table_name, spec, quasi, domains, sensitive_domain, hierarchies)
    grouped = GroupedTable(
        spec["scheme"],
        tuple(quasi),
        spec["sensitive"],
        tuple(d.values for d in domains),
        sensitive_domain.values,
        offsets,
        sensitive_codes,
        qi,
        cell_offsets,
        cell_values,
        _encode(original, quasi, domains),
        sensitive_domain.codes(texts(original[spec["sensitive"]])),
        _encode(control, quasi, domains) if control is not None and set(quasi) <= set(control.columns) else None,
    )
    _check_sizes(grouped, spec, table_name)
    return grouped


def _fields(spec) -> dict:
    return dict(spec) if isinstance(spec, Mapping) else spec.model_dump()


def _require(table: pd.DataFrame, columns: list[str], name: str) -> None:
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ReleaseError(f"{name}: column {missing[0]!r} is missing; the table has {list(table.columns)}")


def _domain_values(original: pd.Series, hierarchy: Hierarchy | None, released: pd.Series | None) -> set[str]:
    values = {v for v in texts(original) if v is not None}
    if hierarchy is not None:
        values |= set(hierarchy.values)
    if released is not None:
        values |= {v for v in texts(released) if v is not None}
    return values


def _encode(table: pd.DataFrame, quasi: list[str], domains: list[Domain]) -> np.ndarray:
    return np.ascontiguousarray(np.column_stack([d.codes(texts(table[c])) for c, d in zip(quasi, domains)]), dtype=np.int32)


def _group_order(keys: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(rows sorted by group, group offsets): groups in order of first appearance."""
    codes, uniques = pd.factorize(keys, use_na_sentinel=False)
    order = np.argsort(codes, kind="stable")
    return order, np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=len(uniques)))]).astype(np.int64)


def _generalized(table, name, spec, quasi, domains, sensitive_domain, hierarchies):
    group = spec.get("group")
    keys = table[group].astype(str) if group else table[quasi].astype(str).agg("\x1f".join, axis=1)
    order, offsets = _group_order(keys)
    table = table.iloc[order].reset_index(drop=True)
    qi = np.empty((len(table), len(quasi)), dtype=np.int32)
    cell_offsets, cell_values = [], []
    for a, (column, domain) in enumerate(zip(quasi, domains)):
        written = np.array([t if t is not None else "" for t in texts(table[column])], dtype=object)
        cells, first_rows = np.unique(written, return_index=True)
        covered = []
        for cell, row in zip(cells, first_rows):
            try:
                covered.append(domain.cell(cell, hierarchies.get(column)))
            except ValueError as reason:
                raise ReleaseError(f"{name}: column {column!r}, row {order[row] + 1}: cell {cell!r} cannot be read ({reason})") from None
        qi[:, a] = np.searchsorted(cells, written)
        cell_offsets.append(np.concatenate([[0], np.cumsum([len(c) for c in covered])]).astype(np.int64))
        cell_values.append(np.concatenate(covered).astype(np.int32))
    sensitive = _sensitive_codes(table[spec["sensitive"]], sensitive_domain, name, spec["sensitive"], order)
    return offsets, sensitive, qi, tuple(cell_offsets), tuple(cell_values)


def _anatomy(table, name, sensitive_table, sensitive_name, spec, quasi, domains, sensitive_domain):
    group, count = spec["group"], spec.get("count")
    qi_groups, st_groups = table[group].astype(str), sensitive_table[group].astype(str)
    only = [(g, name) for g in dict.fromkeys(qi_groups) if g not in set(st_groups)] + [
        (g, sensitive_name) for g in dict.fromkeys(st_groups) if g not in set(qi_groups)
    ]
    if only:
        raise ReleaseError(f"group {only[0][0]!r} is only in {only[0][1]}: every group must be in both tables")
    counts = _counts(sensitive_table, count, sensitive_name)
    expanded = sensitive_table.loc[sensitive_table.index.repeat(counts)].reset_index(drop=True)
    order, offsets = _group_order(qi_groups)
    first = {g: i for i, g in enumerate(pd.unique(qi_groups))}
    st_order = np.argsort(expanded[group].astype(str).map(first).to_numpy(), kind="stable")
    expanded = expanded.iloc[st_order].reset_index(drop=True)
    sizes = np.bincount(expanded[group].astype(str).map(first).to_numpy(), minlength=len(first))
    for g, i in first.items():
        if sizes[i] != offsets[i + 1] - offsets[i]:
            raise ReleaseError(
                f"group {g!r}: {sensitive_name} holds {sizes[i]} sensitive values but {name} {offsets[i + 1] - offsets[i]} rows "
                "(groups must not overlap: every person once, in one group)"
            )
    qi = _encode(table.iloc[order], quasi, domains)
    sensitive = _sensitive_codes(expanded[spec["sensitive"]], sensitive_domain, sensitive_name, spec["sensitive"], np.arange(len(expanded)))
    return offsets, sensitive, qi


def _counts(table: pd.DataFrame, count: str | None, name: str) -> np.ndarray:
    if not count:
        return np.ones(len(table), dtype=np.int64)
    _require(table, [count], name)
    values = pd.to_numeric(table[count], errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(values) | (values < 0) | (values != np.round(values)))
    if len(bad):
        raise ReleaseError(f"{name}: column {count!r}, row {bad[0] + 1}: count {table[count].iloc[bad[0]]!r} is not a whole number of 0 or more")
    return values.astype(np.int64)


def _sensitive_codes(values: pd.Series, domain: Domain, name: str, column: str, order: np.ndarray) -> np.ndarray:
    codes = domain.codes(texts(values))
    if (codes < 0).any():
        row = int(np.flatnonzero(codes < 0)[0])
        raise ReleaseError(f"{name}: column {column!r}, row {order[row] + 1}: a missing sensitive value")
    return codes


def _check_sizes(grouped: GroupedTable, spec: dict, name: str) -> None:
    """The declared k (rows per group) and ℓ (distinct sensitive values per group) hold."""
    for declared, measured, what in (
        (spec.get("k"), grouped.group_sizes, "rows"),
        (spec.get("l"), grouped.distinct_sensitive_per_group(), "distinct sensitive values"),
    ):
        if declared and (measured < declared).any():
            g = int(np.flatnonzero(measured < declared)[0])
            raise ReleaseError(f"{name}: group {g + 1} (in order of appearance) has {measured[g]} {what}, fewer than the declared {declared}")
