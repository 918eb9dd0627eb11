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
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from alc_dask.apps.battery import battery_entries, battery_job
from alc_dask.data.errors import ReleaseError
from alc_dask.data.io import CSV_SEPARATORS, read_table, table_format
from alc_dask.data.parts import is_dataset, read_dataset
from alc_dask.data.row_keys import row_keys
from alc_dask.errors import OptionError

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
    """The three tables, read and checked, and where the engine reads them from.

    ``original``, ``release``, ``control`` are as read; ``typed`` holds them as the engine types
    them (CSV text that parses as numbers as numbers; a column declared categorical as text), which
    is what the battery chooses secrets and columns by. ``kinds`` are the declared kinds
    (``--types``); a role whose ``paths`` entry is None is written for the engine (`engine_inputs`)."""

    original: pd.DataFrame
    release: pd.DataFrame
    control: pd.DataFrame | None
    paths: dict[str, str | None] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    typed: dict[str, pd.DataFrame] = field(default_factory=dict)
    release_source: str | None = None
    """The release's file or folder as given (None: a DataFrame): its name in the results."""

    @property
    def missing_from_release(self) -> list[str]:
        """The original's columns the release does not have (evaluated on the others)."""
        released = set(self.release.columns)
        return [c for c in self.original.columns if c not in released]


KINDS = ("categorical", "continuous")
DECLARE_ADVICE = "with --types (check) or types= (evaluate)"
"""How a person running ``check`` or ``evaluate`` declares a column's kind."""


def read_inputs(original: Table, release: Table, control: Table | None = None, *, kinds: dict[str, str] | None = None, sep: str | None = None) -> CheckInputs:
    """The tables, each checked: it exists, it has rows (the original and the release at least
    ``MIN_ROWS``), its columns are the original's; the control table's rows are other people's;
    every column types alike in every table, as the engine will type it (``kinds`` declares a
    column ``categorical`` or ``continuous``). CSV files are split by ``sep``, else by the
    separator their header holds."""
    tables = {"original": original, "release": release, "control": control}
    read = {role: _read(role, source, sep) for role, source in tables.items() if source is not None}
    names = {role: _name(role, source) for role, source in tables.items() if source is not None}
    for role in read:
        if len(read[role]) < MIN_ROWS:
            raise ReleaseError(f"{names[role]}: {len(read[role])} rows are too few for any evaluation: the {role} table needs at least {MIN_ROWS}")
    expected = list(read["original"].columns)
    extra = [c for c in read["release"].columns if c not in expected]
    if extra:
        raise ReleaseError(f"{names['release']}: column {extra[0]!r} is not in the original table {names['original']}")
    if not set(read["release"].columns) & set(expected):
        raise ReleaseError(f"{names['release']}: the release has no column of the original table {names['original']}")
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
    declared = _declared_kinds(kinds or {}, expected)
    staged = sep is not None  # the engine splits CSV files by their header's separator: other splits are written for it
    paths = {role: None if isinstance(source, pd.DataFrame) or staged else os.fspath(source) for role, source in tables.items() if source is not None}
    source = None if isinstance(release, pd.DataFrame) else os.fspath(release)
    return CheckInputs(read["original"], read["release"], read.get("control"), paths, declared, _typed(read, declared, names), source)


def _index_is_not_data(role: str, table: pd.DataFrame) -> None:
    """A named index (person ids, say) is refused rather than dropped unseen: it is not evaluated,
    and the person should choose whether it is a column. An unnamed one (rows filtered) is dropped."""
    names = [name for name in table.index.names if name is not None]
    if names:
        raise OptionError(
            f"{role}: the DataFrame's index {names[0]!r} would not be evaluated; make it a column with .reset_index(), or leave it out with .reset_index(drop=True)"
        )


