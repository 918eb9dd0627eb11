"""SDMetrics' privacy metrics on every release, in the SDV environment (.venvs/sdv, whose pins it shares).

- ``DCROverfittingProtection``: the share of synthetic rows closer to a member than to a non-member
  (the control), on a seeded sample of ``SYNTHETIC_ROWS`` release rows against every member and
  every non-member. SDMetrics' own ``num_rows_subsample`` samples the members and non-members too,
  which hides a copy (at 500 rows it scored a copy of the members 0.94 of 1); its pairwise distances
  in pandas took 329 s for one full 6 000-row release on the loaded machine, hence the sample of the
  release alone. (``DCRBaselineProtection``, the other DCR metric, is left out for time.)
- ``DisclosureProtectionEstimate`` (CAP): how well the release lets one guess a sensitive column
  (the last categorical) from the first four columns, continuous columns in 10 bins.

SDMetrics scores protection in [0, 1] (1: best) and states no threshold or interval: the risk written
is 1 − score, with no verdict. One JSON line per measure in work/results/sdmetrics.jsonl.
Usage: .venvs/sdv/bin/python benchmarks/generators/evaluators/sdmetrics_eval.py
"""

from __future__ import annotations

import sys
import time
from importlib.metadata import version

import _paths  # noqa: F401
import numpy as np
import pandas as pd
from common import WORK, append_result, categorical_columns, continuous_columns, control_of, original_of, pending
from sdmetrics.single_table import DCROverfittingProtection, DisclosureProtectionEstimate

EVALUATOR = "sdmetrics"
RESULTS = WORK / "results" / f"{EVALUATOR}.jsonl"
TABLE = "members"
SYNTHETIC_ROWS = 1000
KNOWN_COLUMNS = 4


def metadata_of(original: pd.DataFrame) -> dict:
    continuous = set(continuous_columns(original))
    columns = {name: {"sdtype": "numerical"} if name in continuous else {"sdtype": "categorical"} for name in original.columns}
    return {"METADATA_SPEC_VERSION": "V1", "tables": {TABLE: {"columns": columns}}}


def measures(original: pd.DataFrame, release: pd.DataFrame, control: pd.DataFrame) -> dict:
    metadata = metadata_of(original)
    sampled = release.sample(n=min(SYNTHETIC_ROWS, len(release)), random_state=0).reset_index(drop=True)
    sensitive = categorical_columns(original)[-1]
    known = [name for name in original.columns if name != sensitive][:KNOWN_COLUMNS]
    return {
        "DCROverfittingProtection": lambda: DCROverfittingProtection.compute_breakdown(original, sampled, control, metadata, TABLE),
        f"DisclosureProtectionEstimate:{sensitive}": lambda: DisclosureProtectionEstimate.compute_breakdown(
            original,
            release,
            known_column_names=known,
            sensitive_column_names=[sensitive],
            continuous_column_names=[name for name in known if name in set(continuous_columns(original))],
            verbose=False,
        ),
    }


def main() -> int:
    for dataset, path, release_digest in pending(RESULTS):
        original, release = pd.read_parquet(original_of(path)), pd.read_parquet(path)
        control = pd.read_parquet(control_of(path))
        base = {"dataset": dataset, "release": path.stem, "digest": release_digest, "evaluator": EVALUATOR, "version": version("sdmetrics")}
        total = 0.0
        for measure, run in measures(original, release, control).items():
            np.random.seed(0)  # SDMetrics subsamples with numpy's global generator
            start = time.perf_counter()
            try:
                breakdown = run()
                score = float(breakdown["score"])
                values = {"value": 1.0 - score, "score": score, "breakdown": _plain(breakdown)}
            except Exception as error:  # a peer's failure on one measure is a result to report, not a crash of the benchmark
                values = {"value": None, "error": f"{type(error).__name__}: {error}"[:300]}
            seconds = time.perf_counter() - start
            total += seconds
            append_result(RESULTS, base | {"measure": measure, "verdict": None, "seconds": seconds} | values)
        append_result(RESULTS, base | {"measure": "total", "seconds": total})
        print(f"{dataset}/{path.stem}: {total:.1f} s", flush=True)
    return 0


def _plain(breakdown: dict) -> dict:
    return {key: _plain(value) if isinstance(value, dict) else float(value) for key, value in breakdown.items()}


if __name__ == "__main__":
    sys.exit(main())
