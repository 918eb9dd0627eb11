"""Inference's rarity-weighted nearest-row search alone, in process: seconds for --queries queries
against tables of --rows rows, and nanoseconds per row and query (what a scan of every row would
take per distance). Two kinds of table: ``random`` (9 categorical columns of 8 equally likely codes
and 5 uniform continuous ones, independent: the worst case for a search that skips blocks of alike
rows) and ``check`` (``bench_check.py``'s people, 15 columns; the queries are people of the
original and the table a release with 10% of each column's values swapped). With ``--before DIR`` (a checkout of the project,
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


def tables(kind: str, rows: int, queries: int):
    """The queries and the table, encoded as ``check`` encodes them."""
    from alc_dask.data import EncodedTable

    if kind == "random":
        rng = np.random.default_rng(0)

        def encoded(name, n):
            return EncodedTable.build(name, {f"c{j}": rng.integers(0, 8, n) for j in range(CATEGORICAL)}, {f"x{j}": rng.random(n) for j in range(CONTINUOUS)})

        return encoded("queries", queries), encoded("release", rows)
    from bench_check import wide_population

    from alc_dask.anonymize import swap_frame
    from alc_dask.data import Release

    original = wide_population(rows, 0)
    release = Release.load(original, [swap_frame(original, 0.10, 1)])
    people = np.random.default_rng(1).choice(rows, queries, replace=False)
    return release.original.rows(np.sort(people)), release.anonymized[0]


def seconds(kind: str, rows: int, queries: int) -> tuple[float, float | None]:
    """One search of every column by the ``alc_dask`` imported (after a small one that compiles or
    loads its kernel), and the share of the (row, query) distances it summed where it says."""
    import alc_dask.neighbors.weighted as weighted

    asked, table = tables(kind, rows, queries)
    columns = list(table.columns)
    weights = weighted.RarityWeights.of(table, columns)
    if hasattr(weighted, "WeightedSearch"):
        search = weighted.WeightedSearch.of(table.rows(slice(0, 1000)), columns, weights)
        search.nearest(asked.rows(slice(0, 8)), 0)
        started = time.perf_counter()
        _, read = weighted.WeightedSearch.of(table, columns, weights).nearest_and_read(asked, 0)
        return time.perf_counter() - started, read / (rows * queries)
    weighted.weighted_nearest(asked.rows(slice(0, 8)), table.rows(slice(0, 1000)), columns, weights, 0)
    started = time.perf_counter()
    weighted.weighted_nearest(asked, table, columns, weights, 0)
    return time.perf_counter() - started, None


def in_process(checkout: Path, kind: str, rows: int, queries: int) -> tuple[float, float | None]:
    """``seconds`` of ``checkout``'s search, in a new process."""
    command = [sys.executable, "-P", __file__, "--kind", kind, "--rows", str(rows), "--queries", str(queries), "--one"]
    here = str(Path(__file__).resolve().parent)  # bench_check, whichever checkout is searched
    out = subprocess.run(command, env={**os.environ, "PYTHONPATH": f"{checkout}{os.pathsep}{here}"}, capture_output=True, text=True, check=True).stdout
    taken, read = out.strip().splitlines()[-1].split()
    return float(taken), None if read == "None" else float(read)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", type=float, default=[3e4, 3e5, 1e6])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--kind", nargs="+", choices=["random", "check"], default=["random", "check"])
    parser.add_argument("--before", type=Path, help="another checkout's kernel beside this one")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(*seconds(args.kind[0], int(args.rows[0]), args.queries))
        return
    sides = {"after": ROOT} | ({"before": args.before} if args.before else {})
    for kind in args.kind:
        for rows in map(int, args.rows):
            times, read = {side: [] for side in sides}, {}
            for _ in range(args.runs):
                for side, checkout in sides.items():
                    taken, read[side] = in_process(checkout, kind, rows, args.queries)
                    times[side].append(taken)
            line = "  ".join(
                f"{side} {min(t):6.2f} s ({1e9 * min(t) / (rows * args.queries):.2f} ns a row and query"
                + (f", {read[side]:.1%} of the distances summed)" if read[side] is not None else ")")
                for side, t in times.items()
            )
            ratio = f"  before / after {min(times['before']) / min(times['after']):.2f}x" if args.before else ""
            print(f"{kind:>6} {rows:>9} rows x {args.queries} queries: {line}{ratio}", flush=True)


if __name__ == "__main__":
    main()
