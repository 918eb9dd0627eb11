"""How long ``alc-dask check`` takes on 30 000 rows x 15 columns (the goal: under 2 minutes
on 2 cores), end to end: inputs read and checked, local cluster started, battery run, report and
verdict written; with the seconds each family's evaluations took in all.

``--side-by-side BEFORE`` times the command itself instead (a new process each run, as a user
starts it: ``python -c 'from alc_dask.cli import main; main()' check ...``), ``--runs`` times each,
alternating: this checkout, BEFORE (another checkout of the project, e.g. a ``git worktree`` of an
earlier commit) and this checkout with no bytecode (``PYTHONPYCACHEPREFIX`` an empty folder, as a
venv installed without compiling its bytecode runs where ``PYTHONDONTWRITEBYTECODE`` is set); the
median of each and their ratios, and the median CPU seconds of the command and its processes.
Both checkouts' bytecode is written first, as ``make`` writes it at install.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_check.py [--rows 30000] [--workers 2]
    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_check.py --rows 2000 --side-by-side /tmp/before --runs 5
    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_check.py --rows 10000000 --columns 10 --control-rows 10000000

The last is the issue's check at scale: three tables of 1e7 rows and 10 columns. The peak memory
printed is this process's and its workers' proportional set size (``PeakMemory``), sampled every
half second.
"""

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import psutil
import pyarrow.parquet as pq

from alc_dask.anonymize import swap_frame
from alc_dask.apps.check import read_inputs, run_check
from alc_dask.apps.synthetic import make_population
from alc_dask.verdict import verdict_of


def wide_population(rows: int, seed: int) -> pd.DataFrame:
    """The synthetic population's 9 columns and 6 more (3 categorical, 3 continuous) tied to them: 15 columns."""
    people = make_population(rows, seed)
    rng = np.random.default_rng(seed + 1)
    return people.assign(
        household=np.clip(rng.poisson(1.5 + (people["married"] == "yes"), rows) + 1, 1, 9).astype(str),
        tenure=rng.choice(["owner", "renter", "social"], rows, p=[0.6, 0.3, 0.1]),
        commute=rng.choice(["car", "bus", "train", "bike", "walk", "home"], rows),
        savings=np.round(people["income"] * rng.uniform(0, 3, rows), -2),
        weight=np.round(rng.normal(75, 14, rows), 1),
        distance_km=np.round(rng.exponential(12, rows), 1),
    )


def write_tables(rows: int, folder: Path, columns: int = 15, control_rows: int | None = None) -> dict[str, Path]:
    """The benchmark's tables as Parquet files in ``folder`` (role -> path): ``rows`` people of
    ``wide_population`` (its first ``columns`` columns) as the original, 10% of each column's values
    swapped as the release, and a control of ``control_rows`` other people (a quarter as many)."""
    original = wide_population(rows, 0).iloc[:, :columns]
    control = wide_population(rows // 4 if control_rows is None else control_rows, 1000).iloc[:, :columns]
    tables = {"original": original, "release": swap_frame(original, 0.10, 1), "control": control}
    paths = {role: folder / f"{role}.parquet" for role in tables}
    for role, table in tables.items():
        table.to_parquet(paths[role], index=False)
    return paths


class PeakMemory:
    """The largest memory of this process, and of it and every process under it (the local
    cluster's workers, and the fork server they are forked from) together, sampled every half
    second from a thread while the check runs. Proportional set sizes: a page shared by the fork
    server and its workers counts once, shared out among them (resident sizes would count it in
    each: 726 MiB for an idle local cluster of 2 workers whose processes use 345 MiB)."""

    def __init__(self):
        self.own = self.tree = 0
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self) -> None:
        me = psutil.Process()
        while True:
            own = me.memory_full_info().pss
            children = 0
            for child in me.children(recursive=True):
                try:
                    children += child.memory_full_info().pss
                except psutil.Error:  # a worker gone between listing and reading
                    pass
            self.own, self.tree = max(self.own, own), max(self.tree, own + children)
            time.sleep(0.5)


ROOT = Path(__file__).resolve().parents[1]
COMMAND = "import sys; from alc_dask.cli import main; sys.argv[0] = 'alc-dask'; sys.exit(main())"


def tree_cpu_seconds(process: subprocess.Popen) -> float:
    """The CPU seconds of ``process`` and of every process under it, until it ends: each one's as
    last seen, sampled every 50 ms (a local cluster's workers may be children of a fork server,
    whose times would not reach this process's own account of its children)."""
    root = psutil.Process(process.pid)
    seen: dict[int, float] = {}
    while process.poll() is None:
        try:
            for member in [root, *root.children(recursive=True)]:
                times = member.cpu_times()
                seen[member.pid] = times.user + times.system
        except psutil.Error:  # a process gone between listing and reading
            pass
        time.sleep(0.05)
    process.wait()
    return sum(seen.values())


