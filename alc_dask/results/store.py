"""A results dataset on disk: ``scores/`` and ``predictions/``, one Parquet part per scenario.

A part is named ``<scenario id>.parquet``, the id being a readable prefix, ``-`` and 10 hex digits.
Readers take exactly the files so named, never a scan of the folder: Parquet dataset readers skip
names starting with ``_`` or ``.`` (the ids of some secrets once did), and a stray Parquet file put
beside the parts is not a result (it is left out, with a warning).

A part is written to a hidden temporary name and renamed into place (``os.replace`` is atomic), so a
crash never leaves a part that looks complete. The predictions part is renamed before the scores
part, so a scenario is complete exactly when its scores part exists. ``job.json`` records the
settings, data and alc_dask version the parts were measured with; it is written with the first part,
so a start that fails earlier does not hold the folder. Resuming with any of them changed is refused
rather than mixing results.
"""

import json
import os
import re
import warnings
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from alc_dask.results.schema import PREDICTIONS, scores_schema

MANIFEST = "job.json"
SCENARIO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_]*-[0-9a-f]{10}")
# Parts of earlier versions may start with "_" or "-" (ids of secrets such as "_x" or "地区"): read them too.
PART_NAME = re.compile(r"[A-Za-z0-9_]*-[0-9a-f]{10}\.parquet")


class ResultsError(ValueError):
    """An output directory cannot be written, read or resumed."""


class ResultStore:
    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.scores_dir = self.root / "scores"
        self.predictions_dir = self.root / "predictions"
        self._unwritten_manifest: dict | None = None

    @classmethod
    def create(cls, root: str | os.PathLike, manifest: dict) -> "ResultStore":
        """Open ``root`` for writing, checking it is writable and holds results of these settings only."""
        store = cls(root)
        try:
            store.scores_dir.mkdir(parents=True, exist_ok=True)
            store.predictions_dir.mkdir(parents=True, exist_ok=True)
            probe = store.root / f".write-probe-{os.getpid()}"
            probe.write_text("")
            probe.unlink()
        except OSError as error:
            raise ResultsError(f"output directory {store.root} is not writable: {error.strerror or error}") from None
        store._check_manifest(manifest)
        store._remove_temporaries()
        store._unwritten_manifest = manifest
        return store

    def completed(self) -> set[str]:
        """Ids of the scenarios finished or skipped (failed ones are tried again on a re-run)."""
        scores = self.read_scores(columns=["scenario_id", "status"])
        return set(scores.loc[scores["status"].isin(["ok", "skipped"]), "scenario_id"])

    def write(self, scores: pd.DataFrame, predictions: pd.DataFrame | None) -> None:
        """Write one scenario's parts: its predictions (if any), then its row of scores."""
        scenario = scores["scenario_id"].iloc[0]
        if not isinstance(scenario, str) or not SCENARIO_ID.fullmatch(scenario):
            raise ResultsError(
                f"{scenario!r} is not a valid scenario id (a letter or digit, then letters, digits or '_', '-' and 10 hex digits); its part could not be read back"
            )
        self._write_manifest()
        if predictions is not None:
            _write_atomically(predictions, PREDICTIONS, self.predictions_dir / f"{scenario}.parquet")
        _write_atomically(scores, scores_schema(), self.scores_dir / f"{scenario}.parquet")

    def read_scores(self, columns: list[str] | None = None) -> pd.DataFrame:
        return _read_parts(self.scores_dir, scores_schema(), columns)

    def read_predictions(self, scenario_ids=None) -> pd.DataFrame:
        """Predictions of complete scenarios (a part whose scores part is missing is an interrupted write)."""
        complete = set(self.read_scores(columns=["scenario_id"])["scenario_id"])
        wanted = complete if scenario_ids is None else complete & set(scenario_ids)
        frame = _read_parts(self.predictions_dir, PREDICTIONS, None)
        return frame[frame["scenario_id"].isin(wanted)].reset_index(drop=True)

    def _check_manifest(self, manifest: dict) -> None:
        """Refuse a folder whose results were measured otherwise; a manifest without results holds nothing."""
        path = self.root / MANIFEST
        if not path.is_file() or not _part_files(self.scores_dir):
            return
        try:
            previous = json.loads(path.read_text())
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ResultsError(f"{path}: corrupt manifest ({error}); use another output directory, or remove this one to start afresh") from None
        if previous.get("fingerprint") != manifest["fingerprint"]:
            raise ResultsError(
                f"output directory {self.root} holds results of job {previous.get('job')!r} measured with other settings or data "
                f"(changed: {', '.join(_changes(previous, manifest)) or 'unknown'}); use another output directory or remove it"
            )

    def _write_manifest(self) -> None:
        """Record the manifest given to ``create``, once, before the first part this store writes."""
        if self._unwritten_manifest is None:
            return
        path = self.root / MANIFEST
        temporary = path.with_name(f".{MANIFEST}.tmp")
        temporary.write_text(json.dumps(self._unwritten_manifest, indent=1, sort_keys=True))
        os.replace(temporary, path)
        self._unwritten_manifest = None

    def _remove_temporaries(self) -> None:
        for folder in (self.scores_dir, self.predictions_dir):
            for leftover in folder.glob(".*.tmp*"):
                leftover.unlink(missing_ok=True)


def _write_atomically(frame: pd.DataFrame, schema: pa.Schema, path: Path) -> None:
    table = pa.Table.from_pandas(frame.reindex(columns=schema.names), schema=schema, preserve_index=False)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    pq.write_table(table, temporary)
    os.replace(temporary, path)


def _read_parts(folder: Path, schema: pa.Schema, columns: list[str] | None) -> pd.DataFrame:
    names = columns or schema.names
    parts = _part_files(folder)
    if not parts:
        return pa.Table.from_pylist([], schema=schema).select(names).to_pandas()
    return pq.read_table([str(part) for part in parts], schema=schema, columns=names).to_pandas()


def _part_files(folder: Path) -> list[Path]:
    """The parts in ``folder``; any other Parquet file is named in a warning and left out."""
    if not folder.is_dir():
        return []
    parts = []
    for path in sorted(folder.glob("*.parquet")):
        if PART_NAME.fullmatch(path.name):
            parts.append(path)
        else:
            warnings.warn(f"{path}: not a results part (parts are named <scenario id>.parquet); ignored", stacklevel=2)
    return parts


def _changes(previous: dict, current: dict) -> list[str]:
    """What differs between two manifests: settings fields, release files whose data changed, the version."""
    changed = _changed_fields(previous.get("settings", {}), current.get("settings", {}))
    data_before, data_now = previous.get("data", {}), current.get("data", {})
    changed += [f"{name} data" for name in sorted(set(data_before) | set(data_now)) if data_before.get(name) != data_now.get(name)]
    if previous.get("alc_dask") != current.get("alc_dask"):
        changed.append(f"alc_dask version {previous.get('alc_dask', 'unknown')} -> {current.get('alc_dask')}")
    return changed


def _changed_fields(before: dict, now: dict, prefix: str = "") -> list[str]:
    """Dotted names of the fields that differ, nested ones named down to the leaf (``halting.max_pairs``)."""
    changed = []
    for key in sorted(set(before) | set(now)):
        old, new = before.get(key), now.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            changed += _changed_fields(old, new, f"{prefix}{key}.")
        elif old != new:
            changed.append(prefix + key)
    return changed
