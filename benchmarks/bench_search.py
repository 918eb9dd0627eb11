"""Benchmark of the nearest-row search: kernel throughput against peers, and scaling with rows.

Run from the project root:  .venv/bin/python benchmarks/bench_search.py
It prints Markdown tables (the figures of benchmarks/RESULTS-search.md). The kernel is timed before
(the alc_dask of git revision --before, main by default, exported to a temporary folder) and after
(this tree), each in fresh processes taking turns. The Anonymeter peer needs
its own environment (it pins numpy < 1.27); the script creates it on first use with
    python3 -m venv bench-envs/anonymeter && bench-envs/anonymeter/bin/pip install anonymeter
or skips it with --no-anonymeter.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
ANONYMETER_ENV = ROOT / "bench-envs" / "anonymeter"
SEED = 2024


# --- data --------------------------------------------------------------------------------------


def encoded_table(seed: int, n_rows: int, n_cat: int, n_cont: int, name: str = "anonymized"):
    """Random encoded rows: `n_cat` categorical columns of 8 codes plus the secret (5 codes) and
    `n_cont` continuous columns on a 1/1000 grid of [0, 1] (spanning it, so min/max are 0 and 1).
    Codes are int8, as `EncodedTable.build` (so `Release.load`) stores codes that fit."""
    from alc_dask.data import EncodedTable

    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 8, (n_cat + 1, n_rows), dtype=np.int8)
    codes[n_cat] %= 5
    values = rng.integers(0, 1001, (n_cont, n_rows)).astype(np.float64) / 1000
    values[:, 0], values[:, 1 % n_rows] = 0.0, 1.0
    return EncodedTable(
        name, tuple(f"c{i}" for i in range(n_cat)) + ("secret",), tuple(f"x{j}" for j in range(n_cont)), codes, values, np.zeros(n_cont), np.ones(n_cont)
    )


def as_frame(table, known_cat, known_cont) -> pd.DataFrame:
    """The encoded table as the mixed-type DataFrame the peers take (text categories, numbers)."""
    frame = {c: pd.Series(table.codes[i]).map(lambda v: f"v{v}").astype(object) for i, c in enumerate(table.categorical) if c in known_cat}
    frame |= {c: table.values[j] for j, c in enumerate(table.continuous) if c in known_cont}
    return pd.DataFrame(frame)


# --- throughput --------------------------------------------------------------------------------


KERNEL_CASES = (
    ("mixed", 7, 7, "best match"),
    ("mixed", 7, 7, "1 nearest"),
    ("all continuous", 0, 14, "best match"),
    ("all categorical", 14, 0, "best match"),
)
"""Table, categorical and continuous known columns, and search of each kernel timing."""


def kernel_run(n_cat: int, n_cont: int, search: str, n_rows: int = 30_000, n_queries: int = 500) -> dict:
    """Best of 5 timings of one search of every query on one core (query layout and kernel), in
    this process: the alc_dask on the path is the one timed."""
    import numba

    import alc_dask
    from alc_dask.data import CodeTable, Column, ColumnKind
    from alc_dask.neighbors.best_match import best_matches
    from alc_dask.neighbors.nearest import k_nearest

    numba.set_num_threads(1)
    table = encoded_table(SEED, n_rows, n_cat, n_cont)
    queries = encoded_table(SEED + 1, n_queries, n_cat, n_cont, name="queries")
    known = list(table.categorical[:-1] + table.continuous)
    secret = Column("secret", ColumnKind.CATEGORICAL, codes=CodeTable(np.arange(5)))
    if search == "best match":
        run = lambda batch: best_matches(batch, [table], secret, known)  # noqa: E731
    else:
        run = lambda batch: k_nearest(batch, table, known, 1)  # noqa: E731
    run(queries.rows(slice(0, 2)))  # compile
    wall, cpu = zip(*(_timed_both(lambda: run(queries)) for _ in range(5)), strict=True)
    return {"seconds": min(wall), "cpu": min(cpu), "cells": n_queries * n_rows * len(known), "alc_dask": alc_dask.__file__}


def kernel_rates(before: str, rounds: int) -> dict:
    """Cells per second of each `KERNEL_CASES` before (git revision `before`) and after (this tree),
    the best of `rounds` fresh processes each, before and after taking turns."""
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", before, "alc_dask"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        trees = {"before": folder, "after": str(ROOT)}
        seconds = {}  # (case, version, clock): the best of the rounds
        for case in KERNEL_CASES:
            _, n_cat, n_cont, search = case
            for _ in range(rounds):
                for version, tree in trees.items():
                    result = _run_self("--kernel-run", str(n_cat), str(n_cont), search, pythonpath=tree)
                    assert result["alc_dask"].startswith(tree), f"{version} imported {result['alc_dask']}"
                    for clock in ("seconds", "cpu"):
                        seconds[case, version, clock] = min(seconds.get((case, version, clock), np.inf), result[clock])
    cells = {case: 500 * 30_000 * (case[1] + case[2]) for case in KERNEL_CASES}
    return {(case, version, clock): cells[case] / t for (case, version, clock), t in seconds.items()}


def throughput(before: str, rounds: int, gower_queries: int, anonymeter: bool):
    revision = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", before], check=True, capture_output=True, text=True).stdout.strip()
    rates = kernel_rates(before, rounds)
    print(f"\n### Kernel throughput before ({before} = {revision}) and after: 30000 anonymized rows, 500 queries, one core\n")
    print("Cells per second of wall time, and per CPU second of the timing thread (what one core did, whatever else the machine ran).\n")
    print(
        "| table | known columns (categorical + continuous) | search | before cells/s | after cells/s | speed-up | before per CPU s | after per CPU s | speed-up |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for case in KERNEL_CASES:
        name, n_cat, n_cont, search = case
        (old, new), (old_cpu, new_cpu) = ((rates[case, "before", c], rates[case, "after", c]) for c in ("seconds", "cpu"))
        print(
            f"| {name} | {n_cat} + {n_cont} | {search} | {old:.3g} | {new:.3g} | {new / old:.1f}x | {old_cpu:.3g} | {new_cpu:.3g} | {new_cpu / old_cpu:.1f}x |"
        )

    table = encoded_table(SEED, 30_000, 7, 7)
    queries = encoded_table(SEED + 1, 500, 7, 7, name="queries")
    known = list(table.categorical[:-1] + table.continuous)
    import gower

    frame, query_frame = as_frame(table, known, known), as_frame(queries, known, known)
    cat_features = [c in table.categorical for c in frame.columns]
    some = query_frame.head(gower_queries)
    seconds = _timed(lambda: [gower.gower_matrix(some.iloc[[i]], frame, cat_features=cat_features) for i in range(len(some))])
    best, nearest = rates[KERNEL_CASES[0], "after", "seconds"], rates[KERNEL_CASES[1], "after", "seconds"]
    rows = [("gower.gower_matrix", gower_queries, seconds, gower_queries * 30_000 * len(known) / seconds, best)]
    if anonymeter:
        result = run_anonymeter(query_frame, frame)
        rate = result["queries"] * 30_000 * len(known) / result["seconds"]
        rows.append(("anonymeter MixedTypeKNeighbors (n_jobs=1)", result["queries"], result["seconds"], rate, nearest))
    print("\n### Peers on the mixed table (7 + 7 known columns), one core\n")
    print("| search | queries timed | seconds | cells/s | alc_dask after (same search) speed-up |")
    print("|---|---|---|---|---|")
    for name, timed_queries, seconds, rate, ours in rows:
        print(f"| {name} | {timed_queries} | {seconds:.3f} | {rate:.3g} | {ours / rate:.0f}x |")


def run_anonymeter(queries: pd.DataFrame, candidates: pd.DataFrame) -> dict:
    python = ANONYMETER_ENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(ANONYMETER_ENV)], check=True)
        subprocess.run([str(ANONYMETER_ENV / "bin" / "pip"), "install", "--quiet", "anonymeter"], check=True)
    with tempfile.TemporaryDirectory() as folder:
        queries.to_parquet(Path(folder) / "queries.parquet")
        candidates.to_parquet(Path(folder) / "candidates.parquet")
        env = {**os.environ, "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        out = subprocess.run(
            [str(python), str(Path(__file__).with_name("peer_anonymeter.py")), f"{folder}/queries.parquet", f"{folder}/candidates.parquet"],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        )
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- preparing a release ----------------------------------------------------------------------


def release_frame(seed: int, n_rows: int, n_text: int, n_numbers: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = {f"t{i}": pd.Series(rng.integers(0, 8, n_rows)).map(lambda v: f"value {v}") for i in range(n_text)}
    frame |= {f"n{j}": rng.random(n_rows) for j in range(n_numbers)}
    return pd.DataFrame(frame)


def prepare(row_counts, n_text: int, n_numbers: int):
    print(f"\n### Preparing a release: `Release.load` of an original and an anonymized Parquet table, {n_text} text + {n_numbers} numeric columns each\n")
    print("| rows per table | seconds | peak memory (MiB) |")
    print("|---|---|---|")
    for n_rows in row_counts:
        with tempfile.TemporaryDirectory() as folder:
            for seed, name in enumerate(("original", "anonymized")):
                release_frame(seed, n_rows, n_text, n_numbers).to_parquet(Path(folder) / f"{name}.parquet")
            result = _run_self("--prepare-run", folder)
        print(f"| {n_rows:.0e} | {result['seconds']:.2f} | {result['peak_mib']:.0f} |")


def prepare_run(folder: str) -> dict:
    from alc_dask import Release

    start = time.perf_counter()
    Release.load(f"{folder}/original.parquet", [f"{folder}/anonymized.parquet"])
    return {"seconds": time.perf_counter() - start, "peak_mib": _peak_mib()}


# --- scaling -----------------------------------------------------------------------------------


def scaling_run(n_rows: int, n_queries: int, n_cat: int, n_cont: int, workers: int, rows_per_partition: int) -> dict:
    """One measurement, in a fresh process so that peak memory is this run's own.

    workers = 0: in process, one thread. workers >= 1: a local Dask cluster of that many
    single-threaded worker processes; each worker generates its own partitions.
    """
    import dask

    from alc_dask.data import CodeTable, Column, ColumnKind
    from alc_dask.data.partitioned import PartitionedTable
    from alc_dask.neighbors.best_match import best_matches

    template = encoded_table(0, 2, n_cat, n_cont)
    queries = encoded_table(SEED + 1, n_queries, n_cat, n_cont, name="queries")
    known = list(template.categorical[:-1] + template.continuous)
    secret = Column("secret", ColumnKind.CATEGORICAL, codes=CodeTable(np.arange(5)))
    sizes = [min(rows_per_partition, n_rows - s) for s in range(0, n_rows, rows_per_partition)]

    starts = tuple(range(0, n_rows, rows_per_partition))

    def partitioned(blocks):
        first = starts[: len(blocks)]
        return PartitionedTable("anonymized", template.categorical, template.continuous, template.value_min, template.value_max, n_rows, first, tuple(blocks))

    with dask.config.set(scheduler="synchronous"):  # compile and import in this process
        best_matches(queries.rows(slice(0, 2)), [partitioned([template])], secret, known)

    if workers == 0:
        blocks = [encoded_table(SEED + i, size, n_cat, n_cont) for i, size in enumerate(sizes)]
        with dask.config.set(scheduler="synchronous"):
            start, cpu = time.perf_counter(), _cpu_seconds()
            best_matches(queries, [partitioned(blocks)], secret, known)
            seconds, cpu = time.perf_counter() - start, _cpu_seconds() - cpu
        return {"seconds": seconds, "cpu": cpu, "peak_mib": _peak_mib()}

    from distributed import Client, LocalCluster, get_task_stream, wait

    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0", memory_limit="10GiB"
        ) as cluster,
        Client(cluster) as client,
    ):
        client.run(lambda: best_matches(queries.rows(slice(0, 2)), [template], secret, known))
        blocks = client.persist([dask.delayed(encoded_table)(SEED + i, size, n_cat, n_cont) for i, size in enumerate(sizes)])
        wait(blocks)
        cpu = client.run(_cpu_seconds)
        with get_task_stream(client) as stream:
            start = time.perf_counter()
            best_matches(queries, [partitioned(blocks)], secret, known)
            seconds = time.perf_counter() - start
        cpu = sum(client.run(_cpu_seconds).values()) - sum(cpu.values())
        worker_peaks = client.run(_peak_mib)
    busy = {}
    for task in stream.data:
        computing = sum(s["stop"] - s["start"] for s in task["startstops"] if s["action"] == "compute")
        busy[task["worker"]] = busy.get(task["worker"], 0.0) + computing
    return {"seconds": seconds, "cpu": cpu, "peak_mib": _peak_mib() + sum(worker_peaks.values()), "busy": sorted(busy.values())}


def scaling(row_counts, n_queries, n_cat, n_cont, rows_per_partition, worker_rows, worker_counts):
    runs = [(n, 0) for n in row_counts] + [(worker_rows, w) for w in worker_counts]
    results = {}
    for n_rows, workers in runs:
        results[n_rows, workers] = _run_self(
            "--scaling-run",
            str(n_rows),
            str(workers),
            "--queries",
            str(n_queries),
            "--categorical",
            str(n_cat),
            "--continuous",
            str(n_cont),
            "--rows-per-partition",
            str(rows_per_partition),
        )
    known = n_cat + n_cont
    print(f"\n### Scaling: {n_queries} queries x {known} known columns ({n_cat} categorical, {n_cont} continuous), partitions of {rows_per_partition} rows\n")
    single = results[row_counts[-1], 0]
    single_rate, single_cpu_rate = (n_queries * row_counts[-1] * known / single[key] for key in ("seconds", "cpu"))
    print(
        "| anonymized rows | where | seconds | seconds per 1e6 rows | cells/s | cells/s per core | of the 1-thread rate "
        "| cells per CPU second | of the 1-thread rate | peak memory (MiB) | kernel seconds per worker |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (n_rows, workers), r in results.items():
        where = "in process, 1 thread" if workers == 0 else f"LocalCluster, {workers} worker(s) x 1 thread"
        busy = " / ".join(f"{b:.1f}" for b in r.get("busy", [])) or "-"
        cells = n_queries * n_rows * known
        per_core, per_cpu = cells / r["seconds"] / max(workers, 1), cells / r["cpu"]
        print(
            f"| {n_rows:.0e} | {where} | {r['seconds']:.2f} | {r['seconds'] / n_rows * 1e6:.3f} | {cells / r['seconds']:.3g} | {per_core:.3g} | "
            f"{per_core / single_rate:.0%} | {per_cpu:.3g} | {per_cpu / single_cpu_rate:.0%} | {r['peak_mib']:.0f} | {busy} |"
        )
    print(f"\nThe 1-thread rate: in process on {row_counts[-1]:.0e} rows, {single_rate:.3g} cells/s, {single_cpu_rate:.3g} cells per CPU second.")
    if 1 in worker_counts and 2 in worker_counts:
        one, two = results[worker_rows, 1]["seconds"], results[worker_rows, 2]["seconds"]
        print(f"\nSpeed-up from 1 to 2 Dask workers on {worker_rows:.0e} rows: {one / two:.2f}x")


def _run_self(*arguments: str, pythonpath: str = str(ROOT)) -> dict:
    """Run one measurement of this script in a fresh process, with the alc_dask of `pythonpath`,
    and read its JSON line."""
    env = {**os.environ, "PYTHONPATH": pythonpath}
    out = subprocess.run([sys.executable, __file__, *arguments], check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _timed(work) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def _timed_both(work) -> tuple[float, float]:
    """Wall seconds and this thread's CPU seconds of `work`."""
    start, cpu = time.perf_counter(), time.thread_time()
    work()
    return time.perf_counter() - start, time.thread_time() - cpu


