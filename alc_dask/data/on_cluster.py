"""Loading a release too large to copy: every table read, typed and encoded part by part on the
workers of a Dask cluster, and kept there as a `PartitionedTable` (each row held once).

Two passes over the parts: the first profiles every column (see `alc_dask.data.profile`) so the
client can decide typings, code tables and bins exactly as `Release.load` decides them for the
whole tables; the second encodes each part against them. The client holds profiles and metadata,
never a table. Encoded parts are computed (not scattered), and so is what they are encoded with, so
a lost worker's parts are read and encoded again (Dask's lineage).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from alc_dask.data.errors import ReleaseError
from alc_dask.data.extremes import warn_of_extremes
from alc_dask.data.loading import check_columns, parse_overrides, table_names
from alc_dask.data.numbers import as_floats
from alc_dask.data.partitioned import PartitionedTable
from alc_dask.data.parts import ROWS_PER_PART, TablePart, TableParts, list_parts
from alc_dask.data.profile import TableProfile, merge_profiles
from alc_dask.data.release import Release
from alc_dask.data.schema import MAX_CATEGORIES, Column, ColumnKind, Typing, build_column, decide_typing, infer_kind
from alc_dask.data.table import EncodedTable

MERGE_EVERY = 8
"""Profiles merged per task of the reduction tree."""


def load_on_cluster(
    client,
    original: str,
    anonymized: Sequence[str],
    control: str | None = None,
    columns: Mapping[str, str] | None = None,
    max_categories: int = MAX_CATEGORIES,
    rows_per_part: int = ROWS_PER_PART,
) -> Release:
    """A release whose tables (Parquet or CSV files, folders or globs; local or fsspec URLs) stay on
    `client`'s workers as encoded parts. Scores equal those of `Release.load` on the same tables."""
    sources = [(original, "original"), *((path, f"anonymized[{i}]") for i, path in enumerate(anonymized))] + ([(control, "control")] if control else [])
    names = table_names(sources)
    tables = {name: list_parts(str(path), name, rows_per_part) for (path, _), name in zip(sources, names, strict=True)}
    check_columns({n: list(t.columns) for n, t in tables.items()}, has_control=control is not None)
    overrides = parse_overrides(columns or {}, list(tables[names[0]].columns), names[0])
    profiles = {name: _profile(client, table) for name, table in tables.items()}
    for name, profile in profiles.items():
        if profile.n_rows == 0:
            raise ReleaseError(f"{name}: the table is empty (0 rows)")
    schema, typings = _schema(profiles, list(tables[names[0]].columns), overrides, max_categories, released=names[: 1 + len(anonymized)])
    # A task, not scattered data: the scheduler forgets scattered data once the client lets its future
    # go, and with it the lineage of every part encoded from it (a lost part could not be rebuilt).
    shared = client.submit(_decided, schema, typings, pure=False)
    encoded = [_encode(client, table, schema, shared) for table in tables.values()]
    warn_of_extremes(encoded)
    return Release(schema, encoded[0], tuple(encoded[1 : 1 + len(anonymized)]), encoded[-1] if control else None)


def _profile(client, table: TableParts) -> TableProfile:
    level = [client.submit(_profile_part, part, pure=False) for part in table.parts]
    while len(level) > 1:
        level = [client.submit(merge_profiles, *level[i : i + MERGE_EVERY], pure=False) for i in range(0, len(level), MERGE_EVERY)]
    return level[0].result()


def _profile_part(part: TablePart) -> TableProfile:
    return TableProfile.of(_read(part))


def _read(part: TablePart):
    try:
        return part.read()
    except Exception as error:  # noqa: BLE001 - a corrupt or vanished part: name it
        raise ReleaseError(f"{part.table}: {part.where()}: cannot be read ({type(error).__name__}: {error})") from None


def _schema(profiles: dict[str, TableProfile], order: list[str], overrides: dict, max_categories: int, released: list[str]):
    """Columns and typings decided from the profiles, as `Release.load` decides them from whole tables."""
    schema, typings = {}, {}
    for column in order:
        held = {name: p.columns[column] for name, p in profiles.items() if column in p.columns}
        parts = {name: profile.representative() for name, profile in held.items()}
        typing = typings[column] = decide_typing(column, parts, overrides.get(column))
        typed = {name: typing.apply(column, name, values) for name, values in parts.items()}
        kind = infer_kind(column, typed, typing, overrides.get(column), max_categories)
        truncated = [name for name, profile in held.items() if profile.truncated]
        if kind is ColumnKind.CATEGORICAL and truncated:
            raise ReleaseError(
                f"{truncated[0]}: column {column!r} has too many distinct values to code as categories on a cluster "
                f"(more than {len(held[truncated[0]].distinct)}); declare it continuous in `columns` if it is a number, or leave it out"
            )
        schema[column] = build_column(column, kind, typed, typing.numeric, released=[n for n in released if n in typed])
    return schema, typings


def _decided(schema: dict[str, Column], typings: dict[str, Typing]) -> tuple[dict[str, Column], dict[str, Typing]]:
    return schema, typings


def _encode(client, table: TableParts, schema: dict[str, Column], shared) -> PartitionedTable:
    blocks = [client.submit(_encode_part, part, shared, pure=False) for part in table.parts]
    sizes, lows, highs = zip(*client.gather(client.map(_block_summary, blocks, pure=False)), strict=True)
    low, high = np.fmin.reduce(np.stack(lows)), np.fmax.reduce(np.stack(highs))  # NaN only where every part lacks values
    starts = tuple(int(s) for s in np.cumsum((0, *sizes[:-1])))
    held = [c for c in schema if c in table.columns]  # the order `_encode_part` builds them in
    categorical = tuple(c for c in held if schema[c].kind is ColumnKind.CATEGORICAL)
    continuous = tuple(c for c in held if schema[c].kind is ColumnKind.CONTINUOUS)
    return PartitionedTable(table.name, categorical, continuous, low, high, int(sum(sizes)), starts, tuple(blocks))


def _encode_part(part: TablePart, shared: tuple[dict[str, Column], dict[str, Typing]]) -> EncodedTable:
    schema, typings = shared
    frame = _read(part)
    codes, values = {}, {}
    for column in [c for c in schema if c in frame.columns]:
        typed = typings[column].apply(column, part.table, frame[column])
        spec = schema[column]
        if spec.kind is ColumnKind.CATEGORICAL:
            try:
                codes[column] = spec.codes.encode(typed)
            except ValueError as error:
                raise ReleaseError(f"{part.table}: {part.where()}: column {column!r}: {error} (read from the other parts)") from None
        else:
            values[column] = as_floats(column, part.table, typed, spec.origin)
    return EncodedTable.build(part.table, codes, values)


def _block_summary(block: EncodedTable) -> tuple[int, np.ndarray, np.ndarray]:
    return block.n_rows, block.value_min, block.value_max
