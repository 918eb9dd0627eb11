"""How long ``alc-dask check`` takes on 30 000 rows x 15 columns (the goal: under 2 minutes
on 2 cores), end to end: inputs read and checked, local cluster started, battery run, report and
verdict written; with the seconds each family's evaluations took in all.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_check.py [--rows 30000] [--workers 2]
"""

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=30_000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    original = wide_population(args.rows, 0)
    release = swap_frame(original, 0.10, 1)
    control = wide_population(args.rows // 4, 1000)
    with tempfile.TemporaryDirectory() as folder:
        paths = {name: Path(folder) / f"{name}.parquet" for name in ("original", "release", "control")}
        for name, table in (("original", original), ("release", release), ("control", control)):
            table.to_parquet(paths[name], index=False)
        started = time.perf_counter()
        inputs = read_inputs(paths["original"], paths["release"], paths["control"])
        run = run_check(inputs, Path(folder) / "out", workers=args.workers, progress=False)
        checked = time.perf_counter() - started
        print(
            f"check on {args.rows} rows x {original.shape[1]} columns, {args.workers} workers: {checked:.1f} s to results and report ({run.seconds:.1f} s in the engine)"
        )
        for family, seconds in sorted(run.seconds_per_family.items(), key=lambda pair: -pair[1]):
            rows = run.scores[run.scores["family"] == family]
            print(f"  {family:<15} {len(rows):>3} evaluations ({int((rows['status'] == 'ok').sum())} ok) {seconds:7.1f} s of worker time")
        verdict = verdict_of(run.scores)
        print(f"verdict: {verdict.verdict}; {time.perf_counter() - started:.1f} s end to end")


if __name__ == "__main__":
    main()
