"""`Release`: the original table, the anonymized tables and an optional control table, prepared once.

Missing values are kept, never dropped: a missing categorical value is a category of its own
(it matches only another missing value), and a missing continuous value is a full mismatch
(distance 1) unless both sides are missing (distance 0).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from alc_dask.data.encoding import Bins, CodeTable
from alc_dask.data.errors import ReleaseError, ScenarioError
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
DISCRETIZED_SUFFIX = "__discretized"


@dataclass(frozen=True, eq=False)
class Release:
    """A prepared release: shared column schema and every table encoded as numpy arrays.

    Cheap to ship to workers (arrays and small code tables, no DataFrames). `anonymized` may also
    hold partitioned tables (see `alc_dask.data.partitioned`) with the same metadata.
    """

    columns: Mapping[str, Column]
    original: EncodedTable
    anonymized: tuple
    control: EncodedTable | None = None
    grouped: GroupedTable | None = None
    """A group-anonymized table (k-anonymous or Anatomy), read by the attacks that understand one."""

    @classmethod
    def load(
        cls,
        original: TableSource,
        anonymized: Sequence[TableSource] | TableSource,
        control: TableSource | None = None,
        columns: Mapping[str, str] | None = None,
        max_categories: int = MAX_CATEGORIES,
        kinds: str = "alc_dask",
        grouped=None,
    ) -> Release:
        """Read, type and encode a release.

        Tables are Parquet or CSV files (local paths or fsspec URLs) or DataFrames. Each anonymized
        table may hold a subset of the original's columns; the control table (original records not
        used for the release) holds all of them. `columns` maps a column name to "categorical" or
        "continuous" and overrides the inferred kind (numeric with more than `max_categories`
        distinct values: continuous); `kinds="reference"` infers kinds by the reference package's
        rule instead (see `alc_dask.data.reference_kinds`). `grouped` (a `GroupedSpec` or a mapping
        of its fields) adds a group-anonymized table; the anonymized tables may then be none. Numbers are kept exact (integers beyond 2^53 are not rounded
        into each other); datetimes count as nanoseconds since 1970-01-01 UTC (see
        `alc_dask.data.numbers`). Raises `ReleaseError` naming the table and column on bad input;
        warns (`ReleaseWarning`) of a continuous column a few extreme values dominate (see
        `alc_dask.data.extremes`).
        """
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
        return cls(schema, encoded[0], tuple(encoded[1 : len(roles)]), encoded[-1] if control is not None else None, group_table)

    @property
    def partitioned(self) -> bool:
        """Whether the tables are held in parts (on a cluster's workers), not whole in this process."""
        return not isinstance(self.original, EncodedTable) or any(not isinstance(t, EncodedTable) for t in self.anonymized)

    def column(self, name: str) -> Column:
        """The column `name`; `<col>__discretized` names the discretized copy of a continuous column."""
        base = name.removesuffix(DISCRETIZED_SUFFIX)
        if base not in self.columns or (base != name and self.columns[base].kind is not ColumnKind.CONTINUOUS):
            raise ScenarioError(f"unknown column {name!r}; the release has {list(self.columns)}")
        return self.columns[base]

    def secret_codes(self, secret: str) -> CodeTable | Bins:
        """How the secret's values are coded: its code table, or the bins of a continuous secret."""
        return self.column(secret).secret_codes

    def decode(self, secret: str, codes: np.ndarray) -> np.ndarray:
        """Secret values (bins, as intervals, for a continuous secret) of secret codes; None: missing."""
        decoded = self.secret_codes(secret).decode(codes)
        origin = self.column(secret).origin
        return np.array([None if v is None else v + origin for v in decoded], dtype=object) if origin else decoded

    def targets(self, rows: np.ndarray | slice, source: str = "original") -> EncodedTable:
        """Encoded rows of the original (or of the control table, `source="control"`), e.g. attack targets."""
        if source == "control" and self.control is None:
            raise ScenarioError("the release has no control table")
        table = {"original": self.original, "control": self.control}[source]
        return table.rows(rows)

    def true_codes(self, secret: str, targets: EncodedTable) -> np.ndarray:
        """The secret codes of encoded rows (discretized for a continuous secret)."""
        column = self.column(secret)
        if column.kind is ColumnKind.CATEGORICAL:
            return targets.codes[targets.categorical.index(column.name)].copy()
        return column.bins.encode(targets.values[targets.continuous.index(column.name)])

    def true_values(self, secret: str, targets: EncodedTable) -> np.ndarray:
        """The numbers of a continuous secret in encoded rows (NaN: missing)."""
        return targets.values[targets.continuous.index(self.column(secret).name)].copy()

    def value_span(self, secret: str) -> float:
        """Max - min of a continuous column over the original table."""
        index = self.original.continuous.index(self.column(secret).name)
        return float(self.original.value_max[index] - self.original.value_min[index])

    def secret_column(self, secret: str) -> np.ndarray:
        """The secret codes of every original row (gathered from the cluster for a partitioned original)."""
        return _secret_codes(self.original, self.column(secret))

    def secret_values_present(self, secret: str) -> np.ndarray:
        """The distinct secret codes of the original table, found block by block for a partitioned one."""
        column = self.column(secret)
        if isinstance(self.original, EncodedTable):
            return np.unique(_secret_codes(self.original, column))
        return np.unique(np.concatenate(self.original.map_blocks(_distinct_secret_codes, column)))

    def tables_holding(self, columns: Sequence[str]) -> tuple:
        """The anonymized tables that hold every one of `columns`."""
        wanted = {self.column(c).name for c in columns}
        return tuple(t for t in self.anonymized if wanted <= set(t.columns))

    def usable_tables(self, secret: str, known: Sequence[str]) -> tuple:
        """Anonymized tables that hold the secret and at least one known column (Francis & Wagner 2025, §5.2).

        Raises `ScenarioError` when the scenario cannot be attacked at all: an unknown column, no
        known column, the secret among the known columns, the secret in no anonymized table, or
        none of the known columns in any anonymized table. An empty result means every target abstains.
        """
        secret_name = self.column(secret).name
        known_names = [self.column(c).name for c in known]
        if not known_names:
            raise ScenarioError(f"secret {secret!r}: no known columns given")
        if secret_name in known_names:
            raise ScenarioError(f"secret {secret!r} is also a known column")
        if not self.anonymized and self.grouped is not None:
            return ()  # a group-anonymized release only: its attacks read `grouped`
        if not self.tables_holding([secret_name]):
            raise ScenarioError(f"secret {secret!r} is in no anonymized table")
        if not any(set(known_names) & set(t.columns) for t in self.anonymized):
            raise ScenarioError(f"none of the known columns {known_names} is in any anonymized table")
        return tuple(t for t in self.tables_holding([secret_name]) if set(known_names) & set(t.columns))


def _secret_codes(table: EncodedTable, column: Column) -> np.ndarray:
    values = table.column_array(column.name)
    return values.copy() if column.kind is ColumnKind.CATEGORICAL else column.bins.encode(values)


def _distinct_secret_codes(block: EncodedTable, column: Column) -> np.ndarray:
    return np.unique(_secret_codes(block, column))


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
