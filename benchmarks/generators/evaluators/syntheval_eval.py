"""SynthEval's privacy metrics on every release, in its own environment (.venvs/syntheval: numpy >= 2).

Its ``privacy`` preset's metrics, each run on its own to time it, with the control as SynthEval's
hold-out: median distance to the closest record (``dcr``), nearest-neighbour distance ratio
(``nndr``, and its privacy loss against the hold-out), hitting rate, ε-identifiability risk,
nearest-neighbour adversarial accuracy (and its privacy loss), a membership-inference classifier
(``mia``) and attribute disclosure of the last categorical column. SynthEval states values (some with a standard error) and no
verdict; an interval is written as value ± 1.96 standard errors.
One JSON line per key result in work/results/syntheval.jsonl.
Usage: .venvs/syntheval/bin/python benchmarks/generators/evaluators/syntheval_eval.py
"""

from __future__ import annotations

import math
import sys
import time
from importlib.metadata import version

import _paths  # noqa: F401
import numpy as np
import pandas as pd
from common import WORK, append_result, categorical_columns, control_of, original_of, pending
from syntheval import AnalysisConfig, SynthEval

EVALUATOR = "syntheval"
RESULTS = WORK / "results" / f"{EVALUATOR}.jsonl"
METRICS = {
    "dcr": {},
    "nndr": {},
    "hit_rate": {"thres_percent": 0.0333},
    "eps_risk": {},
    "nnaa": {"n_resample": 5},
    "mia": {"num_eval_iter": 5},
    "att_discl": {},
}
"""SynthEval's ``privacy`` preset, with 5 resamples for nnaa instead of 30 to fit the time budget."""
ROWS = 6000
"""Each table (original, release, control) is a seeded sample of at most this many rows (all of
adult's and tx2019's here): SynthEval's Gower nearest-neighbour metrics are quadratic. Sampling the
original and the release apart would hide a noisy copy, whose rows then mostly miss their member."""


def key_results(original: pd.DataFrame, release: pd.DataFrame, control: pd.DataFrame, metric: str) -> list[dict]:
    evaluation = SynthEval(
        original, holdout_dataframe=control, cat_cols=categorical_columns(original), verbose=False, enable_plots=False, console="off", show_warnings=False
    )
    secret = categorical_columns(original)[-1]
    target = AnalysisConfig(dataset=original, target_vars=secret, sensitive_vars=[secret]) if metric == "att_discl" else None
    table = evaluation.evaluate(release, analysis_target=target, **{metric: METRICS[metric]})
    return [] if table is None else table.to_dict("records")


def capped(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sample(n=ROWS, random_state=0).reset_index(drop=True) if len(frame) > ROWS else frame


def interval(row: dict) -> dict:
    value, error = row.get("val"), row.get("err")
    if error is None or (isinstance(error, float) and math.isnan(error)):
        return {"value": _number(value)}
    return {"value": _number(value), "low": _number(value - 1.96 * error), "high": _number(value + 1.96 * error)}


def _number(value) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def main() -> int:
    for dataset, path, release_digest in pending(RESULTS):
        original, release, control = (capped(pd.read_parquet(source)) for source in (original_of(path), path, control_of(path)))
        base = {"dataset": dataset, "release": path.stem, "digest": release_digest, "evaluator": EVALUATOR, "version": version("syntheval")}
        total = 0.0
        for metric in METRICS:
            np.random.seed(0)
            start = time.perf_counter()
            try:
                rows = key_results(original, release, control, metric)
                error = None
            except Exception as failure:  # a peer's failure on one metric is a result to report, not a crash of the benchmark
                rows, error = [], f"{type(failure).__name__}: {failure}"[:300]
            seconds = time.perf_counter() - start
            total += seconds
            for row in rows:
                append_result(RESULTS, base | {"measure": f"{metric}:{row['metric']}", "verdict": None, "seconds": seconds} | interval(row))
            if error or not rows:
                append_result(RESULTS, base | {"measure": metric, "value": None, "seconds": seconds, "error": error or "no key result"})
        append_result(RESULTS, base | {"measure": "total", "seconds": total})
        print(f"{dataset}/{path.stem}: {total:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
