"""Benchmark of the Gower kernel's first use: Numba's compilation without its on-disk cache.

Run from the project root:  PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_compile.py
A fresh worker or a clean clone has no cache of the compiled kernel and compiles it on the first
block it searches. Each kernel and code type is compiled in a fresh process with an empty
NUMBA_CACHE_DIR, before (the alc_dask of git revision --before, main by default, exported to a
temporary folder) and after (this tree) taking turns; the figure is the best of --rounds. It prints
a Markdown table (the figures of benchmarks/RESULTS-search.md).
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
KERNELS = ("best match", "k nearest")
CODE_TYPES = ("int8", "int16", "int32")


def compile_run(kernel: str, code_type: str) -> dict:
    """Seconds of the first call of one kernel on a one-row block of `code_type` codes, in this
    process (the alc_dask on the path is the one timed)."""
    import alc_dask
    from alc_dask.neighbors import kernel as kernels

    queries = (np.zeros((2, 1), np.int32), np.zeros((2, 1)), np.zeros((2, 1)), np.ones((2, 1)), np.ones((2, 1)))
    block = (np.zeros((1, 5), code_type), np.zeros((1, 5)), np.array([0]), np.array([0]))
    start = time.perf_counter()
    if kernel == "best match":
        kernels.best_match_histograms(*queries, *block, np.zeros(5, np.int32), 3)
    else:
        kernels.k_nearest_rows(*queries, *block, 2, 0)
    return {"seconds": time.perf_counter() - start, "alc_dask": alc_dask.__file__}


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
        for kernel in KERNELS:
            for code_type in CODE_TYPES:
                seconds = dict.fromkeys(trees, np.inf)
                for _ in range(args.rounds):
                    for version, tree in trees.items():
                        result = _run_self(kernel, code_type, tree)
                        assert result["alc_dask"].startswith(tree), f"{version} imported {result['alc_dask']}"
                        seconds[version] = min(seconds[version], result["seconds"])
                print(f"| {kernel} | {code_type} | {seconds['before']:.1f} | {seconds['after']:.1f} | {seconds['before'] / seconds['after']:.1f}x |")
    print(f"\nLoad average after: {_load()} (other processes on the machine slow every figure)")


def _load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
