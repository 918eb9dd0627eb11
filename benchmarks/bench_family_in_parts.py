"""One family's share of ``check``'s battery, alone, on tables kept on the workers in parts
(``broadcast_limit: 0``), at several sizes: whether its cost grows in proportion to the rows in the
mode ``check`` takes past 512 MiB, without the other families' tasks in the queue.

For each --rows: ``bench_check.py``'s tables (15 columns, a 10% swap as the release, a control of a
quarter of the rows), written as Parquet; the family's battery entries for them; the job run on a
local cluster of --workers single-threaded workers. Prints the end-to-end seconds and the ratio to
the previous size. (An evaluation's ``elapsed_seconds`` in this mode includes waiting for its part
tasks behind other evaluations', so their sum is printed but is not the family's work.)

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_family_in_parts.py --family inference --rows 1000000 3000000
"""

import argparse
import tempfile
import time
from pathlib import Path

from bench_check import write_tables

from alc_dask.apps.battery import battery_entries, battery_job
from alc_dask.apps.check import read_inputs
from alc_dask.engine import run_job
from alc_dask.jobs import validate_job


def timed_family(family: str, rows: int, workers: int, folder: Path) -> tuple[float, float, int]:
    """End-to-end seconds, the sum of the evaluations' ``elapsed_seconds`` and their number."""
    paths = write_tables(rows, folder)
    inputs = read_inputs(*(paths[role] for role in ("original", "release", "control")))
    entries = battery_entries(inputs.typed["original"], inputs.typed["release"], True, families=[family])
    if not entries:
        raise SystemExit(f"{family} adds no evaluation to a check of these tables with a control table: nothing to time")
    job = battery_job(*(str(paths[role]) for role in ("original", "release", "control")), str(folder / "out"), entries, 0)
    job["release"]["broadcast_limit"] = 0
    started = time.perf_counter()
    scores = run_job(validate_job(job, f"{family} in parts"), workers=workers, progress=False)
    return time.perf_counter() - started, float(scores["elapsed_seconds"].sum()), len(scores)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", default="inference")
    parser.add_argument("--rows", nargs="+", type=int, default=[1_000_000, 3_000_000])
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    previous = None
    for rows in args.rows:
        with tempfile.TemporaryDirectory() as folder:
            seconds, elapsed, evaluations = timed_family(args.family, rows, args.workers, Path(folder))
        growth = f"; {seconds / previous[1]:.2f}x the time for {rows / previous[0]:.1f}x the rows" if previous else ""
        print(
            f"{args.family} on {rows} rows in parts: {evaluations} evaluations, {seconds:.1f} s end to end (elapsed seconds summed: {elapsed:.1f}){growth}",
            flush=True,
        )
        previous = (rows, seconds)


if __name__ == "__main__":
    main()
