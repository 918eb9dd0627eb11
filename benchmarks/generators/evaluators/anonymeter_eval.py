"""Anonymeter 1.1.0 on every release, in its own environment (.venvs/anonymeter: it pins numpy < 1.27).

Singling out (univariate and multivariate on 3 columns, ``SINGLING_OUT_ATTACKS``), linkability (the
first half of the columns against the second, 10 neighbours, ``ATTACKS``), and inference of two
secrets (the last categorical and the last continuous column, from every other column, ``ATTACKS``):
the settings of Anonymeter's own examples. Anonymeter states a risk with a 95% interval and no verdict.
One JSON line per measure in work/results/anonymeter.jsonl.
Usage: .venvs/anonymeter/bin/python benchmarks/generators/evaluators/anonymeter_eval.py
"""

from __future__ import annotations

import random
import sys
import time
from importlib.metadata import version

import _paths  # noqa: F401
import numpy as np
import pandas as pd
from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator
from common import WORK, append_result, categorical_columns, continuous_columns, control_of, original_of, pending

EVALUATOR = "anonymeter"
RESULTS = WORK / "results" / f"{EVALUATOR}.jsonl"
SINGLING_OUT_ATTACKS = 500
ATTACKS = 1000
CONFIDENCE = 0.95


def secrets_of(original: pd.DataFrame) -> list[str]:
    return [columns[-1] for columns in (categorical_columns(original), continuous_columns(original)) if columns]


def evaluators(original: pd.DataFrame, release: pd.DataFrame, control: pd.DataFrame) -> dict:
    """Each measure's name and a function that runs it and returns its evaluator."""
    most = min(len(original), len(control), len(release))
    half = len(original.columns) // 2
    columns = list(original.columns)
    made = {
        "singling_out_univariate": lambda: _singling_out(original, release, control, min(SINGLING_OUT_ATTACKS, most), "univariate"),
        "singling_out_multivariate": lambda: _singling_out(original, release, control, min(SINGLING_OUT_ATTACKS, most), "multivariate"),
        "linkability": lambda: LinkabilityEvaluator(
            ori=original, syn=release, control=control, n_attacks=min(ATTACKS, most), aux_cols=(columns[:half], columns[half:]), n_neighbors=10
        ).evaluate(n_jobs=1),
    }
    for secret in secrets_of(original):
        made[f"inference:{secret}"] = lambda secret=secret: InferenceEvaluator(
            ori=original,
            syn=release,
            control=control,
            aux_cols=[name for name in columns if name != secret],
            secret=secret,
            regression=secret in continuous_columns(original),
            n_attacks=min(ATTACKS, most),
        ).evaluate(n_jobs=1)
    return made


def _singling_out(original, release, control, attacks: int, mode: str):
    return SinglingOutEvaluator(ori=original, syn=release, control=control, n_attacks=attacks, n_cols=3).evaluate(mode=mode)


def main() -> int:
    for dataset, path, release_digest in pending(RESULTS):
        original, release = pd.read_parquet(original_of(path)), pd.read_parquet(path)
        control = pd.read_parquet(control_of(path))
        base = {"dataset": dataset, "release": path.stem, "digest": release_digest, "evaluator": EVALUATOR, "version": version("anonymeter")}
        total = 0.0
        for measure, run in evaluators(original, release, control).items():
            random.seed(0)
            np.random.seed(0)  # Anonymeter draws its targets and queries from the global generators
            start = time.perf_counter()
            try:
                risk = run().risk(confidence_level=CONFIDENCE)
                values = {"value": float(risk.value), "low": float(risk.ci[0]), "high": float(risk.ci[1])}
            except Exception as error:  # a peer's failure on one measure is a result to report, not a crash of the benchmark
                values = {"value": None, "error": f"{type(error).__name__}: {error}"[:300]}
            seconds = time.perf_counter() - start
            total += seconds
            append_result(RESULTS, base | {"measure": measure, "verdict": None, "seconds": seconds} | values)
        append_result(RESULTS, base | {"measure": "total", "seconds": total})
        print(f"{dataset}/{path.stem}: {total:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
