"""Identification at population scale: forecast accuracy, a side-by-side with pydataless, and scale.

--accuracy: on each of the five ../shared/data/alc-paper originals and tx2019, 4 seeded sets of 3-6
quasi-identifier columns; the κ(n) curve measured on the full table (one pass, one repeat); each
method fitted on the points of nested subsamples up to 1%, 5% and 10% of the table (MAP on the
subsample's frequency profile) and its forecast of the full table's κ compared with the measured
one: RMSE per method and fraction.
--oracle: the same curves, fitted on the points up to 10%, forecast at 10x the largest training
size by this project's PYC-MB and by pydataless 1.1.0's PYPExtrapolation (GPL-3, so only ever run
as a separate program from its own virtual environment, bench-envs/pydataless, created on first use).
--scale ROWS: a generated table of ROWS rows and 6 quasi-identifiers as Parquet parts, kept on a
LocalCluster of --workers single-threaded workers, one identification pass: time and peak memory per worker.

    .venv/bin/python benchmarks/bench_identification.py --accuracy --oracle
    .venv/bin/python benchmarks/bench_identification.py --scale 10000000 100000000 --workers 2
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
DATASETS = {name: SHARED / "alc-paper" / name / "original.parquet" for name in ("adult", "BankChurnersNoId", "census", "child", "insurance")}
DATASETS["tx2019"] = SHARED / "tx2019" / "original.csv"
FRACTIONS = (0.01, 0.05, 0.10)
ORACLE_ENV = Path("bench-envs/pydataless")
ORACLE_PROGRAM = """
import json, sys
import numpy as np
from dataless import PYPExtrapolation
out = []
for curve in json.load(sys.stdin):
    model = PYPExtrapolation(np.asarray(curve["n"], float), correctness=np.asarray(curve["kappa"], float))
    model.train()
    out.append(float(model.predict_correctness(np.asarray([curve["target"]], float))[0]))
