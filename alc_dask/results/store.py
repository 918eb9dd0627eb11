"""A results dataset on disk: ``scores/`` and ``predictions/``, one Parquet part per scenario.

A part is written to a hidden temporary name and renamed into place (``os.replace`` is atomic), so a
crash never leaves a part that looks complete; readers skip hidden files. The predictions part is
renamed before the scores part, so a scenario is complete exactly when its scores part exists.
``job.json`` records the settings the parts were measured with; resuming with other settings is
refused rather than mixing results.
"""

import json
import os
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from alc_dask.results.schema import PREDICTIONS, SCORES

MANIFEST = "job.json"


class ResultsError(ValueError):
    """An output directory cannot be written, read or resumed."""


class ResultStore:
    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.scores_dir = self.root / "scores"
        self.predictions_dir = self.root / "predictions"

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
        return store

    def completed(self) -> set[str]:
        """Ids of the scenarios finished or skipped (failed ones are tried again on a re-run)."""
        scores = self.read_scores(columns=["scenario_id", "status"])
        return set(scores.loc[scores["status"].isin(["ok", "skipped"]), "scenario_id"])

    def write(self, scores: pd.DataFrame, predictions: pd.DataFrame | None) -> None:
        """Write one scenario's parts: its predictions (if any), then its row of scores."""
        scenario = scores["scenario_id"].iloc[0]
        if predictions is not None:
            _write_atomically(predictions, PREDICTIONS, self.predictions_dir / f"{scenario}.parquet")
        _write_atomically(scores, SCORES, self.scores_dir / f"{scenario}.parquet")

    def read_scores(self, columns: list[str] | None = None) -> pd.DataFrame:
        return _read_parts(self.scores_dir, SCORES, columns)

    def read_predictions(self, scenario_ids=None) -> pd.DataFrame:
        """Predictions of complete scenarios (a part whose scores part is missing is an interrupted write)."""
        complete = set(self.read_scores(columns=["scenario_id"])["scenario_id"])
        wanted = complete if scenario_ids is None else complete & set(scenario_ids)
        frame = _read_parts(self.predictions_dir, PREDICTIONS, None)
        return frame[frame["scenario_id"].isin(wanted)].reset_index(drop=True)

    def _check_manifest(self, manifest: dict) -> None:
        path = self.root / MANIFEST
        if path.is_file():
            try:
                previous = json.loads(path.read_text())
            except (UnicodeDecodeError, json.JSONDecodeError) as error:
                raise ResultsError(f"{path}: corrupt manifest ({error}); use another output directory, or remove this one to start afresh") from None
            if previous.get("fingerprint") != manifest["fingerprint"]:
                changed = sorted(k for k in set(previous.get("settings", {})) | set(manifest["settings"]) if previous.get("settings", {}).get(k) != manifest["settings"].get(k))
                raise ResultsError(
                    f"output directory {self.root} holds results of job {previous.get('job')!r} measured with other settings "
                    f"(changed: {', '.join(changed) or 'unknown'}); use another output directory or remove it"
                )
            return
        temporary = path.with_name(f".{MANIFEST}.tmp")
        temporary.write_text(json.dumps(manifest, indent=1, sort_keys=True))
        os.replace(temporary, path)

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
    if not folder.is_dir() or not any(folder.glob("[!._]*.parquet")):
        return pa.Table.from_pylist([], schema=schema).select(names).to_pandas()
    return pq.read_table(folder, schema=schema, columns=names).to_pandas()
