"""Reading release tables from Parquet or CSV files (local paths or fsspec URLs) or DataFrames."""

from __future__ import annotations

import os
from pathlib import PurePosixPath

import fsspec
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from alc_dask.data.errors import ReleaseError

_COMPRESSIONS = {".gz", ".bz2", ".zip", ".xz", ".zst"}
_FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}
_EXACT_INTEGERS = {pa.int64(): pd.Int64Dtype(), pa.uint64(): pd.UInt64Dtype()}
"""Parquet types whose missing values would otherwise turn the column into float64, rounding big values."""


def table_format(path: str) -> str:
    """'csv' or 'parquet', from the file name (a compression suffix such as .gz is skipped)."""
    suffixes = [s.lower() for s in PurePosixPath(path.split("?")[0]).suffixes]
    while suffixes and suffixes[-1] in _COMPRESSIONS:
        suffixes.pop()
    if suffixes and suffixes[-1] in _FORMATS:
        return _FORMATS[suffixes[-1]]
    raise ReleaseError(f"{path}: unknown table format; expected a .csv or .parquet file")


CSV_SEPARATORS = (",", ";", "\t", "|")
"""The separators a CSV file's header is read for: the one it holds most often (outside quotes) wins."""


def csv_separator(header: bytes | str) -> str:
    """The separator of a CSV file, from its header line: of ``CSV_SEPARATORS``, the one that
    occurs most often outside double quotes (a comma when none does: a one-column file).

    >>> csv_separator(b"age;sex;income\\n"), csv_separator("a,b"), csv_separator('"x;y",z'), csv_separator("only")
    (';', ',', ',', ',')
    """
    line = header.decode(errors="replace") if isinstance(header, bytes) else header
    unquoted = "".join(part for i, part in enumerate(line.split('"')) if i % 2 == 0)
    counts = {sep: unquoted.count(sep) for sep in CSV_SEPARATORS}
    best = max(counts, key=lambda sep: (counts[sep], -CSV_SEPARATORS.index(sep)))
    return best if counts[best] else ","


def plain_columns(table: pd.DataFrame) -> pd.DataFrame:
    """A table as the data layer reads it: columns named by text (a DataFrame's integer names as
    their digits) and pandas ``category`` columns as their values (Parquet's dictionary columns read
    back as categories). Unchanged, not copied, when it is so already."""
    categorical = [c for c in table.columns if isinstance(table[c].dtype, pd.CategoricalDtype)]
    if not categorical and all(isinstance(c, str) for c in table.columns):
        return table
    plain = table.astype({c: object for c in categorical}) if categorical else table.copy()
    plain.columns = [str(c) for c in table.columns]
    return plain


def read_table(source: str | os.PathLike | pd.DataFrame, name: str) -> pd.DataFrame:
    """Read one table and check its shape; `name` is used in error messages.

    CSV cells are read as text, split by the separator their header holds (`csv_separator`): a CSV
    file has no types, so they are decided over the whole release (see `alc_dask.data.schema`).
    Parquet and DataFrame columns keep their types; Parquet 64-bit integers with missing values
    become nullable integers, not rounded floats; categories become their values (`plain_columns`).
    """
    if isinstance(source, pd.DataFrame):
        check_unique([str(c) for c in source.columns], name)
        table = plain_columns(source)
    else:
        path = os.fspath(source)
        fmt = table_format(path)
        try:
            table = _read_csv(path, name) if fmt == "csv" else _read_parquet(path, name)
        except ReleaseError:
            raise
        except Exception as exc:  # every reader failure becomes one clear message
            raise ReleaseError(f"{name}: cannot read {fmt} file ({type(exc).__name__}: {exc})") from exc
    check_unique(list(table.columns), name)
    table = plain_columns(table)
    if table.shape[0] == 0 or table.shape[1] == 0:
        raise ReleaseError(f"{name}: the table is empty ({table.shape[0]} rows, {table.shape[1]} columns)")
    return table


def _read_csv(path: str, name: str) -> pd.DataFrame:
    with fsspec.open(path, "rb", compression="infer") as file:
        sep = csv_separator(file.readline())
    header = pd.read_csv(path, header=None, nrows=1, dtype=str, sep=sep)
    check_unique(list(header.iloc[0]) if len(header) else [], name)
    return pd.read_csv(path, dtype=str, sep=sep)


def _read_parquet(path: str, name: str) -> pd.DataFrame:
    with fsspec.open(path, "rb") as file:
        parquet = pq.ParquetFile(file)
        check_unique(parquet.schema_arrow.names, name)
        return arrow_to_pandas(parquet.read())


def arrow_to_pandas(table: pa.Table) -> pd.DataFrame:
    """A Parquet table as pandas, 64-bit integers with missing values as nullable integers."""
    return table.to_pandas(types_mapper=_EXACT_INTEGERS.get)


def check_unique(columns: list, name: str) -> None:
    seen, duplicates = set(), []
    for column in columns:
        if column in seen and column not in duplicates:
            duplicates.append(column)
        seen.add(column)
    if duplicates:
        raise ReleaseError(f"{name}: duplicate column names {duplicates}")
