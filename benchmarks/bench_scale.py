"""Scale-out benchmark: a release too large to copy, kept on the workers in parts, attacked by a job.

Generates (once, kept in --data) an anonymized table of --rows rows x 20 columns (16 categorical
with 5 to 20 codes, 4 continuous) as partitioned Parquet, and an original of --original-rows rows
(the targets); then runs a job of --scenarios scenarios on a LocalCluster of --workers
single-threaded workers with --memory-limit each, through the partitioned path. Prints client and
worker peak memory, whether a worker restarted or spilled, time per scenario, and the scan
throughput: attack cells (targets x anonymized rows x known columns) per second per core, in the
scan tasks and over the time scans ran, beside the kernel's single-core figure measured in this
process on one part. --paths copied runs the same job on the release read whole and copied to
every worker, to compare the two paths around the job's broadcast_limit.

    .venv/bin/python benchmarks/bench_scale.py --rows 50000000 --workers 2 --memory-limit 4GiB
    .venv/bin/python benchmarks/bench_scale.py --rows 10000000 --workers 1 2
    .venv/bin/python benchmarks/bench_scale.py --rows 3000000 --workers 2 --paths kept copied
"""

import argparse
import json
import resource
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

N_CATEGORICAL, N_CONTINUOUS = 16, 4
CHUNK = 1_000_000
KNOWN = ["c10", "c11", "c12", "x0"]


def columns_of(rng: np.random.Generator, rows: int) -> dict:
    data = {f"c{i}": rng.integers(0, 5 + i, rows, dtype=np.int16) for i in range(N_CATEGORICAL)}
    data.update({f"x{j}": np.round(rng.normal(50, 10, rows), 2) for j in range(N_CONTINUOUS)})
    return data


def write_table(folder: Path, rows: int, seed: int) -> None:
    """`rows` rows in files of a million, each one row group."""
    if (folder / "_done").exists():
        return
    folder.mkdir(parents=True, exist_ok=True)
    for i, start in enumerate(range(0, rows, CHUNK)):
        rng = np.random.default_rng([seed, i])
        pq.write_table(pa.table(columns_of(rng, min(CHUNK, rows - start))), folder / f"part-{i:05d}.parquet", row_group_size=CHUNK)
    (folder / "_done").write_text("")