def side_by_side(paths: dict[str, Path], folder: Path, before: Path, runs: int, workers: int) -> None:
    """Median seconds of the ``check`` command of this checkout, of ``before`` and of this checkout without bytecode, alternating."""
    empty = folder / "no-bytecode"
    empty.mkdir()
    for checkout in (ROOT, before):  # where PYTHONDONTWRITEBYTECODE is set, a module edited since its bytecode was written would compile at every start
        compileall.compile_dir(checkout / "alc_dask", quiet=1)
    variants = {"after": (ROOT, {}), "before": (before, {}), "after, no bytecode": (ROOT, {"PYTHONPYCACHEPREFIX": str(empty)})}
    checked = [str(paths["original"]), str(paths["release"]), "--control", str(paths["control"]), "--workers", str(workers)]
    seconds: dict[str, list[float]] = {name: [] for name in variants}
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    for run in range(runs):
        for index, (name, (checkout, extra)) in enumerate(variants.items()):
            environment = {**os.environ, "PYTHONPATH": str(checkout), **extra}
            command = [
                sys.executable,
                "-P",  # no working directory on sys.path: run from a checkout, it would shadow PYTHONPATH's (both sides ran this checkout before)
                "-c",
                COMMAND,
                "check",
                *checked,
                "--out",
                str(folder / f"out-{run}-{index}"),
            ]  # a folder each: a finished one would be resumed
            with tempfile.TemporaryFile("w+") as errors:  # a file, not a pipe: nothing blocks on a full pipe while the tree is sampled
                started = time.perf_counter()
                command_run = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL, stderr=errors, text=True)
                cpu[name].append(tree_cpu_seconds(command_run))
                seconds[name].append(time.perf_counter() - started)
                if command_run.returncode not in (0, 4):
                    errors.seek(0)
                    raise SystemExit(f"{name}: check exited {command_run.returncode}:\n{errors.read()[-2000:]}")
    medians = {name: statistics.median(values) for name, values in seconds.items()}
    for name, values in seconds.items():
        print(f"  {name:<20} median {medians[name]:6.2f} s, CPU {statistics.median(cpu[name]):5.2f} s  ({', '.join(f'{v:.2f}' for v in values)})")
    print(f"  before / after {medians['before'] / medians['after']:.2f}x; no bytecode / after {medians['after, no bytecode'] / medians['after']:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=30_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--side-by-side", type=Path, metavar="BEFORE", help="time the command of this checkout, of BEFORE and without bytecode, alternating")
    parser.add_argument("--runs", type=int, default=3, help="runs of each with --side-by-side (default 3)")
    parser.add_argument("--columns", type=int, default=15, choices=range(9, 16), metavar="9..15", help="the first COLUMNS of the 15 (default 15)")
    parser.add_argument("--control-rows", type=int, help="rows of the control table (default a quarter of --rows)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        with ProcessPoolExecutor(1) as writer:  # the tables made in another process: this one's memory is then the check's
            paths = writer.submit(write_tables, args.rows, Path(folder), args.columns, args.control_rows).result()
        columns, control_rows = len(pq.read_schema(paths["original"]).names), pq.read_metadata(paths["control"]).num_rows
        if args.side_by_side:
            print(
                f"alc-dask check on {args.rows} rows x {columns} columns with a control of {control_rows}, end to end, load average {os.getloadavg()[0]:.1f}:"
            )
            side_by_side(paths, Path(folder), args.side_by_side, args.runs, args.workers)
            return
        peak = PeakMemory()
        started = time.perf_counter()
        inputs = read_inputs(paths["original"], paths["release"], paths["control"])
        run = run_check(inputs, Path(folder) / "out", workers=args.workers, progress=False)
        checked = time.perf_counter() - started
        print(
            f"check on {args.rows} rows x {columns} columns with a control of {control_rows}, {args.workers} workers: "
            f"{checked:.1f} s to results and report ({run.seconds:.1f} s in the engine); "
            f"peak memory (PSS) {peak.tree / 2**30:.2f} GiB for this process and its workers ({peak.own / 2**30:.2f} GiB this process)"
        )
        for family, seconds in sorted(run.seconds_per_family.items(), key=lambda pair: -pair[1]):
            rows = run.scores[run.scores["family"] == family]
            print(f"  {family:<15} {len(rows):>3} evaluations ({int((rows['status'] == 'ok').sum())} ok) {seconds:7.1f} s on the workers")
        print("  (a release of more than 512 MiB encoded is kept on the workers in parts: its evaluations' seconds then include their waits for part tasks)")
        verdict = verdict_of(run.scores)
        print(f"verdict: {verdict.verdict}; {time.perf_counter() - started:.1f} s end to end")


if __name__ == "__main__":
    main()
