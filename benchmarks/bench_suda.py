"""Special uniques (SUDA) at scale, and beside a peer.

--scale ROWS: an original, a release (a fresh sample) and a control table of ROWS rows each and 10
Zipf-skewed categorical key variables (2 to 100 values), kept in blocks on a LocalCluster of
--workers single-threaded workers; the MSU search (up to size 3) of the original alone, then the
whole special_uniques evaluation (three tables): wall time and the peak memory of every process;
--malloc distributed starts the workers with distributed's MALLOC_TRIM_THRESHOLD_ (alc_dask's
local cluster leaves it out: docs/concepts/disclosure-at-scale.md).
--peer ROWS...: one table of ROWS rows of the same key variables, MSUs up to size 3 found in this
process by alc_dask and by the PyPI package `suda` 0.2.2 (in its own virtual environment,
bench-envs/suda, created on first use), one core each: time, peak memory, and whether both find
the same special uniques (the records with an MSU, and the size of each one's smallest).

    .venv/bin/python benchmarks/bench_suda.py --scale 1000000 --workers 2 --peer 1000 10000 100000
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

CARDINALITIES = (2, 3, 5, 7, 10, 12, 20, 30, 50, 100)
KEYS = tuple(f"k{i}" for i in range(len(CARDINALITIES)))
BLOCK_ROWS = 125_000
PEER_ENV = Path("bench-envs/suda")
PEER_PROGRAM = """
import json, resource, sys, time
import pandas as pd
from suda import suda
frame = pd.read_parquet(sys.argv[1])
started = time.perf_counter()
result = suda(frame, max_msu=3, dis=0.01)
seconds = time.perf_counter() - started
json.dump({"seconds": seconds, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "msu": result["msu"].astype(float).tolist()}, sys.stdout)
"""


def people(rows: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({k: ((rng.zipf(1.6, rows) - 1) % c).astype(np.int32) for k, c in zip(KEYS, CARDINALITIES)})


def _peak_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def scale(rows: int, workers: int, malloc: str = "alc_dask") -> dict:
    import dask
    from distributed import Client, LocalCluster

    from alc_dask.data import Release
    from alc_dask.data.partitioned import partition
    from alc_dask.engine.worker_server import WORKER_ENVIRONMENT
    from alc_dask.families.special_uniques.family import SpecialUniques
    from alc_dask.families.special_uniques.keys import KeySpace
    from alc_dask.families.special_uniques.search import counts_of, summary_of
    from alc_dask.measure.suda import msu_weights

    started = time.perf_counter()
    release = Release.load(people(rows, 1), [people(rows, 2)], people(rows, 3), columns=dict.fromkeys(KEYS, "categorical"))
    loaded = time.perf_counter()
    space = KeySpace(KEYS, tuple(release.columns[k].codes.n_codes for k in KEYS), 3)
    in_process = partition(release, BLOCK_ROWS).original
    begun = time.perf_counter()
    with dask.config.set(scheduler="synchronous"):
        dask.compute(summary_of(in_process, space, counts_of(in_process, space), msu_weights(len(KEYS), 3), 10))
    one_core = time.perf_counter() - begun
    with (
        dask.config.set(WORKER_ENVIRONMENT if malloc == "alc_dask" else {}),
        LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None, memory_limit="8GiB") as cluster,
        Client(cluster) as client,
    ):
        parts = partition(release, BLOCK_ROWS, client=client)
        client.run(lambda: None)
        begun = time.perf_counter()
        counts = counts_of(parts.original, space)
        summary = dask.compute(summary_of(parts.original, space, counts, msu_weights(len(KEYS), 3), 10))[0]
        searched = time.perf_counter()
        measures = SpecialUniques({"max_size": 3}).evaluate(parts, 0).measures
        evaluated = time.perf_counter()
        workers_peak = client.run(_peak_mib)
    return {
        "rows": rows,
        "workers": workers,
        "workers' malloc": malloc,
        "blocks per table": -(-rows // BLOCK_ROWS),
        "load seconds (client)": round(loaded - started, 1),
        "MSU search of the original, one process (s)": round(one_core, 1),
        "MSU search of the original, cluster (s)": round(searched - begun, 1),
        "whole evaluation, 3 tables (s)": round(evaluated - searched, 1),
        "special uniques in the original": summary.n_special,
        "MSUs by size": summary.msus_by_size.tolist(),
        "replicated_risk": round(measures["replicated_risk"], 4),
        "worker peak MiB": [round(v) for v in workers_peak.values()],
        "client peak MiB": round(_peak_mib()),
    }


def _ours(frame: pd.DataFrame) -> tuple[float, np.ndarray]:
    """Seconds to find every record's MSUs up to size 3 in this process, and each record's smallest MSU size (0: none)."""
    from alc_dask.data import EncodedTable
    from alc_dask.families.special_uniques.keys import KeySpace
    from alc_dask.families.special_uniques.search import block_counts, block_msus

    table = EncodedTable.build("t", {k: frame[k].to_numpy() for k in KEYS}, {})
    space = KeySpace(KEYS, CARDINALITIES, 3)
    started = time.perf_counter()
    minimal, _ = block_msus(table, space, block_counts(table, space))
    seconds = time.perf_counter() - started
    sizes = np.array([len(s) for s in space.subsets])[:, None]
    smallest = np.where(minimal, sizes, 99).min(axis=0)
    return seconds, np.where(smallest == 99, 0, smallest)


def peer(rows: int) -> dict:
    if not (PEER_ENV / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(PEER_ENV)], check=True)
        subprocess.run([str(PEER_ENV / "bin" / "pip"), "install", "-q", "suda==0.2.2", "pyarrow"], check=True)
    frame = people(rows, 11)
    seconds, smallest = _ours(frame)
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "table.parquet"
        frame.to_parquet(path)
        ran = subprocess.run([str(PEER_ENV / "bin" / "python"), "-c", PEER_PROGRAM, str(path)], capture_output=True, text=True, check=True)
    theirs = json.loads(ran.stdout)
    their_smallest = np.asarray(theirs["msu"], dtype=float).astype(int)
    return {
        "rows": rows,
        "alc_dask (s)": round(seconds, 3),
        "suda 0.2.2 (s)": round(theirs["seconds"], 3),
        "ratio": round(theirs["seconds"] / seconds, 1),
        "suda peak MiB": round(theirs["peak_mib"]),
        "special uniques": int((smallest > 0).sum()),
        "same special uniques and smallest MSU sizes": bool(np.array_equal(smallest, their_smallest)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, nargs="*", default=[])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--peer", type=float, nargs="*", default=[])
    parser.add_argument(
        "--malloc", choices=("alc_dask", "distributed"), default="alc_dask", help="workers without MALLOC_TRIM_THRESHOLD_ (alc_dask's) or with it"
    )
    args = parser.parse_args()
    from alc_dask.report.render import markdown_table

    if args.peer:
        print(markdown_table(pd.DataFrame([peer(int(rows)) for rows in args.peer])), flush=True)
    for rows in args.scale:
        print(json.dumps(scale(int(rows), args.workers, args.malloc)), flush=True)


if __name__ == "__main__":
    main()
