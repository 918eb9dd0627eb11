"""The engine's scaling and overhead with 1 and 2 workers, on a batch of ALC scenarios (N paper
scenarios on adult, weak) or of Anonymeter evaluations (``--wp29``: singling out, linkability and
inference on adult, its original split into members and a control group of non-members).

Prints wall time per worker count, the speed-up, for ALC scenarios the engine's overhead per
scenario beyond the scenario's own work (the ``seconds`` run_attack reports), and the peak memory
of each worker.

    .venv/bin/python benchmarks/bench_engine.py [--scenarios 200] [--workers 1 2] [--wp29]
"""

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from alc_dask.engine import connect, prepare_release, run_job
from alc_dask.jobs import expand, validate_job

ADULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "alc-paper"


def paper_spec(count: int, output: str):
    """``count`` scenarios of the paper's protocol on adult, written out as explicit scenarios."""
    base = {
        "name": "bench-engine",
        "release": {"name": "adult-weak", "original": str(ADULT / "adult" / "original.parquet"), "anonymized": [str(ADULT / "adult" / "weak.parquet")]},
        "output": output,
    }
    paper = validate_job({**base, "scenarios": [{"generate": "paper", "jobs_file": str(ADULT / "jobs.json"), "dataset": "adult", "approach": "ours"}]})
    scenarios = expand(paper, prepare_release(paper))[:count]
    return validate_job({**base, "scenarios": [{"secret": s.params.secret, "known": list(s.params.known)} for s in scenarios]})


def wp29_spec(count: int, output: str, n_attacks: int = 2000):
    """``count`` Anonymeter evaluations on adult: members and control are two halves of the original,
    the release is the weak table's member rows; ``n_attacks`` each (2000, as in Anonymeter's own examples)."""
    original, weak = (pd.read_parquet(ADULT / "adult" / f"{name}.parquet") for name in ("original", "weak"))
    order = np.random.default_rng(0).permutation(len(original))
    members, others = order[: len(order) // 2], order[len(order) // 2 :]
    for name, table in (("members", original.iloc[members]), ("release", weak.iloc[members]), ("control", original.iloc[others])):
        table.reset_index(drop=True).to_parquet(f"{output}/{name}.parquet")
    columns = list(original.columns)
    kinds = [
        {"family": "singling_out", "mode": "multivariate", "n_cols": 3},
        {"family": "singling_out", "mode": "univariate"},
        {"family": "linkability", "aux_cols": [columns[:4], columns[4:8]], "n_neighbors": 10},
        {"family": "inference", "aux_cols": columns[:6]},
    ]
    evaluations = []
    for i in range(count):
        entry = dict(kinds[i % len(kinds)], n_attacks=n_attacks + i)  # distinct evaluations (ids), the same work
        if entry["family"] == "inference":
            entry["secret"] = columns[6 + i % (len(columns) - 6)]
        evaluations.append(entry)
    release = {
        "name": "adult-weak",
        "original": f"{output}/members.parquet",
        "anonymized": [f"{output}/release.parquet"],
        "control": f"{output}/control.parquet",
    }
    return validate_job({"name": "bench-wp29", "release": release, "scenarios": evaluations, "output": f"{output}/out"})


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenarios", type=int, default=200)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--wp29", action="store_true", help="Anonymeter evaluations instead of ALC scenarios")
    parser.add_argument("--n-attacks", type=int, default=2000, help="attacks per Anonymeter evaluation")
    args = parser.parse_args()
    what = f"Anonymeter evaluations of {args.n_attacks} attacks (singling out, linkability, inference)" if args.wp29 else "ALC scenarios, ML baseline"
    print(f"{args.scenarios} {what}, adult weak; load average before: {os.getloadavg()[0]:.2f}")
    walls = {}
    for workers in args.workers:
        with tempfile.TemporaryDirectory() as out:
            spec = wp29_spec(args.scenarios, out, args.n_attacks) if args.wp29 else paper_spec(args.scenarios, out)
            with connect(workers=workers) as client:
                started = time.perf_counter()
                scores = run_job(spec, client=client, progress=False)
                wall = walls[workers] = time.perf_counter() - started
                memory = sorted(client.run(peak_rss_mib).values())
        if args.wp29:
            own = scores["elapsed_seconds"].sum()
            print(
                f"workers={workers}: wall {wall:.1f}s, evaluations' time on workers {own:.1f}s, failed {int((scores['status'] != 'ok').sum())}; "
                f"peak memory per worker {', '.join(f'{m:.0f}' for m in memory)} MiB"
            )
            continue
        own = scores["seconds"].sum()
        overhead = workers * wall - own
        on_worker = (scores["elapsed_seconds"] - scores["seconds"]).sum()
        print(
            f"workers={workers}: wall {wall:.1f}s, scenarios' own work {own:.1f}s, failed {int((scores['status'] != 'ok').sum())}; "
            f"overhead {overhead / len(scores):.3f}s per scenario = {100 * overhead / own:.1f}% "
            f"(of it on the worker, result building: {100 * on_worker / own:.1f}%); "
            f"peak memory per worker {', '.join(f'{m:.0f}' for m in memory)} MiB"
        )
    if 1 in walls:
        for workers, wall in walls.items():
            if workers != 1:
                print(f"speed-up with {workers} workers: {walls[1] / wall:.2f}x")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
