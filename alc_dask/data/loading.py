"""Reading a release whole into this process: each table read (Parquet or CSV, a file, a folder of
parts or a DataFrame), its columns checked against the original's, typed, and encoded with the
code tables and bins they share. What `Release.load` returns; `alc_dask.data.on_cluster` reads a
release too large to copy part by part on a cluster with the same checks and typing rules.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import pandas as pd

from alc_dask.data.errors import ReleaseError
from alc_dask.data.extremes import warn_of_extremes
from alc_dask.data.grouped import GroupedTable
from alc_dask.data.grouped_load import load_grouped
from alc_dask.data.io import read_table
from alc_dask.data.numbers import as_floats
from alc_dask.data.parts import is_dataset, read_dataset
from alc_dask.data.reference_kinds import KINDS, reference_kind
from alc_dask.data.schema import MAX_CATEGORIES, Column, ColumnKind, build_column, infer_kind, parse_kind, type_column
from alc_dask.data.table import EncodedTable

TableSource = str | os.PathLike | pd.DataFrame


class ReleaseTables(NamedTuple):
    """A release's fields, in the order `Release` takes them."""

    columns: dict[str, Column]
    original: EncodedTable
    anonymized: tuple[EncodedTable, ...]
    control: EncodedTable | None
    grouped: GroupedTable | None


def read_tables(
    original: TableSource,
    anonymized: Sequence[TableSource] | TableSource,
    control: TableSource | None = None,
    columns: Mapping[str, str] | None = None,
    max_categories: int = MAX_CATEGORIES,
    kinds: str = "alc_dask",
    grouped=None,
) -> ReleaseTables:
    """The schema and encoded tables of a release, as `Release.load` documents its arguments."""
    if isinstance(anonymized, (str, os.PathLike, pd.DataFrame)):
        anonymized = [anonymized]
    if not anonymized and grouped is None:
        raise ReleaseError("a release needs at least one anonymized table (or a grouped table)")
    roles = [(original, "original"), *((s, f"anonymized[{i}]") for i, s in enumerate(anonymized))]
    tables = _read_tables(roles + ([(control, "control")] if control is not None else []))
    names = list(tables)
    check_columns({n: list(t.columns) for n, t in tables.items()}, has_control=control is not None)
    overrides = parse_overrides(columns or {}, list(tables[names[0]].columns), names[0])
    if kinds not in KINDS:
        raise ReleaseError(f"kinds: unknown rule {kinds!r}; expected one of {', '.join(KINDS)}")
    if kinds == "reference":
        overrides = {c: reference_kind(tables[names[0]][c]) for c in tables[names[0]].columns} | overrides

    schema, codes, values = {}, {n: {} for n in names}, {n: {} for n in names}
    for column in tables[names[0]].columns:
        parts = {n: t[column] for n, t in tables.items() if column in t.columns}
        typed, typing = type_column(column, parts, overrides.get(column))
        kind = infer_kind(column, typed, typing, overrides.get(column), max_categories)
        spec = schema[column] = build_column(column, kind, typed, typing.numeric, released=names[: len(roles)])
        for table, series in typed.items():
            if kind is ColumnKind.CATEGORICAL:
                codes[table][column] = spec.codes.encode(series)
            else:
                values[table][column] = as_floats(column, table, series, spec.origin)
    encoded = [EncodedTable.build(n, codes[n], values[n]) for n in names]
    warn_of_extremes(encoded)
    group_table = None
    if grouped is not None:
        group_table = load_grouped(grouped, tables[names[0]], names[0], tables[names[-1]] if control is not None else None)
    return ReleaseTables(schema, encoded[0], tuple(encoded[1 : len(roles)]), encoded[-1] if control is not None else None, group_table)


def table_names(sources: list[tuple[TableSource, str]]) -> list[str]:
    """A table's name in messages: its path as given, or the role ("original", "anonymized[0]", ...) of a DataFrame."""
    names = []
    for source, role in sources:
        name = role if isinstance(source, pd.DataFrame) else os.fspath(source)
        names.append(f"{name} ({role})" if name in names else name)
    return names


def _read_tables(sources: list[tuple[TableSource, str]]) -> dict[str, pd.DataFrame]:
    tables = {}
    for (source, _), name in zip(sources, table_names(sources), strict=True):
        tables[name] = read_table(read_dataset(os.fspath(source), name) if _is_dataset(source) else source, name)
    return tables


def _is_dataset(source: TableSource) -> bool:
    return not isinstance(source, pd.DataFrame) and is_dataset(os.fspath(source))


def parse_overrides(columns: Mapping[str, str], original: list[str], name: str) -> dict[str, ColumnKind]:
    """The declared kinds of columns, which must be columns of the original table `name`."""
    overrides = {c: parse_kind(c, k) for c, k in columns.items()}
    unknown = sorted(set(overrides) - set(original))
    if unknown:
        raise ReleaseError(f"columns: {unknown} are not columns of the original table {name}")
    return overrides


def check_columns(tables: dict[str, list[str]], has_control: bool) -> None:
    """Every table's columns are the original's (the first table), all of them in the control table (the last)."""
    original = next(iter(tables))
    expected = tables[original]
    control = list(tables)[-1] if has_control else None
    for name, columns in tables.items():
        extra = [c for c in columns if c not in expected]
        if extra:
            raise ReleaseError(f"{name}: column {extra[0]!r} is not in the original table {original}")
        if name == control and len(columns) != len(expected):
            missing = [c for c in expected if c not in columns]
            raise ReleaseError(f"{name}: the control table lacks column {missing[0]!r} of the original")
