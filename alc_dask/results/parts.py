"""The parts of a results folder: their names and order, writing a pair, reading rows with pyarrow.

A part holds the rows of many scenarios and is named ``part-<8-digit sequence>.parquet``, the
sequence growing with every part written to the folder, so that names sort in write order. The
predictions part is written before the scores part of the same name: a scenario is complete
exactly when a scores part holds its row. Folders of earlier versions hold one part per scenario,
``<scenario id>.parquet``; they are read as older than any numbered part.

A scenario run again (a failed one on a re-run) has a row in a later part too. The row that counts
is the ``ok`` or ``skipped`` one over a ``failed`` one and, among equals, the one of the latest
part; the others are superseded, and readers drop them (``compact`` removes them for good).

``parts.json`` lists every pair written, with its rows of scores (its scenarios) and of predictions,
so that a resumed run can tell a part deleted or cut short since (``check``) from one never written.
It is updated after a pair is written and before one is removed: a part missing from it (written by
an earlier version, or just before a crash) is only checked for being whole.
"""

import json
import posixpath
import re
import warnings
from dataclasses import dataclass

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
LISTING = "parts.json"


def part_name(sequence: int) -> str:
    return f"part-{sequence:08d}.parquet"


def sequence_of(name: str) -> int:
    """A numbered part's place in write order; a per-scenario part of earlier versions is older (-1)."""
    match = PART.fullmatch(name)
    return int(match[1]) if match else -1


def is_part(name: str) -> bool:
    return bool(PART.fullmatch(name) or LEGACY_PART.fullmatch(name))


@dataclass(frozen=True)
class Damage:
    """A pair of parts that is not as it was written: a file missing, cut short or not holding its rows."""

    part: str
    scenarios: int | None
    """How many scenarios the pair held (None when neither the listing nor its scores part says)."""
    reason: str


class Parts:
    """The ``scores/`` and ``predictions/`` folders under one root, on any fsspec file system."""

    def __init__(self, files: Files):
        self.files = files
        self.scores = files.path("scores")
        self.predictions = files.path("predictions")
        self._sequence: int | None = None
        self._listed: dict[str, dict[str, int]] | None = None

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
        """A new pair of parts: predictions first, so a scores part never lacks its predictions; then listed."""
        name = self.next_name()
        if predictions is not None:
            self.files.put_table(f"{self.predictions}/{name}", predictions)
        self.files.put_table(f"{self.scores}/{name}", scores)
        self._save_listing({**self._listing(), name: {"scenarios": scores.num_rows, "predictions": 0 if predictions is None else predictions.num_rows}})
        return name

    def next_name(self) -> str:
        """After every part of either folder, those of a write that died halfway included."""
        if self._sequence is None:
            existing = self.files.names(self.scores) + self.files.names(self.predictions)
            self._sequence = max([0, *map(sequence_of, existing)])
        self._sequence += 1
        return part_name(self._sequence)

    def remove(self, name: str) -> None:
        """Unlisted, then the scores part: a predictions part without it is never read."""
        if name in self._listing():
            self._save_listing({listed: held for listed, held in self._listing().items() if listed != name})
        self.files.remove(f"{self.scores}/{name}")
        self.files.remove(f"{self.predictions}/{name}")

    def check(self) -> list[Damage]:
        """Every pair listed or present, from its Parquet footers alone (not its data): damaged when a
        file it should have is missing, cannot be read, or holds other than the rows listed. The listing
        then names the sound pairs (with those written before it was kept)."""
        listed, present, predicted = self._listing(), set(self.names()), self.prediction_names()
        sound, damages = {}, []
        for name in sorted(set(listed) | present, key=lambda name: (sequence_of(name), name)):
            held = self._held(name, listed.get(name), name in predicted)
            if isinstance(held, Damage):
                damages.append(held)
            else:
                sound[name] = held
        if sound != listed:
            self._save_listing(sound)
        return damages

    def _held(self, name: str, listed: dict[str, int] | None, predicted: bool) -> dict[str, int] | Damage:
        """The rows of pair ``name`` as its footers give them, or its damage."""
        scenarios = self._footer_rows(self.scores, name)
        if isinstance(scenarios, str):
            return Damage(name, None if listed is None else listed["scenarios"], f"scores/{name} {scenarios}")
        predictions = self._footer_rows(self.predictions, name) if predicted or (listed and listed["predictions"]) else 0
        if isinstance(predictions, str):
            return Damage(name, scenarios, f"predictions/{name} {predictions}")
        held = {"scenarios": scenarios, "predictions": predictions}
        if listed is not None and held != listed:
            written = f"{listed['scenarios']} and {listed['predictions']}"
            return Damage(name, scenarios, f"scores/{name} and its predictions hold {scenarios} and {predictions} rows, not the {written} written")
        return held

    def _footer_rows(self, folder: str, name: str) -> int | str:
        """Rows of a part, from its footer; or what is wrong with it."""
        try:
            return self.files.footer_rows(f"{folder}/{name}")
        except FileNotFoundError:
            return "is missing"
        except OSError as error:  # cut short, or not Parquet
            return f"cannot be read ({error})"

    def _listing(self) -> dict[str, dict[str, int]]:
        if self._listed is None:
            path = self.files.path(LISTING)
            try:
                self._listed = json.loads(self.files.read_bytes(path)) if self.files.exists(path) else {}
            except ValueError:  # cut short: ``check`` rebuilds it from the parts present
                self._listed = {}
        return self._listed

    def _save_listing(self, listed: dict[str, dict[str, int]]) -> None:
        self.files.put_bytes(self.files.path(LISTING), json.dumps(listed, sort_keys=True).encode())
        self._listed = listed

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
