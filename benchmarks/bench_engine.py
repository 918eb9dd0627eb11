"""The engine's scaling and overhead: N paper scenarios on adult (weak) with 1 and 2 workers.

Prints wall time per worker count, the speed-up, the engine's overhead per scenario beyond the
scenario's own work (the ``seconds`` run_attack reports), and the peak memory of each worker.

    .venv/bin/python benchmarks/bench_engine.py [--scenarios 200] [--workers 1 2]
"""

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

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
    return validate_job({**base, "scenarios": [{"secret": s.secret, "known": list(s.known)} for s in scenarios]})


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenarios", type=int, default=200)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    print(f"{args.scenarios} scenarios, adult weak, ML baseline; load average before: {os.getloadavg()[0]:.2f}")
    walls = {}
    for workers in args.workers:
        with tempfile.TemporaryDirectory() as out:
            spec = paper_spec(args.scenarios, out)
            with connect(workers=workers) as client:
                started = time.perf_counter()
                scores = run_job(spec, client=client, progress=False)
                wall = walls[workers] = time.perf_counter() - started
                memory = sorted(client.run(peak_rss_mib).values())
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
