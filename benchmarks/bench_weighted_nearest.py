"""Inference's rarity-weighted nearest-row kernel alone, in process: seconds for --queries queries
against tables of --rows rows (random codes and values: 9 categorical columns as int16 codes, 5
continuous), and nanoseconds per row and query; with ``--before DIR`` (a checkout of the project,
e.g. ``git archive <commit> alc_dask | tar -x -C DIR``), the same run of DIR's kernel beside this
checkout's, alternating, each in a process of its own (``python -P``: only ``PYTHONPATH`` decides
which ``alc_dask`` is imported).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_weighted_nearest.py --rows 3e4 3e5 1e6 --queries 2000 --before /tmp/before
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CATEGORICAL, CONTINUOUS = 9, 5


def seconds(rows: int, queries: int) -> float:
    """One call of the kernel of the ``alc_dask`` imported, after a small call that compiles or loads it."""
    from alc_dask.neighbors.weighted import _nearest

    rng = np.random.default_rng(0)
    codes = rng.integers(0, 8, (CATEGORICAL, rows)).astype(np.int16)
    places = rng.random((CONTINUOUS, rows))
    query_codes, costs, query_places = rng.integers(0, 8, (queries, CATEGORICAL)), rng.random((queries, CATEGORICAL)), rng.random((queries, CONTINUOUS))
    exclude, found = np.full(queries, -1), np.empty(queries, dtype=np.int64)
    _nearest(query_codes[:8], costs[:8], query_places[:8], codes[:, :1000], places[:, :1000], exclude[:8], 0, found[:8])
    started = time.perf_counter()
    _nearest(query_codes, costs, query_places, codes, places, exclude, 0, found)
    return time.perf_counter() - started


def in_process(checkout: Path, rows: int, queries: int) -> float:
    """``seconds`` of ``checkout``'s kernel, in a new process."""
    command = [sys.executable, "-P", __file__, "--rows", str(rows), "--queries", str(queries), "--one"]
    out = subprocess.run(command, env={**os.environ, "PYTHONPATH": str(checkout)}, capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", type=float, default=[3e4, 3e5, 1e6])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--before", type=Path, help="another checkout's kernel beside this one")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(seconds(int(args.rows[0]), args.queries))
        return
    sides = {"after": ROOT} | ({"before": args.before} if args.before else {})
    for rows in map(int, args.rows):
        times = {side: [] for side in sides}
        for _ in range(args.runs):
            for side, checkout in sides.items():
                times[side].append(in_process(checkout, rows, args.queries))
        line = "  ".join(f"{side} {min(t):6.2f} s ({1e9 * min(t) / (rows * args.queries):.2f} ns a row and query)" for side, t in times.items())
        ratio = f"  before / after {min(times['before']) / min(times['after']):.2f}x" if args.before else ""
        print(f"{rows:>9} rows x {args.queries} queries: {line}{ratio}", flush=True)


if __name__ == "__main__":
    main()
