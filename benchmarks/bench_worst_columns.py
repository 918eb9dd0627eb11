"""How the worst-columns search's time grows with the number of subsets it tries, on adult (the ALC
paper's table: 30 000 rows x 15 columns) and its weak release (values swapped between people).

The ALC of one secret on all 30 000 people, and membership with the table split in two: the first
15 000 people as members (their rows of the weak release released), the others as the control.
Each budget is a fresh search on a fresh local cluster of ``--workers`` processes (started before
the clock): nothing resumed, no baseline remembered by a worker from an earlier search.
Skips cleanly when the shared data folder is absent.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_worst_columns.py [--budgets 5 10 20 40] [--workers 2] [--secret label]
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ADULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "alc-paper" / "adult"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", type=int, nargs="+", default=[5, 10, 20, 40])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--secret", default="label")
    parser.add_argument("--targets", type=int, default=2000)
    parser.add_argument("--families", nargs="+", default=["alc", "membership"], choices=["alc", "inference", "membership"])
    args = parser.parse_args()
    if not (ADULT / "original.parquet").exists():
        print(f"skipped: {ADULT / 'original.parquet'} is absent")
        return
    from alc_dask.apps.check import read_inputs
    from alc_dask.apps.worst_columns import request_of, run_search
    from alc_dask.engine import OnDemandClient

    original, weak = (pd.read_parquet(ADULT / f"{name}.parquet") for name in ("original", "weak"))
    half = len(original) // 2
    tables = {
        "alc": read_inputs(original, weak),
        "inference": read_inputs(original[:half], weak[:half], original[half:].reset_index(drop=True)),
        "membership": read_inputs(original[:half], weak[:half], original[half:].reset_index(drop=True)),
    }
    print(f"adult: {original.shape[0]} rows x {original.shape[1]} columns; {args.workers} workers; {args.targets} targets an evaluation")
    print(f"{'family':<11}{'budget':>7}{'tried':>7}{'seconds':>9}{'s/subset':>10}  chosen: held-out [interval] (selection half)")
    for family in args.families:
        secret = None if family == "membership" else args.secret
        for budget in args.budgets:
            request = request_of(tables[family], secret, family, None, 2, budget, args.targets, 0)
            with OnDemandClient(None, None, args.workers) as cluster, tempfile.TemporaryDirectory() as folder:
                cluster.get()  # started before the clock
                started = time.perf_counter()
                result = run_search(request, tables[family], Path(folder), cluster)
                seconds = time.perf_counter() - started
            held, chosen = result.held_out, result.chosen
            found = f"{', '.join(chosen.columns)}: {held.value:.2f} [{held.low:.2f}, {held.high:.2f}] ({chosen.selection.value:.2f})" if chosen else "none"
            print(f"{family:<11}{budget:>7}{result.tried:>7}{seconds:>9.1f}{seconds / result.tried:>10.2f}  {found}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