def _declared_kinds(kinds: dict[str, str], columns: list[str]) -> dict[str, str]:
    for name, kind in kinds.items():
        if name not in columns:
            raise ReleaseError(f"types: {name!r} is not a column of the original table; it has {columns}")
        if kind not in KINDS:
            raise ReleaseError(f"types: {name}={kind!r}: a column's kind is one of {list(KINDS)}")
    return dict(kinds)


def _typed(read: dict[str, pd.DataFrame], kinds: dict[str, str], names: dict[str, str]) -> dict[str, pd.DataFrame]:
    """The tables as the engine types them (``alc_dask.data.schema``): what the battery chooses by. A
    column declared categorical is text; a continuous one, numbers; any other, as inferred."""
    from alc_dask.data.schema import ColumnKind, infer_kind, type_column

    typed = {role: {} for role in read}
    for column in read["original"].columns:
        parts = {names[role]: table[column] for role, table in read.items() if column in table.columns}  # errors name the files
        declared = ColumnKind(kinds[column]) if column in kinds else None
        try:
            values, typing = type_column(column, parts, declared)
            infer_kind(column, values, typing, declared)
        except ReleaseError as error:
            raise ReleaseError(str(error).replace("in `columns`", DECLARE_ADVICE)) from None
        for role in read:
            if names[role] in values:
                series = values[names[role]]
                typed[role][column] = series.astype(str).where(series.notna(), None) if declared is ColumnKind.CATEGORICAL else series
    return {role: pd.DataFrame(columns, index=read[role].index, copy=False) for role, columns in typed.items()}  # columns typed as read stay shared


def _shared_rows(original: pd.DataFrame, control: pd.DataFrame) -> tuple[int, float]:
    """How many of the control's rows are rows of the original, and how many two independent samples
    of one population would share by chance: the original's own share of rows identical to another
    of its rows (the chance that a person's row is someone else's too), at least ``CHANCE_SHARE``,
    times the control's rows, with ``CHANCE_MARGIN`` standard deviations more."""
    original_rows, control_rows = (pd.Series(keys) for keys in row_keys([original, control], list(original.columns)))
    shared = int(control_rows.isin(original_rows).sum())
    chance = max(float(original_rows.duplicated(keep=False).mean()), CHANCE_SHARE)
    expected = chance * len(control)
    return shared, expected + CHANCE_MARGIN * math.sqrt(expected * (1.0 - chance))


def _name(role: str, source: Table) -> str:
    return f"the {role} table (a DataFrame)" if isinstance(source, pd.DataFrame) else os.fspath(source)


def _read(role: str, source: Table, sep: str | None) -> pd.DataFrame:
    if isinstance(source, pd.DataFrame):
        _index_is_not_data(role, source)
        return read_table(source, _name(role, source))
    if not isinstance(source, str | os.PathLike):
        raise OptionError(f"{role}: expected a path to a Parquet or CSV file (or a folder of parts) or a pandas DataFrame; got {type(source).__name__}")
    path = os.fspath(source)
    if "://" not in path and not Path(path).exists():
        raise ReleaseError(f"{path}: no such file or folder ({role} table)")
    if is_dataset(path):
        return read_table(read_dataset(path, path), path)
    if sep is not None and table_format(path) == "csv":
        try:
            table = read_table(pd.read_csv(path, dtype=str, sep=sep), path)
        except (ValueError, OSError) as error:
            raise ReleaseError(f"{path}: cannot read as csv split by {sep!r} ({type(error).__name__}: {error})") from None
    else:
        table = read_table(source, path)
    _not_one_column_of_many(table, path)
    return table


def _not_one_column_of_many(table: pd.DataFrame, path: str) -> None:
    """A table of one column whose name holds a separator was split by the wrong one: every
    evaluation of it would attack nothing and the check would pass for want of columns."""
    (name, *others) = table.columns
    if not others and (held := [sep for sep in CSV_SEPARATORS if sep in name]):
        raise ReleaseError(f"{path}: the table is read as one column {name[:60]!r}: is its separator {held[0]!r}? (--sep, or sep= from Python)")


