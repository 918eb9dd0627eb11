"""density_ratio's cost beside closest_distance's, and its scaling with the release's rows.

For each --rows (default 1e4, 1e5, 1e6): a synthetic population of that many people released with
20% of every column's values swapped, kept on the workers in parts (``broadcast_limit: 0``); up to
--members members sampled from it and the --non-members people of a control table scored. Each
attack runs as a job of its own on one LocalCluster of --workers single-threaded workers (so no
attack reuses another's search): ``closest_distance``, ``density_ratio`` with its default k-nearest
density (k = 1: the release's search is closest_distance's), with k = 5 (a search of its own), and
with the mixture density. Prints, per run, the evaluation's seconds, the job's wall time and the AUC.

``--truth N`` first prints every membership attack's AUC (with its interval) and TPR at FPR 1% on
the known-truth releases of ``alc_dask.testing.truth`` (N members, N control rows), in process;
``--generators WORK`` the same on the generators benchmark's releases (its work folder, as
``benchmarks/generators/run.sh`` leaves it: ``DATASET/members.parquet``, ``control.parquet`` and
``releases/*.parquet``; an ``*_overfit`` release with ``members_overfit`` and ``control_overfit``).

    .venv/bin/python benchmarks/bench_density_ratio.py --truth 1000 --rows 1e4 1e5 1e6 --workers 2
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


TRUTH_ATTACKS = {
    "closest_distance": ("closest_distance", {}),
    "distance_ratio": ("distance_ratio", {}),
    **{k: v for k, v in ATTACKS.items() if k != "closest_distance"},
}


def attack_rows(name: str, release) -> list[dict]:
    """Every attack of ``TRUTH_ATTACKS`` on ``release``: AUC, its interval, TPR at FPR 1%."""
    from alc_dask.families.membership.family import Membership
    from alc_dask.measure import Roc

    found = []
    for label, (attack, params) in TRUTH_ATTACKS.items():
        measures = Membership(attack=attack, attack_params=params).evaluate(release, seed=0).measures
        roc = Roc.from_counts(measures["roc_false_positives"], measures["roc_true_positives"], measures["n_members"], measures["n_non_members"])
        low, high = roc.auc_interval()
        at_1 = next(point for point in measures["tpr_at_fpr"] if point["fpr_target"] == 0.01)
        found.append({"release": name, "attack": label, "auc": measures["auc"], "auc_low": low, "auc_high": high, "tpr_at_1pct": at_1["tpr"]})
    return found


def truth_table(rows: int) -> pd.DataFrame:
    from alc_dask.testing.truth import truth_releases

    truth = truth_releases(rows, seed=0)
    return pd.DataFrame([row for name in truth.releases for row in attack_rows(name, truth.release(name))])


def generators_table(work: Path) -> pd.DataFrame:
    import warnings

    from alc_dask.data import Release, ReleaseWarning

    found = []
    for dataset in sorted(path.parent.name for path in work.glob("*/members.parquet")):
        for path in sorted((work / dataset / "releases").glob("*.parquet")):
            suffix = "_overfit" if path.stem.endswith("_overfit") else ""
            members, control = (pd.read_parquet(work / dataset / f"{part}{suffix}.parquet") for part in ("members", "control"))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ReleaseWarning)  # a generator's extreme values: warned of in the generators benchmark
                release = Release.load(members, [pd.read_parquet(path)], control=control)
            found += attack_rows(f"{dataset} {path.stem}", release)
    return pd.DataFrame(found)


def print_table(found: pd.DataFrame) -> None:
    found["cell"] = [f"{r.auc:.3f} [{r.auc_low:.3f}, {r.auc_high:.3f}] · {r.tpr_at_1pct:.3f}" for r in found.itertuples()]
    table = found.pivot(index="release", columns="attack", values="cell").reindex(index=list(dict.fromkeys(found["release"])), columns=list(TRUTH_ATTACKS))
    print("AUC [95%] · TPR at FPR 1%\n" + table.to_markdown(), flush=True)


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
    parser.add_argument("--rows", type=float, nargs="*", default=[1e4, 1e5, 1e6], help="release rows of each scaling run; none: no cluster")
    parser.add_argument("--members", type=int, default=10_000)
    parser.add_argument("--non-members", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--attacks", nargs="+", default=list(ATTACKS), choices=list(ATTACKS))
    parser.add_argument("--data", type=Path, default=Path("bench-data/density-ratio"))
    parser.add_argument("--truth", type=int, default=0, help="members (and control rows) of the known-truth releases; 0: skip")
    parser.add_argument("--generators", type=Path, help="the generators benchmark's work folder")
    args = parser.parse_args()
    if args.truth:
        print_table(truth_table(args.truth))
    if args.generators:
        print_table(generators_table(args.generators))
    if not args.rows:
        return

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
