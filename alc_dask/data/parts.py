"""A release table on storage as parts to read one at a time: a Parquet file's row groups, or a
block of lines of a CSV file.

A table is a file, a folder of part files (as Dask, Spark or pyarrow write them), or a glob, on a
local path or any fsspec URL. Every part file must hold the same columns with the same types: a
file that differs is named before anything is read beyond the files' footers and headers.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import fsspec
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from fsspec.utils import read_block

from alc_dask.data.errors import ReleaseError
from alc_dask.data.fingerprint import dataset_files
from alc_dask.data.io import arrow_to_pandas, check_unique, csv_separator, plain_columns, table_format

ROWS_PER_PART = 1_000_000
"""Rows of a part: enough to keep the search kernel busy per task, few enough for many tasks per worker."""
DEFAULT_BROADCAST_LIMIT = 512 * 2**20
"""Estimated encoded size up to which a release is copied to every worker rather than kept in parts
on them. Measured (benchmarks/RESULTS-scale.md): for 20 columns the copy is faster up to about 3e6
rows (estimated 480 MB), where both paths take the same time and the copy costs the client 3x the
memory."""
CSV_BLOCK_BYTES = 64 * 2**20


@dataclass(frozen=True)
class TablePart:
    """One part of a table: Parquet row groups of one file, or one block of a CSV file."""

    table: str
    path: str
    row_groups: tuple[int, ...] = ()
    csv_block: tuple[int, int | None] | None = None
    """(offset, length) of the CSV part's bytes, widened to whole lines; length None: the whole file."""
    header: bytes = b""
    """The CSV file's header line, for a block other than the file's first."""
    sep: str = ","
    """The CSV file's separator (``alc_dask.data.io.csv_separator`` of its header)."""

    def read(self) -> pd.DataFrame:
        """The part's rows, typed as `alc_dask.data.io.read_table` types a whole file."""
        if self.csv_block is None:
            with fsspec.open(self.path, "rb") as file:
                return plain_columns(arrow_to_pandas(pq.ParquetFile(file).read_row_groups(list(self.row_groups))))
        offset, length = self.csv_block
        with fsspec.open(self.path, "rb", compression="infer") as file:
            data = file.read() if length is None else read_block(file, offset, length, delimiter=b"\n")
        return pd.read_csv(io.BytesIO(self.header + data), dtype=str, sep=self.sep)

    def where(self) -> str:
        if self.csv_block is None:
            return f"{self.path} (row groups {self.row_groups[0]}-{self.row_groups[-1]})"
        offset, length = self.csv_block
        return self.path if length is None else f"{self.path} (bytes {offset}-{offset + length})"


@dataclass(frozen=True)
class TableParts:
    """A table as parts, with its columns and (Parquet) row count, known before reading any row."""

    name: str
    columns: tuple[str, ...]
    parts: tuple[TablePart, ...]
    n_rows: int | None
    """From the Parquet footers; None for CSV, whose rows are counted when read."""
    stored_bytes: int


def list_parts(path: str, name: str, rows_per_part: int = ROWS_PER_PART) -> TableParts:
    """The parts of the table at `path` (file, folder or glob; local or fsspec URL), checked for
    agreeing columns and types. `name` (e.g. the job field) is used in error messages."""
    fs, files = _files(path, name)
    fmt = table_format(files[0])
    mixed = [f for f in files if table_format(f) != fmt]
    if mixed:
        raise ReleaseError(f"{name}: {mixed[0]} is not a {fmt} file like {files[0]}; a table's part files share one format")
    stored = sum(fs.size(f) for f in files)
    urls = [fs.unstrip_protocol(f) if "://" in path else f for f in files]
    if fmt == "parquet":
        return _parquet_parts(urls, name, rows_per_part, stored)
    return _csv_parts(urls, name, stored)


def is_dataset(path: str) -> bool:
    """Whether `path` names a folder or glob of part files rather than one file."""
    try:
        fs, location = fsspec.core.url_to_fs(path)
        return any(c in location for c in "*?[") or fs.isdir(location)
    except Exception:  # noqa: BLE001 - unreachable: reading it will say so
        return False


def read_dataset(path: str, name: str) -> pd.DataFrame:
    """Every part of a folder or glob in one frame, for a release small enough to hold whole."""
    table = list_parts(path, name)
    return pd.concat([part.read() for part in table.parts], ignore_index=True)


def estimated_bytes(tables: list[TableParts]) -> int:
    """The size of the tables once encoded, at most 8 bytes a cell (a CSV table: its file size)."""
    return sum(t.n_rows * len(t.columns) * 8 if t.n_rows is not None else t.stored_bytes for t in tables)


