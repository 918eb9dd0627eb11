"""Benchmark of the Numba kernels' first use: their compilation without Numba's on-disk cache.

Run from the project root:  PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_compile.py
A fresh worker or a clean clone has no cache of the compiled kernels and compiles each on its
first call (the Gower kernels per code type, the chains of the relative threat, WP29's draws and
predicate counts, the distinct rows). Each kernel and code type is compiled in a fresh process with an empty
NUMBA_CACHE_DIR, before (the alc_dask of git revision --before, main by default, exported to a
temporary folder) and after (this tree) taking turns; the figure is the best of --rounds. It prints
a Markdown table (the figures of benchmarks/RESULTS-search.md and RESULTS-performance.md); --kernels
picks some.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
NEIGHBOUR_KERNELS = ("best match", "k nearest")
CODE_TYPES = ("int8", "int16", "int32")
OTHER_KERNELS = ("generalized chain", "anatomy chain", "replay conditions", "match up to", "counting orders", "distinct rows")


def compile_run(kernel: str, code_type: str) -> dict:
    """Seconds of the first call of one kernel on tiny inputs (a neighbour kernel: a one-row block of
    `code_type` codes), in this process (the alc_dask on the path is the one timed)."""
    import alc_dask

    call = _neighbour_call(kernel, code_type) if kernel in NEIGHBOUR_KERNELS else _other_call(kernel)
    start = time.perf_counter()
    call()
    return {"seconds": time.perf_counter() - start, "alc_dask": alc_dask.__file__}


def _neighbour_call(kernel: str, code_type: str):
    from alc_dask.neighbors import kernel as kernels

    queries = (np.zeros((2, 1), np.int32), np.zeros((2, 1)), np.zeros((2, 1)), np.ones((2, 1)), np.ones((2, 1)))
    block = (np.zeros((1, 5), code_type), np.zeros((1, 5)), np.array([0]), np.array([0]))
    if kernel == "best match":
        return lambda: kernels.best_match_histograms(*queries, *block, np.zeros(5, np.int32), 3)
    return lambda: kernels.k_nearest_rows(*queries, *block, 2, 0)


def _other_call(kernel: str):
    """The kernel called with the types its caller passes (``run_chain``, ``random_conditions``,
    ``count_matches``, ``distinct_rows``)."""
    if kernel == "generalized chain":
        from alc_dask.families.relative_threat.gibbs_kernels import generalized_chain

        # two attributes of two values; sensitive 0: 40 rows of cells {0, 1} and {2} (37) or {2, 3} (3), 1: one row
        values = _ints(0, 1, 2, 2, 3, 0, 3)
        model = (_ints(0, 2, 4), np.array([40.0, 1.0]), _ints(0, 0, 0, 1, 1), _ints(0, 2, 3, 5, 6), _ints(2, 3, 5, 6, 7), _ints(40, 37, 3, 1, 1), values)
        return lambda: generalized_chain(1, 20, 10, 2, 1.0, 1.0, *model)
    if kernel == "anatomy chain":
        from alc_dask.families.relative_threat.gibbs_kernels import anatomy_chain

        model = (_ints(0, 2, 4), np.array([1.0, 1.0]), _ints(0, 2), _ints(0, 1), np.array([[0, 1], [1, 0]]), _ints(0, 2, 4))
        return lambda: anatomy_chain(1, 20, 10, 2, 1.0, 1.0, *model, 1)
    if kernel == "replay conditions":
        from alc_dask.families.wp29.draws import random_conditions

        return lambda: random_conditions(np.random.default_rng(0), 3, 2, 4, _ints(2, 3, 4), _ints(1, 2, 2))
    if kernel == "distinct rows":
        from alc_dask.neighbors.distinct import distinct_rows

        return lambda: distinct_rows(np.array([[0.0, 1.0, 0.0], [np.nan, 2.0, np.nan]]), 2)
    from alc_dask.families.wp29.predicates import EQ, GE, Predicates, RowMatrix, count_matches

    rows = RowMatrix(("a", "b"), np.array([[0.0, 1.0, 0.5], [np.nan, 2.0, 3.0]]), np.array([True, True]), _ints(0, 1, 2))
    if kernel == "counting orders":
        return lambda: rows.order
    _ = rows.order  # sorted first: only the count is timed
    return lambda: count_matches(Predicates.stack([[(0, EQ, 1.0)], [(0, GE, 0.0), (1, EQ, 2.0)]]), rows)


def _ints(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def _run_self(kernel: str, code_type: str, tree: str) -> dict:
    with tempfile.TemporaryDirectory() as cache:
        env = os.environ | {"PYTHONPATH": tree, "NUMBA_CACHE_DIR": cache}
        command = [sys.executable, __file__, "--compile-run", kernel, code_type]
        output = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="git revision whose kernel is timed as 'before'")
    parser.add_argument("--rounds", type=int, default=1, help="fresh processes per figure, before and after taking turns")
    parser.add_argument("--kernels", nargs="+", choices=NEIGHBOUR_KERNELS + OTHER_KERNELS, default=NEIGHBOUR_KERNELS + OTHER_KERNELS)
    parser.add_argument("--compile-run", nargs=2, metavar=("KERNEL", "CODE_TYPE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compile_run:
        print(json.dumps(compile_run(*args.compile_run)))
        return
    revision = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", args.before], check=True, capture_output=True, text=True).stdout.strip()
    print(f"# Kernel compile benchmark ({os.cpu_count()} cores; command: python benchmarks/bench_compile.py {' '.join(sys.argv[1:])})")
    print(f"\nLoad average before: {_load()}\n")
    print(f"Seconds of the first call without Numba's cache, before ({args.before} = {revision}) and after, best of {args.rounds}.\n")
    print("| kernel | code type | before s | after s | ratio |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before, "alc_dask"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        trees = {"before": folder, "after": str(ROOT)}
        totals = dict.fromkeys(trees, 0.0)
        for kernel in args.kernels:
            for code_type in CODE_TYPES if kernel in NEIGHBOUR_KERNELS else ("-",):
                seconds = dict.fromkeys(trees, np.inf)
                for _ in range(args.rounds):
                    for version, tree in trees.items():
                        result = _run_self(kernel, code_type, tree)
                        assert result["alc_dask"].startswith(tree), f"{version} imported {result['alc_dask']}"
                        seconds[version] = min(seconds[version], result["seconds"])
                totals = {version: totals[version] + seconds[version] for version in trees}
                print(
                    f"| {kernel} | {code_type} | {seconds['before']:.1f} | {seconds['after']:.1f} | {seconds['before'] / seconds['after']:.1f}x |", flush=True
                )
        print(f"| **total** | | {totals['before']:.1f} | {totals['after']:.1f} | {totals['before'] / totals['after']:.1f}x |")
    print(f"\nLoad average after: {_load()} (other processes on the machine slow every figure)")


def _load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
