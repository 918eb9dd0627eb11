"""Engine overhead per scenario: a job of --scenarios tiny scenarios with a trivial attack.

The release has 200 rows; every scenario attacks with an attack that guesses the lowest code at
once, against the prior baseline (the same attack on a swapped copy), so a scenario's own work is a
few milliseconds of bookkeeping. Overhead per scenario = (wall time - the scenarios' own time /
workers) / scenarios: expansion, submission, scheduling, transfer, writing results. Also prints
the number of result files left.

    .venv/bin/python benchmarks/bench_overhead.py --scenarios 20000 --workers 2
"""

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from alc_dask.attacks.base import AttributeAttack, Predictions
from alc_dask.attacks.registry import register_attack


class LowestCode(AttributeAttack):
    """Guesses the lowest code for every target, with confidence 1; `salt` only tells scenarios apart."""

    def __init__(self, salt: int = 0):
        self.salt = salt

    def predict(self, prepared, targets) -> Predictions:
        n = len(targets.rows)
        return Predictions(np.zeros(n, dtype=np.int32), np.ones(n), np.zeros(n, dtype=bool))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenarios", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    from alc_dask import run_job
    from alc_dask.apps.synthetic import make_demo_release
    from alc_dask.jobs import JobSpec

    register_attack("lowest_code", LowestCode)
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        tables = make_demo_release(200, seed=0)
        tables["original"].to_parquet(folder / "original.parquet")
        tables["weak"].to_parquet(folder / "weak.parquet")
        spec = JobSpec.model_validate(
            {
                "name": "overhead",
                "release": {"original": str(folder / "original.parquet"), "anonymized": [str(folder / "weak.parquet")]},
                "scenarios": [{"secret": "sex", "known": ["age"]}],
                "attacks": [{"name": "lowest_code", "params": {"salt": i}} for i in range(args.scenarios)],
                "baselines": ["prior"],
                "halting": {"min_pairs": 20, "check_every": 20},
                "output": str(folder / "out"),
            }
        )
        start = time.perf_counter()
        scores = run_job(spec, workers=args.workers, progress=False)
        wall = time.perf_counter() - start
        files = sum(1 for f in (folder / "out").rglob("*") if f.is_file())
    own = float(scores["elapsed_seconds"].sum())
    result = {
        "scenarios": len(scores),
        "failed": int((scores["status"] != "ok").sum()),
        "workers": args.workers,
        "wall_seconds": wall,
        "scenario_own_seconds_total": own,
        "overhead_ms_per_scenario": 1000 * (wall - own / args.workers) / len(scores),
        "result_files": files,
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
