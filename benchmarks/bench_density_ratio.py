"""density_ratio's cost beside closest_distance's, and its scaling with the release's rows.

For each --rows (default 1e4, 1e5, 1e6): a synthetic population of that many people released with
20% of every column's values swapped, kept on the workers in parts (``broadcast_limit: 0``); up to
--members members sampled from it and the --non-members people of a control table scored. Each
attack runs as a job of its own on one LocalCluster of --workers single-threaded workers (so no
attack reuses another's search): ``closest_distance``, ``density_ratio`` with its default k-nearest
density (k = 1: the release's search is closest_distance's), with k = 5 (a search of its own), and
with the mixture density. Prints, per run, the evaluation's seconds, the job's wall time and the AUC.

    .venv/bin/python benchmarks/bench_density_ratio.py --rows 1e4 1e5 1e6 --workers 2
"""

import argparse
import json
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

CHUNK = 250_000
ATTACKS = {
    "closest_distance": ("closest_distance", {}),
    "density_ratio knn k=1": ("density_ratio", {}),
    "density_ratio knn k=5": ("density_ratio", {"k": 5}),
    "density_ratio mixture": ("density_ratio", {"density": "mixture"}),
}


def write_parts(frame: pd.DataFrame, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i, start in enumerate(range(0, len(frame), CHUNK)):
        pq.write_table(pa.Table.from_pandas(frame.iloc[start : start + CHUNK], preserve_index=False), folder / f"part-{i:04d}.parquet")
    (folder / "_done").write_text("")


def release_data(folder: Path, rows: int, non_members: int) -> None:
    from alc_dask.anonymize import swap_frame
    from alc_dask.apps.synthetic import make_population

    if (folder / "control" / "_done").exists():
        return
    original = make_population(rows, seed=1)
    write_parts(original, folder / "original")
    write_parts(swap_frame(original, 0.2, seed=2), folder / "anonymized")
    write_parts(make_population(non_members, seed=3), folder / "control")


def run(client, folder: Path, label: str, members: int) -> dict:
    from alc_dask import run_job
    from alc_dask.jobs import validate_job

    attack, params = ATTACKS[label]
    job = validate_job(
        {
            "name": "density-ratio-bench",
            "release": {
                "original": str(folder / "original"),
                "anonymized": [str(folder / "anonymized")],
                "control": str(folder / "control"),
                "broadcast_limit": 0,
            },
            "scenarios": [{"family": "membership", "attack": attack, "attack_params": params, "n_members": members, "n_non_members": 10**9}],
            "output": str(folder / f"out-{time.time_ns()}"),
        }
    )
    started = time.perf_counter()
    scores = run_job(job, client=client, progress=False)
    wall = time.perf_counter() - started
    row = scores.iloc[0]
    return {
        "attack": label,
        "status": row["status"],
        "evaluation_seconds": round(float(row["elapsed_seconds"]), 2),
        "job_seconds": round(wall, 1),
        "auc": round(float(row["auc"]), 4) if row["status"] == "ok" else None,
        "n_members": int(row["n_members"]) if row["status"] == "ok" else None,
        "n_non_members": int(row["n_non_members"]) if row["status"] == "ok" else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=float, nargs="+", default=[1e4, 1e5, 1e6])
    parser.add_argument("--members", type=int, default=10_000)
    parser.add_argument("--non-members", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--attacks", nargs="+", default=list(ATTACKS), choices=list(ATTACKS))
    parser.add_argument("--data", type=Path, default=Path("bench-data/density-ratio"))
    args = parser.parse_args()

    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None, memory_limit="8GiB") as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        for rows in map(int, args.rows):
            folder = args.data / f"{rows}-{args.non_members}"
            started = time.perf_counter()
            release_data(folder, rows, args.non_members)
            print(json.dumps({"rows": rows, "data_seconds": round(time.perf_counter() - started, 1)}), flush=True)
            for label in args.attacks:
                print(json.dumps({"rows": rows, "workers": args.workers, **run(client, folder, label, args.members)}), flush=True)


if __name__ == "__main__":
    main()