def _files(path: str, name: str) -> tuple[fsspec.AbstractFileSystem, list[str]]:
    """The table files of the dataset at `path`, in order; other files (notes, checksums) are left out."""
    fs, files, _ = dataset_files(path, name)
    tables = [f.path for f in files if _is_table_file(f.path)]
    if not tables:
        raise ReleaseError(f"{name}: {path!r}: holds no .parquet or .csv file")
    return fs, tables


def _is_table_file(file: str) -> bool:
    try:
        table_format(file)
    except ReleaseError:
        return False
    return True


def _parquet_parts(files: list[str], name: str, rows_per_part: int, stored: int) -> TableParts:
    parts, n_rows, first_schema = [], 0, None
    for file in files:
        metadata = _footer(file, name)
        schema = metadata.schema.to_arrow_schema()
        check_unique(schema.names, file)
        if first_schema is None:
            first_schema = (file, schema)
        else:
            _check_same_schema(first_schema, file, schema)
        n_rows += metadata.num_rows
        parts += [TablePart(name, file, groups) for groups in _group_row_groups(metadata, rows_per_part)]
    if n_rows == 0:
        raise ReleaseError(f"{name}: the table is empty (0 rows in {len(files)} files)")
    return TableParts(name, tuple(first_schema[1].names), tuple(parts), n_rows, stored)


def _footer(file: str, name: str) -> pq.FileMetaData:
    try:
        with fsspec.open(file, "rb") as handle:
            return pq.read_metadata(handle)
    except Exception as error:  # noqa: BLE001 - not Parquet, truncated, unreadable
        raise ReleaseError(f"{name}: {file}: cannot read as parquet ({type(error).__name__}: {error})") from None


def _check_same_schema(first: tuple[str, pa.Schema], file: str, schema: pa.Schema) -> None:
    first_file, expected = first
    missing = [c for c in expected.names if c not in schema.names]
    extra = [c for c in schema.names if c not in expected.names]
    if missing or extra:
        what = f"lacks column {missing[0]!r}" if missing else f"has column {extra[0]!r}"
        raise ReleaseError(f"{file}: {what}, unlike {first_file}; every part file of a table holds the same columns")
    for column in expected.names:
        mine, theirs = schema.field(column).type, expected.field(column).type
        if mine != theirs:
            raise ReleaseError(f"{file}: column {column!r} is {mine}, but {theirs} in {first_file}; every part file of a table types its columns alike")


def _group_row_groups(metadata: pq.FileMetaData, rows_per_part: int) -> list[tuple[int, ...]]:
    """Consecutive row groups of at most `rows_per_part` rows together (a larger group alone)."""
    groups, current, rows = [], [], 0
    for i in range(metadata.num_row_groups):
        size = metadata.row_group(i).num_rows
        if current and rows + size > rows_per_part:
            groups.append(tuple(current))
            current, rows = [], 0
        current.append(i)
        rows += size
    if current:
        groups.append(tuple(current))
    return groups


def _csv_parts(files: list[str], name: str, stored: int) -> TableParts:
    headers = {file: _csv_header(file, name) for file in files}
    first = files[0]
    for file, header in headers.items():
        if header != headers[first]:
            raise ReleaseError(
                f"{file}: header {header.decode(errors='replace').strip()!r} differs from {first}'s; every part file of a table holds the same columns"
            )
    sep = csv_separator(headers[first])
    columns = tuple(pd.read_csv(io.BytesIO(headers[first]), dtype=str, nrows=0, sep=sep).columns)
    check_unique(list(columns), first)
    parts = []
    for file in files:
        if fsspec.utils.infer_compression(file) is not None:  # a compressed stream cannot be entered midway
            parts.append(TablePart(name, file, csv_block=(0, None), sep=sep))
            continue
        fs, location = fsspec.core.url_to_fs(file)
        size = fs.size(location)
        offsets = range(0, max(size, 1), CSV_BLOCK_BYTES)
        parts += [TablePart(name, file, csv_block=(offset, CSV_BLOCK_BYTES), header=headers[file] if offset else b"", sep=sep) for offset in offsets]
    return TableParts(name, columns, tuple(parts), None, stored)


def _csv_header(file: str, name: str) -> bytes:
    try:
        with fsspec.open(file, "rb", compression="infer") as handle:
            return handle.readline()
    except Exception as error:  # noqa: BLE001 - unreadable or corrupt file
        raise ReleaseError(f"{name}: {file}: cannot read as csv ({type(error).__name__}: {error})") from None