def peak_mib() -> float:
    """This process's peak resident memory. VmHWM, not ru_maxrss: a worker inherits the maxrss of the
    process that spawned it (it survives exec), its VmHWM starts from its own address space."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def kernel_single_core(known_columns: int) -> float:
    """Cells/s of the search on one in-process part of a million rows, 50 queries, as a scenario batch searches."""
    from alc_dask.data import Release

    rng = np.random.default_rng(0)
    import pandas as pd

    frame = pd.DataFrame(columns_of(rng, CHUNK))
    release = Release.load(frame.iloc[:1000], [frame])
    queries = release.targets(np.arange(50))
    from alc_dask.neighbors.best_match import best_matches

    secret = release.column("c0")
    best_matches(queries, release.anonymized, secret, KNOWN)
    start = time.perf_counter()
    for _ in range(3):
        best_matches(queries, release.anonymized, secret, KNOWN)
    seconds = (time.perf_counter() - start) / 3
    return 50 * CHUNK * known_columns / seconds


def run(data: Path, rows: int, original_rows: int, workers: int, memory_limit: str, scenarios: int, path: str = "kept") -> dict:
    from distributed import Client, LocalCluster, get_task_stream

    from alc_dask import run_job
    from alc_dask.jobs import JobSpec

    job = JobSpec.model_validate(
        {
            "name": f"scale-{rows}",
            "release": {
                "original": str(data / f"original-{original_rows}"),
                "anonymized": [str(data / f"anonymized-{rows}")],
                "broadcast_limit": 0 if path == "kept" else "1TiB",
            },
            "scenarios": [{"secret": f"c{i}", "known": KNOWN} for i in range(scenarios)],
            "baseline_settings": {"candidates": ["majority", "random_forest"], "trees": 20},
            "halting": {"min_pairs": 50, "check_every": 50},
            "output": str(data / f"out-{rows}-{workers}-{time.time_ns()}"),
        }
    )
    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None, memory_limit=memory_limit) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        addresses = set(client.scheduler_info()["workers"])
        with get_task_stream(client) as stream:
            start = time.perf_counter()
            scores = run_job(job, client=client, progress=False)
            wall = time.perf_counter() - start
        restarted = set(client.scheduler_info()["workers"]) != addresses
        worker_peaks = client.run(peak_mib)
        spilled = client.run(lambda dask_worker: int(getattr(getattr(dask_worker.data, "spilled_total", None), "disk", 0) or 0))
    scans = [t for t in stream.data if t["key"].startswith("search_block")]
    spans = sorted((s["start"], s["stop"]) for t in scans for s in t["startstops"] if s["action"] == "compute")
    busy = sum(stop - start for start, stop in spans)
    covered, end = 0.0, -np.inf
    for start, stop in spans:  # wall time during which at least one scan ran
        covered += max(0.0, stop - max(start, end))
        end = max(end, stop)
    cells = int(scores["pairs"].sum()) * rows * len(KNOWN)
    return {
        "rows": rows,
        "path": path,
        "workers": workers,
        "memory_limit": memory_limit,
        "scenarios": len(scores),
        "failed": int((scores["status"] != "ok").sum()),
        "wall_seconds": wall,
        "seconds_per_scenario": wall / len(scores),
        "scenario_seconds_median": float(scores["elapsed_seconds"].median()),
        "pairs": int(scores["pairs"].sum()),
        "attack_cells": cells,
        "scan_seconds_in_tasks": busy,
        "scan_wall_seconds": covered,
        "cells_per_second_per_core_in_tasks": cells / busy if busy else None,  # None: searched inside the scenarios (copied)
        "cells_per_second_per_core_while_scanning": cells / (covered * workers) if covered else None,
        "client_peak_mib": peak_mib(),  # of this process so far: run --paths kept before copied
        "worker_peak_mib": worker_peaks,
        "worker_restarted": restarted,
        "spilled_to_disk_bytes": spilled,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=float, default=5e7)
    parser.add_argument("--original-rows", type=float, default=2e5)
    parser.add_argument("--workers", type=int, nargs="+", default=[2])
    parser.add_argument("--memory-limit", default="4GiB")
    parser.add_argument("--scenarios", type=int, default=10)
    parser.add_argument("--data", type=Path, default=Path("bench-data/scale"))
    parser.add_argument(
        "--paths", nargs="+", choices=["kept", "copied"], default=["kept"], help="kept on the workers in parts, or read whole and copied to every worker"
    )
    args = parser.parse_args()
    rows, original_rows = int(args.rows), int(args.original_rows)
    started = time.perf_counter()
    write_table(args.data / f"original-{original_rows}", original_rows, seed=1)
    write_table(args.data / f"anonymized-{rows}", rows, seed=2)
    print(f"data ready in {time.perf_counter() - started:.0f}s", flush=True)
    single = kernel_single_core(len(KNOWN))
    print(f"kernel, one core, in process: {single:.3g} cells/s", flush=True)
    for workers, path in ((w, p) for w in args.workers for p in args.paths):
        result = run(args.data, rows, original_rows, workers, args.memory_limit, args.scenarios, path)
        result["kernel_single_core_cells_per_second"] = single
        for measure in ("in_tasks", "while_scanning"):
            rate = result[f"cells_per_second_per_core_{measure}"]
            result[f"share_of_single_core_{measure}"] = rate / single if rate else None
        print(json.dumps(result, indent=1), flush=True)


if __name__ == "__main__":
    main()
