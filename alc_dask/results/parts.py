"""The parts of a results folder: their names and order, writing a pair, reading rows with pyarrow.

A part holds the rows of many scenarios and is named ``part-<8-digit sequence>.parquet``, the
sequence growing with every part written to the folder, so that names sort in write order. The
predictions part is written before the scores part of the same name: a scenario is complete
exactly when a scores part holds its row. Folders of earlier versions hold one part per scenario,
``<scenario id>.parquet``; they are read as older than any numbered part.

A scenario run again (a failed one on a re-run) has a row in a later part too. The row that counts
is the ``ok`` or ``skipped`` one over a ``failed`` one and, among equals, the one of the latest
part; the others are superseded, and readers drop them (``compact`` removes them for good).
"""

import posixpath
import re
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from alc_dask.results.files import Files
from alc_dask.results.schema import scores_schema

PART = re.compile(r"part-(\d{8})\.parquet")
# Per-scenario parts of earlier versions; they may start with "_" or "-" (ids of secrets such as "_x" or "地区").
LEGACY_PART = re.compile(r"[A-Za-z0-9_]*-[0-9a-f]{10}\.parquet")
DONE = ("ok", "skipped")  # statuses a re-run does not retry


def part_name(sequence: int) -> str:
    return f"part-{sequence:08d}.parquet"


def sequence_of(name: str) -> int:
    """A numbered part's place in write order; a per-scenario part of earlier versions is older (-1)."""
    match = PART.fullmatch(name)
    return int(match[1]) if match else -1


def is_part(name: str) -> bool:
    return bool(PART.fullmatch(name) or LEGACY_PART.fullmatch(name))


class Parts:
    """The ``scores/`` and ``predictions/`` folders under one root, on any fsspec file system."""

    def __init__(self, files: Files):
        self.files = files
        self.scores = files.path("scores")
        self.predictions = files.path("predictions")
        self._sequence: int | None = None

    def names(self) -> list[str]:
        """The scores parts in write order; another Parquet file there is named in a warning and left out."""
        names = []
        for name in self.files.names(self.scores):
            if is_part(name):
                names.append(name)
            elif name.endswith(".parquet"):
                warnings.warn(
                    f"{self.files.show('scores', name)}: not a results part (parts are named part-<number>.parquet, "
                    "or <scenario id>.parquet by earlier versions); ignored",
                    stacklevel=3,
                )
        return sorted(names, key=lambda name: (sequence_of(name), name))

    def prediction_names(self) -> set[str]:
        return {name for name in self.files.names(self.predictions) if is_part(name)}

    def rows(self, names: list[str]) -> pd.DataFrame:
        """``scenario_id``, ``status`` and ``part`` of every row of the scores parts ``names``; only those two columns are read."""
        ids, statuses, parts = [], [], []
        for part, batch in self._scan(self.scores, names, scores_schema(), ["scenario_id", "status"], None):
            ids.append(batch["scenario_id"].to_numpy(zero_copy_only=False))
            statuses.append(batch["status"].to_numpy(zero_copy_only=False))
            parts.append(np.full(batch.num_rows, part, dtype=object))
        if not ids:
            return pd.DataFrame({"scenario_id": [], "status": [], "part": []}, dtype=object)
        return pd.DataFrame({"scenario_id": np.concatenate(ids), "status": np.concatenate(statuses), "part": np.concatenate(parts)})

    def read(self, folder: str, names: list[str], schema: pa.Schema, columns: list[str] | None, filter=None, keep: dict | None = None) -> pa.Table:
        """Rows of parts ``names``: pyarrow reads only ``columns`` and applies ``filter`` (skipping row groups
        its statistics rule out). ``keep`` maps a part to the scenarios whose rows count there; other parts count whole."""
        columns = list(columns or schema.names)
        projection = pa.schema([schema.field(column) for column in columns])
        if not names:
            return projection.empty_table()
        if not keep:
            return self._dataset(folder, names, schema).to_table(columns=columns, filter=filter)
        read = columns if "scenario_id" in columns else [*columns, "scenario_id"]
        batches = []
        for part, batch in self._scan(folder, names, schema, read, filter):
            if part in keep:
                batch = batch.filter(pc.is_in(batch["scenario_id"], value_set=pa.array(keep[part], pa.string())))
            batches.append(batch.select(columns))
        return pa.Table.from_batches(batches, schema=projection)

    def write(self, scores: pa.Table, predictions: pa.Table | None) -> str:
        """A new pair of parts: predictions first, so a scores part never lacks its predictions."""
        name = self.next_name()
        if predictions is not None:
            self.files.put_table(f"{self.predictions}/{name}", predictions)
        self.files.put_table(f"{self.scores}/{name}", scores)
        return name

    def next_name(self) -> str:
        """After every part of either folder, those of a write that died halfway included."""
        if self._sequence is None:
            existing = self.files.names(self.scores) + self.files.names(self.predictions)
            self._sequence = max([0, *map(sequence_of, existing)])
        self._sequence += 1
        return part_name(self._sequence)

    def remove(self, name: str) -> None:
        """The scores part first: a predictions part without it is never read."""
        self.files.remove(f"{self.scores}/{name}")
        self.files.remove(f"{self.predictions}/{name}")

    def remove_leftovers(self) -> None:
        """Temporary files and predictions parts whose scores part was never written (a write that died)."""
        for folder in (self.scores, self.predictions):
            self.files.remove_temporaries(folder)
        complete = set(self.files.names(self.scores))
        for name in self.prediction_names() - complete:
            self.files.remove(f"{self.predictions}/{name}")

    def _dataset(self, folder: str, names: list[str], schema: pa.Schema) -> ds.Dataset:
        """Exactly these files, never a scan of the folder (dataset discovery skips names starting with ``_``)."""
        return ds.dataset([f"{folder}/{name}" for name in names], schema=schema, format="parquet", filesystem=self.files.fs)

    def _scan(self, folder: str, names: list[str], schema: pa.Schema, columns: list[str], filter):
        """(part name, record batch) pairs."""
        if not names:
            return
        for tagged in self._dataset(folder, names, schema).scanner(columns=columns, filter=filter).scan_batches():
            yield posixpath.basename(tagged.fragment.path), tagged.record_batch


def resolve(rows: pd.DataFrame, names: list[str]) -> tuple[pd.Series, dict[str, list[str]]]:
    """The part of each scenario's row that counts (``names`` in write order), and, for each part
    holding a superseded row, the scenarios whose rows count there."""
    position = {name: index for index, name in enumerate(names)}
    ranked = rows.assign(done=rows["status"].isin(DONE), order=rows["part"].map(position)).sort_values(["done", "order"], kind="stable")
    counting = ranked.drop_duplicates("scenario_id", keep="last")
    holding = set(ranked.drop(counting.index)["part"])
    keep = {part: [] for part in holding}
    for part, group in counting[counting["part"].isin(holding)].groupby("part"):
        keep[part] = group["scenario_id"].tolist()
    return counting.set_index("scenario_id")["part"], keep
