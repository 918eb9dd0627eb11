"""``check`` and ``evaluate``: the default battery (``alc_dask.apps.battery``) on an original, a
release and an optional control table, run on the embedded local cluster, with no job file.

The inputs are checked before any cluster starts (a missing file, an original or a release of
fewer than ``MIN_ROWS`` rows, a release with columns the original lacks, a control table with other
columns or holding rows of the original), each problem one ``ReleaseError`` naming the file and the
column or the count.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from alc_dask.apps.battery import battery_entries, battery_job
from alc_dask.data.errors import ReleaseError
from alc_dask.data.io import read_table

Table = str | os.PathLike | pd.DataFrame

MIN_ROWS = 10
"""Rows an original or a release needs at least: fewer leave every evaluation nothing to measure
(no interval narrower than [0, 1], no predicate, no neighbour), and a check of them would pass
for want of evidence."""
CHANCE_SHARE = 0.01
"""Share of a control table's rows that may be rows of the original at least, whatever the original's
own duplicates: two samples of one population share a few identical rows by chance."""
CHANCE_MARGIN = 4.0
"""Standard deviations above its expectation the count shared by chance may reach: a control table
of other people is then refused about once in 30 000 checks (were the count normal)."""


@dataclass
class CheckInputs:
    """The three tables, read and checked, and where the engine reads them from."""

    original: pd.DataFrame
    release: pd.DataFrame
    control: pd.DataFrame | None
    paths: dict[str, str | None] = field(default_factory=dict)


def read_inputs(original: Table, release: Table, control: Table | None = None) -> CheckInputs:
    """The tables, each checked: it exists, it has rows (the original and the release at least
    ``MIN_ROWS``), its columns are the original's; the control table's rows are other people's."""
    tables = {"original": original, "release": release, "control": control}
    read = {role: _read(role, source) for role, source in tables.items() if source is not None}
    names = {role: _name(role, source) for role, source in tables.items() if source is not None}
    for role in ("original", "release"):
        if len(read[role]) < MIN_ROWS:
            raise ReleaseError(f"{names[role]}: {len(read[role])} rows are too few for any evaluation: the {role} table needs at least {MIN_ROWS}")
    expected = list(read["original"].columns)
    extra = [c for c in read["release"].columns if c not in expected]
    if extra:
        raise ReleaseError(f"{names['release']}: column {extra[0]!r} is not in the original table {names['original']}")
    if "control" in read:
        columns = list(read["control"].columns)
        missing = [c for c in expected if c not in columns]
        other = [c for c in columns if c not in expected]
        if missing or other:
            problem = f"lacks column {missing[0]!r} of the original" if missing else f"has column {other[0]!r} the original lacks"
            raise ReleaseError(f"{names['control']}: the control table {problem} {names['original']}")
        shared, allowed = _shared_rows(read["original"], read["control"][expected])
        if shared > allowed:
            raise ReleaseError(
                f"{names['control']}: {shared} of the control's {len(read['control'])} rows are rows of the original {names['original']}: a control table must be other people"
            )
    paths = {role: None if isinstance(source, pd.DataFrame) else os.fspath(source) for role, source in tables.items() if source is not None}
    return CheckInputs(read["original"], read["release"], read.get("control"), paths)


def _shared_rows(original: pd.DataFrame, control: pd.DataFrame) -> tuple[int, float]:
    """How many of the control's rows are rows of the original, and how many two independent samples
    of one population would share by chance: the original's own share of rows identical to another
    of its rows (the chance that a person's row is someone else's too), at least ``CHANCE_SHARE``,
    times the control's rows, with ``CHANCE_MARGIN`` standard deviations more."""
    original_rows, control_rows = (pd.util.hash_pandas_object(table.astype("string"), index=False) for table in (original, control))
    shared = int(control_rows.isin(original_rows).sum())
    chance = max(float(original_rows.duplicated(keep=False).mean()), CHANCE_SHARE)
    expected = chance * len(control)
    return shared, expected + CHANCE_MARGIN * math.sqrt(expected * (1.0 - chance))


def _name(role: str, source: Table) -> str:
    return f"the {role} table (a DataFrame)" if isinstance(source, pd.DataFrame) else os.fspath(source)


def _read(role: str, source: Table) -> pd.DataFrame:
    if not isinstance(source, pd.DataFrame):
        path = os.fspath(source)
        if "://" not in path and not Path(path).exists():
            raise ReleaseError(f"{path}: no such file ({role} table)")
    return read_table(source, _name(role, source))


@dataclass
class CheckRun:
    """What a check wrote and measured: the scores, the verdict the run wrote, the output folder, the seconds per family."""

    scores: pd.DataFrame
    verdict: object
    output: Path
    seconds: float
    seconds_per_family: dict[str, float]


def run_check(inputs: CheckInputs, output: str | os.PathLike, families=None, seed: int = 0, progress: bool = True, workers: int | None = None) -> CheckRun:
    """Run the battery on ``inputs`` into ``output`` on a local cluster: its results and ``verdict.json``
    at the root (as ``run`` writes them), the report in ``report/``, tables given as DataFrames in ``data/``."""
    from alc_dask.engine import connect, run_job
    from alc_dask.jobs import validate_job
    from alc_dask.report import summarize, write_report
    from alc_dask.report.exposure import exposure_of_results
    from alc_dask.report.verdict import read_verdict

    output = Path(output)
    paths = engine_paths(inputs, output)
    entries = battery_entries(inputs.original, inputs.release, inputs.control is not None, families)
    job = battery_job(paths["original"], paths["release"], paths["control"], str(output.resolve()), entries, seed)
    spec = validate_job(job, "the check's battery")
    started = time.perf_counter()
    with connect(workers=workers) as client:
        scores = run_job(spec, client=client, progress=progress)
    seconds = time.perf_counter() - started
    exposure = exposure_of_results(output)
    verdict = read_verdict(output)  # judged once, by the run
    write_report(summarize(scores, verdict=verdict), output / "report", title="alc_dask check: the default battery on one release", exposure=exposure)
    return CheckRun(scores, verdict, output, seconds, _seconds_per_family(scores))


def engine_paths(inputs: CheckInputs, output: Path) -> dict[str, str | None]:
    """Where the engine reads each table (role -> absolute path, None for no control table): its file,
    or for a table given as a DataFrame, a copy written to ``output/data/<role>.parquet``."""
    from alc_dask.results.files import write_file

    paths = dict(inputs.paths)
    for role, table in (("original", inputs.original), ("release", inputs.release), ("control", inputs.control)):
        if table is not None and paths.get(role) is None:
            paths[role] = str((output / "data" / f"{role}.parquet").resolve())
            write_file(paths[role], table.to_parquet(index=False))
    return {role: None if paths.get(role) is None else str(Path(paths[role]).resolve()) for role in ("original", "release", "control")}


def _seconds_per_family(scores: pd.DataFrame) -> dict[str, float]:
    if "elapsed_seconds" not in scores.columns:
        return {}
    return {str(family): float(seconds) for family, seconds in scores.groupby("family")["elapsed_seconds"].sum().items()}