def _cpu_seconds() -> float:
    """CPU seconds this process has used (every thread): a core's work, whatever else the machine runs."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000, 10_000_000], help="anonymized rows of the scaling runs")
    parser.add_argument("--queries", type=int, default=1000, help="queries of the scaling runs")
    parser.add_argument("--categorical", type=int, default=10, help="known categorical columns (scaling)")
    parser.add_argument("--continuous", type=int, default=10, help="known continuous columns (scaling)")
    parser.add_argument("--rows-per-partition", type=int, default=250_000)
    parser.add_argument("--worker-rows", type=int, default=10_000_000, help="rows of the cluster runs")
    parser.add_argument("--worker-counts", type=int, nargs="+", default=[1, 2], help="workers of the cluster runs")
    parser.add_argument("--before", default="main", help="git revision whose kernel is timed as 'before'")
    parser.add_argument("--rounds", type=int, default=2, help="fresh processes per kernel timing, before and after taking turns")
    parser.add_argument("--gower-queries", type=int, default=50, help="queries timed for the gower package")
    parser.add_argument("--no-anonymeter", action="store_true", help="skip the Anonymeter peer")
    parser.add_argument("--no-throughput", action="store_true", help="skip the kernel and peers' throughput")
    parser.add_argument("--no-scaling", action="store_true", help="skip the scaling runs")
    parser.add_argument("--prepare-rows", type=int, nargs="*", default=[1_000_000], help="rows per table when timing Release.load (none: skip)")
    parser.add_argument("--scaling-run", type=int, nargs=2, metavar=("ROWS", "WORKERS"), help=argparse.SUPPRESS)
    parser.add_argument("--prepare-run", metavar="FOLDER", help=argparse.SUPPRESS)
    parser.add_argument("--kernel-run", nargs=3, metavar=("CATEGORICAL", "CONTINUOUS", "SEARCH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.kernel_run:
        n_cat, n_cont, search = args.kernel_run
        print(json.dumps(kernel_run(int(n_cat), int(n_cont), search)))
        return
    if args.prepare_run:
        print(json.dumps(prepare_run(args.prepare_run)))
        return
    if args.scaling_run:
        n_rows, workers = args.scaling_run
        print(json.dumps(scaling_run(n_rows, args.queries, args.categorical, args.continuous, workers, args.rows_per_partition)))
        return
    print(f"# Search benchmark ({os.cpu_count()} cores; command: python benchmarks/bench_search.py {' '.join(sys.argv[1:])})")
    print(f"\nLoad average before: {_load()}")
    if not args.no_throughput:
        throughput(args.before, args.rounds, args.gower_queries, not args.no_anonymeter)
    if not args.no_scaling:
        scaling(args.rows, args.queries, args.categorical, args.continuous, args.rows_per_partition, args.worker_rows, args.worker_counts)
    if args.prepare_rows:
        prepare(args.prepare_rows, 10, 10)
    print(f"\nLoad average after: {_load()} (other processes on the machine slow every figure)")


def _load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