json.dump(out, sys.stdout)
"""


def curves():
    """(dataset, quasi-identifiers, table, curves of the full table) for every dataset and sampled set."""
    from alc_dask.data import Release
    from alc_dask.families.identification.anonymity_sets import anonymity_sets

    for name, path in DATASETS.items():
        frame = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
        release = Release.load(frame, [frame])
        rng = np.random.default_rng([0, len(name), sum(map(ord, name))])
        for _ in range(4):
            quasi = sorted(rng.choice(frame.columns, int(rng.integers(3, 7)), replace=False).tolist())
            yield name, quasi, frame, anonymity_sets(release.original, quasi, seed=0, repeats=1, levels=40)


def accuracy(rows: list) -> pd.DataFrame:
    from alc_dask.families.identification.anonymity_sets import _unit
    from alc_dask.measure.scaling_fits import fit_baselines, fit_correctness, fit_profile

    errors = []
    for name, quasi, frame, measured in rows:
        n_rows, truth = len(frame), float(measured.correctness[0, -1])
        priority = _unit(np.arange(n_rows, dtype=np.uint64), 0, 0)
        for fraction in FRACTIONS:
            sizes, kappa = measured.points(0)
            train = sizes <= fraction * n_rows
            fits = {"PYC-MB": fit_correctness(sizes[train], kappa[train]), **fit_baselines(sizes[train], kappa[train])}
            limit = sizes[train].max() / n_rows
            sample = frame.loc[priority < limit, quasi]
            profile = sample.groupby(quasi, dropna=False).size().value_counts()
            fits["MAP"] = fit_profile(profile.index.to_numpy(), profile.to_numpy())
            for method, fit in fits.items():
                errors.append(
                    {
                        "dataset": name,
                        "quasi": ",".join(quasi),
                        "fraction": fraction,
                        "method": method,
                        "truth": truth,
                        "forecast": float(fit.correctness(n_rows)),
                        "converged": fit.converged,
                    }
                )
    table = pd.DataFrame(errors)
    table["error"] = table["forecast"] - table["truth"]
    return table


def oracle(rows: list) -> pd.DataFrame:
    from alc_dask.measure.scaling_fits import fit_correctness

    if not (ORACLE_ENV / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(ORACLE_ENV)], check=True)
        subprocess.run([str(ORACLE_ENV / "bin" / "pip"), "install", "-q", "pydataless==1.1.0"], check=True)
    payload, ours = [], []
    for name, quasi, frame, measured in rows:
        sizes, kappa = measured.points(0)
        train = sizes <= 0.1 * len(frame)
        target = 10 * sizes[train].max()
        payload.append({"n": sizes[train].tolist(), "kappa": kappa[train].tolist(), "target": float(target)})
        ours.append(
            {"dataset": name, "quasi": ",".join(quasi), "target": target, "alc_dask": float(fit_correctness(sizes[train], kappa[train]).correctness(target))}
        )
    result = subprocess.run([str(ORACLE_ENV / "bin" / "python"), "-c", ORACLE_PROGRAM], input=json.dumps(payload), capture_output=True, text=True, check=True)
    table = pd.DataFrame(ours).assign(pydataless=json.loads(result.stdout))
    return table.assign(difference=table["alc_dask"] - table["pydataless"])


def scale(rows: int, workers: int, folder: Path) -> dict:
    from distributed import Client, LocalCluster

    from alc_dask.data.on_cluster import load_on_cluster
    from alc_dask.families.identification.anonymity_sets import anonymity_sets

    data = folder / f"table-{rows}"
    if not (data / "_done").exists():
        data.mkdir(parents=True, exist_ok=True)
        for i, start in enumerate(range(0, rows, 5_000_000)):
            rng = np.random.default_rng([7, i])
            size = min(5_000_000, rows - start)
            columns = {
                "age": rng.integers(0, 90, size),
                "sex": rng.integers(0, 2, size),
                "zip": rng.zipf(1.3, size) % 40_000,
                "birth_month": rng.integers(1, 13, size),
            }
            columns |= {"ethnicity": rng.integers(0, 6, size), "education": rng.integers(0, 16, size)}
            pq.write_table(pa.table({k: v.astype(np.int32) for k, v in columns.items()}), data / f"part-{i:04d}.parquet")
        (data / "_done").write_text("")
    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None, memory_limit="8GiB") as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        started = time.perf_counter()
        release = load_on_cluster(
            client, str(data), [str(data)], columns=dict.fromkeys(["age", "sex", "zip", "birth_month", "ethnicity", "education"], "categorical")
        )
        loaded = time.perf_counter()
        measured = anonymity_sets(
            release.original, ["age", "sex", "zip", "birth_month", "ethnicity", "education"], repeats=3, buckets=max(16, rows // 2_000_000)
        )
        done = time.perf_counter()
        peaks = client.run(_peak_mib)
    return {
        "rows": rows,
        "workers": workers,
        "load_seconds": round(loaded - started, 1),
        "pass_seconds": round(done - loaded, 1),
        "kappa_table": round(float(measured.correctness[0, -1]), 4),
        "worker_peak_mib": [round(v) for v in peaks.values()],
    }


def _peak_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--accuracy", action="store_true")
    parser.add_argument("--oracle", action="store_true")
    parser.add_argument("--scale", type=float, nargs="*", default=[])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--data", type=Path, default=Path("bench-data/identification"))
    args = parser.parse_args()
    from alc_dask.report.render import markdown_table

    if args.accuracy or args.oracle:
        started = time.perf_counter()
        measured = list(curves())
        print(f"{len(measured)} curves measured in {time.perf_counter() - started:.1f}s", flush=True)
    if args.accuracy:
        table = accuracy(measured)
        rmse = table.groupby(["method", "fraction"])["error"].apply(lambda e: float(np.sqrt(np.mean(e**2)))).unstack("fraction")
        rmse.columns = [f"{f:.0%}" for f in rmse.columns]
        print("RMSE of the full table's forecast correctness, per method and training fraction:", flush=True)
        print(markdown_table(rmse.reindex(["PYC-MB", "MAP", "ENT", "EXP", "POL"]).round(4).reset_index()), flush=True)
        print(f"fits that did not converge: {int((~table['converged']).sum())} of {len(table)}", flush=True)
    if args.oracle:
        table = oracle(measured)
        print(markdown_table(table.round(5)), flush=True)
        print(
            f"largest |alc_dask - pydataless|: {table['difference'].abs().max():.2e}; within 1e-3: {int((table['difference'].abs() <= 1e-3).sum())} of {len(table)}",
            flush=True,
        )
    for rows in args.scale:
        print(json.dumps(scale(int(rows), args.workers, args.data)), flush=True)


if __name__ == "__main__":
    main()
