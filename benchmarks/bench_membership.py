"""Membership inference benchmark: the paper's adult release, and scores at scale on a cluster.

Part 1 (``--adult``, needs ../shared/data): adult's original split into members (the first 24 000
rows) and a control (the last 6 000, never released); the weak and strong releases cut to the
members' rows (each row of a release is its original row with a share of values swapped). Both
attacks, every member and non-member scored; precision per skew printed as a table.

Part 2 (``--scale``): a release of --rows people (synthetic population, 20% of values swapped),
kept on the workers in parts; --members members sampled from it and --non-members other people
scored by both attacks on a LocalCluster of each --workers count (single-threaded workers). Prints
wall time per evaluation and every worker's peak memory.

    .venv/bin/python benchmarks/bench_membership.py --adult --scale --rows 1000000 --workers 1 2
"""

import argparse
import json
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

ADULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "alc-paper" / "adult"
MEMBERS = 24_000
CHUNK = 250_000


def adult_table() -> pd.DataFrame:
    from alc_dask.data import Release
    from alc_dask.families.membership.family import Membership

    original = pd.read_parquet(ADULT / "original.parquet")
    members, control = original.iloc[:MEMBERS].reset_index(drop=True), original.iloc[MEMBERS:].reset_index(drop=True)
    rows = []
    for level in ("weak", "strong"):
        released = pd.read_parquet(ADULT / f"{level}.parquet").iloc[:MEMBERS].reset_index(drop=True)
        same = (released.astype(str).to_numpy() == members.astype(str).to_numpy()).mean()
        release = Release.load(members, [released], control=control)
        for attack in ("closest_distance", "distance_ratio"):
            started = time.perf_counter()
            measures = Membership(attack=attack, n_members=MEMBERS, n_non_members=len(control)).evaluate(release, seed=0).measures
            seconds = time.perf_counter() - started
            for at in measures["precision_at_skews"]:
                rows.append(
                    {
                        "release": f"{level} ({same:.0%} of cells unchanged)",
                        "attack": attack,
                        "auc": measures["auc"],
                        "skew": at["skew"],
                        "all-member": at["baseline"],
                        "best precision": at["precision"],
                        "low": at["precision_low"],
                        "recall": at["recall"],
                        "above baseline": at["above_baseline"],
                        "ALC": at["alc"],
                        "seconds": seconds,
                    }
                )
    return pd.DataFrame(rows)


def write_parts(frame: pd.DataFrame, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i, start in enumerate(range(0, len(frame), CHUNK)):
        pq.write_table(pa.Table.from_pandas(frame.iloc[start : start + CHUNK], preserve_index=False), folder / f"part-{i:04d}.parquet")
    (folder / "_done").write_text("")


def scale_data(folder: Path, rows: int, non_members: int) -> None:
    from alc_dask.anonymize import swap_frame
    from alc_dask.apps.synthetic import make_population

    if (folder / "control" / "_done").exists():
        return
    original = make_population(rows, seed=1)
    write_parts(original, folder / "original")
    write_parts(swap_frame(original, 0.2, seed=2), folder / "anonymized")
    write_parts(make_population(non_members, seed=3), folder / "control")


def peak_mib() -> float:
    """This process's peak resident memory (VmHWM: a worker's own, not inherited from its parent)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def scale_run(folder: Path, members: int, workers: int) -> dict:
    from distributed import Client, LocalCluster

    from alc_dask import run_job
    from alc_dask.jobs import validate_job

    job = validate_job(
        {
            "name": "membership-scale",
            "release": {
                "original": str(folder / "original"),
                "anonymized": [str(folder / "anonymized")],
                "control": str(folder / "control"),
                "broadcast_limit": 0,
            },
            "scenarios": [{"family": "membership", "attack": a, "n_members": members, "n_non_members": 10**9} for a in ("closest_distance", "distance_ratio")],
            "output": str(folder / f"out-{workers}-{time.time_ns()}"),
        },
        "the benchmark's job",
    )
    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None, memory_limit="8GiB") as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        started = time.perf_counter()
        scores = run_job(job, client=client, progress=False)
        wall = time.perf_counter() - started
        peaks = client.run(peak_mib)
    return {
        "workers": workers,
        "failed": int((scores["status"] != "ok").sum()),
        "wall_seconds": round(wall, 1),
        "evaluation_seconds": dict(zip(scores["attack"], scores["elapsed_seconds"].round(1))),
        "auc": dict(zip(scores["attack"], scores["auc"].round(4))),
        "n_members": scores["n_members"].tolist(),
        "n_non_members": scores["n_non_members"].tolist(),
        "worker_peak_mib": {address.rsplit(":", 1)[-1]: round(peak) for address, peak in peaks.items()},
        "client_peak_mib": round(peak_mib()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--adult", action="store_true")
    parser.add_argument("--scale", action="store_true")
    parser.add_argument("--rows", type=float, default=1e6)
    parser.add_argument("--members", type=int, default=30_000)
    parser.add_argument("--non-members", type=int, default=10_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[2])
    parser.add_argument("--data", type=Path, default=Path("bench-data/membership"))
    args = parser.parse_args()
    if args.adult:
        table = adult_table()
        with pd.option_context("display.width", 200, "display.max_columns", 20):
            print(table.round(4).to_string(index=False), flush=True)
    if args.scale:
        folder = args.data / f"{int(args.rows)}-{args.non_members}"
        started = time.perf_counter()
        scale_data(folder, int(args.rows), args.non_members)
        print(f"data ready in {time.perf_counter() - started:.0f}s", flush=True)
        for workers in args.workers:
            print(json.dumps(scale_run(folder, args.members, workers)), flush=True)
    if not (args.adult or args.scale):
        parser.error("give --adult, --scale or both")


if __name__ == "__main__":
    main()
