"""A results dataset: ``scores/<family>/`` and ``predictions/``, Parquet parts of many scenarios
each, under a local folder or any fsspec URL.

Outcomes are buffered and written as one part when ``part_scenarios`` of them wait, or
``flush_seconds`` after the first of them, so a long job saves progress, and at ``flush()`` (the
runner flushes at the end, on Ctrl-C and on errors). What is still buffered is not done: a re-run
recomputes it. Parts are written atomically, predictions first (see ``parts``); readers take
exactly the part files, one row per scenario, and pyarrow applies their filters (see ``reader``).
``compact()`` rewrites small parts into full ones and drops superseded rows.
"""

import os
import re
import threading
import warnings

import pandas as pd
import pyarrow as pa

from alc_dask.measure import SettingError
from alc_dask.results.buffer import PartBuffer, frame_table
from alc_dask.results.check import Damage, check_parts
from alc_dask.results.compact import compact_parts
from alc_dask.results.files import Files
from alc_dask.results.lease import FolderLease
from alc_dask.results.manifest import MANIFEST, ResultsError, check_layout, check_manifest, write_manifest
from alc_dask.results.parts import FAMILY, Parts
from alc_dask.results.reader import ResultReader
from alc_dask.results.schema import PREDICTIONS, family_schema

__all__ = ["MANIFEST", "ResultStore", "ResultsError"]

PART_SCENARIOS = 500  # a 100 000-scenario job: 200 parts per folder
FLUSH_SECONDS = 30.0
COMPACT_ABOVE = 100  # parts after which a job ends by compacting (a 100 000-scenario job has 200 full ones)
PART_ROWS = 1_000_000  # predictions buffered at most before a part is written, whatever the scenarios
SCENARIO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_]*-[0-9a-f]{10}")
ENVIRONMENT = {"part_scenarios": "ALC_DASK_PART_SCENARIOS", "flush_seconds": "ALC_DASK_FLUSH_SECONDS"}


