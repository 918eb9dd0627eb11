"""Reading parts with pyarrow: exactly the files named (never a scan of a folder), only the columns
asked for, filters applied by pyarrow (skipping the row groups their statistics rule out), and the
rows of superseded scenarios left out.
"""

import posixpath
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from alc_dask.results.files import Files

ROW_KEYS = pa.schema([pa.field("scenario_id", pa.string()), pa.field("status", pa.string())])
"""What resolving rows needs of a scores part, whatever its family."""


def read_table(files: Files, paths: list[str], schema: pa.Schema, columns: list[str] | None, filter=None, keep: dict | None = None) -> pa.Table:
    """Rows of the parts at ``paths`` in ``schema`` (a column no part holds reads as nulls): only
    ``columns``, those ``filter`` keeps. ``keep`` maps a part's name to the scenarios whose rows count
    there; the rows of parts it does not name all count."""
    columns = list(columns or schema.names)
    projection = pa.schema([schema.field(column) for column in columns])
    if not paths:
        return projection.empty_table()
    if not keep:
        return _dataset(files, paths, schema).to_table(columns=columns, filter=filter)
    read = columns if "scenario_id" in columns else [*columns, "scenario_id"]
    batches = []
    for part, batch in scan(files, paths, schema, read, filter):
        if part in keep:
            batch = batch.filter(pc.is_in(batch["scenario_id"], value_set=pa.array(keep[part], pa.string())))
        batches.append(batch.select(columns))
    return pa.Table.from_batches(batches, schema=projection)


def row_keys(files: Files, paths: list[str]) -> pd.DataFrame:
    """``scenario_id``, ``status`` and ``part`` (its name) of every row of the scores parts at ``paths``; only those two columns are read."""
    ids, statuses, parts = [], [], []
    for part, batch in scan(files, paths, ROW_KEYS, ROW_KEYS.names, None):
        ids.append(batch["scenario_id"].to_numpy(zero_copy_only=False))
        statuses.append(batch["status"].to_numpy(zero_copy_only=False))
        parts.append(np.full(batch.num_rows, part, dtype=object))
    if not ids:
        return pd.DataFrame({"scenario_id": [], "status": [], "part": []}, dtype=object)
    return pd.DataFrame({"scenario_id": np.concatenate(ids), "status": np.concatenate(statuses), "part": np.concatenate(parts)})


def written_schema(files: Files, path: str) -> pa.Schema:
    """The schema a part was written with (from its footer)."""
    return _dataset(files, [path], None).schema


def scan(files: Files, paths: list[str], schema: pa.Schema, columns: list[str], filter) -> Iterator[tuple[str, pa.RecordBatch]]:
    """(part name, record batch) pairs."""
    if not paths:
        return
    for tagged in _dataset(files, paths, schema).scanner(columns=columns, filter=filter).scan_batches():
        yield posixpath.basename(tagged.fragment.path), tagged.record_batch


def _dataset(files: Files, paths: list[str], schema: pa.Schema | None) -> ds.Dataset:
    """Exactly these files (dataset discovery would skip names starting with ``_``)."""
    return ds.dataset(paths, schema=schema, format="parquet", filesystem=files.fs)