@dataclass
class CheckRun:
    """What a check wrote and measured: the scores, the verdict the run wrote, the output folder, the seconds per family."""

    scores: pd.DataFrame
    verdict: object
    output: Path
    seconds: float
    seconds_per_family: dict[str, float]


def run_check(
    inputs: CheckInputs,
    output: str | os.PathLike,
    families=None,
    seed: int = 0,
    progress: bool = True,
    workers: int | None = None,
    *,
    secrets: list[str] | None = None,
    known: list[str] | None = None,
    scheduler: str | None = None,
    wait: bool = False,
) -> CheckRun:
    """Run the battery on ``inputs`` into ``output``, on the one at ``scheduler``, the caller's
    current Dask client or a local cluster (``OnDemandClient``):
    its results and ``verdict.json`` at the root (as ``run`` writes them, with what the release keeps
    of the original beside: ``alc_dask.utility.fidelity``), the report in ``report/``.
    ``secrets`` and ``known`` replace the battery's own choice of secrets and quasi-identifiers;
    ``wait``: if another run is writing ``output``, wait for it to end (else ``FolderBusy``)."""
    from alc_dask.apps.staging import engine_inputs
    from alc_dask.engine import OnDemandClient, run_job
    from alc_dask.families.presentation import warm_up
    from alc_dask.jobs import validate_job
    from alc_dask.report import summarize, write_report
    from alc_dask.report.exposure import exposure_of_results
    from alc_dask.utility.fidelity import fidelity
    from alc_dask.verdict import read_verdict, write_verdict

    output = Path(output)
    typed = inputs.typed or {"original": inputs.original, "release": inputs.release}
    entries = battery_entries(typed["original"], typed["release"], inputs.control is not None, families, secrets, known)
    started = time.perf_counter()
    with ExitStack() as engine, ThreadPoolExecutor(2, thread_name_prefix="alc-dask-aside") as aside:
        aside.submit(warm_up)  # the report's figure toolkit, loaded while this process waits for its local workers
        cluster = engine.enter_context(OnDemandClient(None, scheduler, workers))
        paths = engine.enter_context(engine_inputs(inputs, output, shared=cluster.elsewhere))
        job = battery_job(paths["original"], paths["release"], paths["control"], str(output.resolve()), entries, seed, inputs.kinds, release_label(inputs))
        spec = validate_job(job, "the check's battery")
        client = cluster.get()
        keeping = aside.submit(fidelity, typed["original"], typed["release"], client, seed)  # needs no result: counted while the battery runs
        scores = run_job(spec, client=client, progress=progress, wait=wait)
        kept = keeping.result()
        seconds = time.perf_counter() - started
        closed = aside.submit(engine.pop_all().close)  # a local cluster takes 0.6 s to stop: the report needs none of it
        exposure = aside.submit(exposure_of_results, output)  # counted while this thread draws the report's figures
        verdict = read_verdict(output).model_copy(update={"fidelity": kept})  # judged once, by the run; utility beside it
        write_verdict(verdict, output)
        write_report(
            summarize(scores, verdict=verdict), output / "report", title="alc_dask check: the default battery on one release", exposure=exposure.result()
        )
        closed.result()  # its error (a lost connection is an ``EngineError``), after the report
    return CheckRun(scores, verdict, output, seconds, _seconds_per_family(scores))


def release_label(inputs: CheckInputs) -> str:
    """The release's name in results: its file's stem, or ``release`` for a DataFrame."""
    from alc_dask.jobs.spec import safe_label

    path = inputs.release_source
    return safe_label(Path(path).stem) if path else "release"


def _seconds_per_family(scores: pd.DataFrame) -> dict[str, float]:
    if "elapsed_seconds" not in scores.columns:
        return {}
    return {str(family): float(seconds) for family, seconds in scores.groupby("family")["elapsed_seconds"].sum().items()}