class ResultStore:
    def __init__(self, root: str | os.PathLike, part_scenarios: int | None = None, flush_seconds: float | None = None):
        self.files = Files(root)
        self.parts = Parts(self.files)
        self.reader = ResultReader(self.parts)
        self.part_scenarios = part_scenarios or _setting("part_scenarios", int, PART_SCENARIOS)
        self.flush_seconds = flush_seconds if flush_seconds is not None else _setting("flush_seconds", float, FLUSH_SECONDS)
        self._buffer = PartBuffer()
        self._lock = threading.RLock()
        self._timer: threading.Timer | None = None
        self._unwritten_manifest: dict | None = None
        self._lease: FolderLease | None = None
        self.damaged: list[Damage] = []
        """Parts found damaged (a file missing or cut short) and removed by ``create``."""

    @classmethod
    def create(cls, root: str | os.PathLike, manifest: dict, wait: bool = False, **settings) -> "ResultStore":
        """Open ``root`` for writing, checking it is writable, taking its lease (see ``lease``; ``wait``
        for a run holding it, else ``FolderBusy``), checking it holds results of these settings only and
        removing parts damaged since they were written (see ``check``). Results of another layout
        (``manifest``) are refused before anything is written. ``close()`` (or the end of a ``with``
        block) writes what is buffered and gives the lease up."""
        store = cls(root, **settings)
        files, parts = store.files, store.parts
        _check_writable(files, parts.scores, parts.predictions)
        check_layout(files)
        store._lease = FolderLease(files).acquire(wait)
        try:
            check_manifest(files, manifest, has_results=bool(parts.present()))
            store.damaged = check_parts(parts)
            for damage in store.damaged:
                parts.remove(damage.part)  # its scenarios are no longer complete: a re-run makes them again, once
            files.remove_temporaries(files.root)
            parts.remove_leftovers()
        except BaseException:
            store._lease.release()
            raise
        store._unwritten_manifest = manifest
        return store

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exception) -> None:
        self.close()

    def close(self) -> None:
        """Write what is buffered, then give the folder's lease up (even if the write fails)."""
        try:
            self.flush()
        finally:
            if self._lease is not None:
                self._lease.release()
                self._lease = None

    def completed(self) -> set[str]:
        """Ids of the scenarios finished or skipped in written parts (failed ones are tried again on a re-run)."""
        return self.reader.completed()

    def write(self, scores: dict, predictions: pa.Table | pd.DataFrame | None) -> None:
        """Buffer one scenario's record of scores (column: value, its ``family`` a registered one) and its
        predictions (if any, in the columns of ``PREDICTIONS``; absent ones null); write a part when due."""
        scenario = scores.get("scenario_id")
        if not isinstance(scenario, str) or not SCENARIO_ID.fullmatch(scenario):
            raise ResultsError(f"{scenario!r} is not a valid scenario id (a letter or digit, then letters, digits or '_', '-' and 10 hex digits)")
        _check_family(scores.get("family"), scenario)
        if isinstance(predictions, pd.DataFrame):
            predictions = frame_table(predictions, PREDICTIONS, f"predictions of scenario {scenario}")
        with self._lock:
            self._buffer.add(scores, predictions)
            if len(self._buffer) >= self.part_scenarios or self._buffer.rows >= PART_ROWS or self._buffer.age() >= self.flush_seconds:
                self.flush()
            elif self._timer is None:
                self._timer = threading.Timer(self.flush_seconds - self._buffer.age(), self._flush_on_time)
                self._timer.daemon = True
                self._timer.start()

    def flush(self) -> None:
        """Write the buffered outcomes as one part; they stay buffered if the write fails."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if not len(self._buffer):
                return
            if self._unwritten_manifest is not None:
                write_manifest(self.files, self._unwritten_manifest)
                self._unwritten_manifest = None
            scores, predictions, rejected = self._buffer.tables()
            if scores:
                self.parts.write(scores, predictions)
            self._buffer = PartBuffer()
            if rejected:
                reasons = "; ".join(f"{scenario}: {reason}" for scenario, reason in rejected.items())
                raise ResultsError(
                    f"results not saved to {self.files.url} (they do not fit their family's scores schema; a re-run computes them again): {reasons}"
                )

    def read_scores(self, family: str | None = None, columns: list[str] | None = None, filters=None) -> pd.DataFrame:
        """One row per scenario of ``family`` (None: every family's, in the union of their columns); see ``ResultReader.scores``."""
        return self.reader.scores(family, columns, filters)

    def read_predictions(self, scenario_ids=None) -> pd.DataFrame:
        """Predictions of complete scenarios (optionally only ``scenario_ids``)."""
        return self.reader.predictions(scenario_ids)

    def compact(self, above: int = 0) -> int:
        """When there are more than ``above`` parts: rewrite the small ones and those holding superseded
        rows into full parts. Returns how many parts were replaced."""
        with self._lock:
            self.flush()
            return compact_parts(self.parts, self.part_scenarios, above)

    def _flush_on_time(self) -> None:
        try:
            self.flush()
        except Exception as error:  # noqa: BLE001 - the next write tries again, in the runner's thread
            warnings.warn(f"results could not be written to {self.files.url} yet ({error}); trying again with the next result", stacklevel=1)


def _check_writable(files: Files, *folders: str) -> None:
    """Make ``folders`` and write a file beside them: a folder that cannot be written is named before any work."""
    try:
        for folder in folders:
            files.makedirs(folder)
        probe = files.path(f".write-probe-{os.getpid()}")
        files.put_bytes(probe, b"")
        files.remove(probe)
    except OSError as error:
        raise ResultsError(f"output directory {files.url} is not writable: {error.strerror or error}") from None


def _check_family(family, scenario: str) -> None:
    """A record's family names the folder of its scores: a registered family."""
    if not isinstance(family, str) or not FAMILY.fullmatch(family):
        raise ResultsError(f"scores of scenario {scenario}: family {family!r} is not a family's name")
    try:
        family_schema(family)
    except SettingError as error:
        raise ResultsError(f"scores of scenario {scenario}: {error}") from None


def _setting(name: str, kind: type, default):
    """A store setting from its environment variable (documented in the results reference, docs/reference/results.md), else the default."""
    variable = ENVIRONMENT[name]
    text = os.environ.get(variable)
    if text is None:
        return default
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not value > 0:
        expected = "a whole number of scenarios, at least 1" if kind is int else "a number of seconds above 0"
        raise ResultsError(f"{variable}={text!r}: expected {expected}")
    return value
