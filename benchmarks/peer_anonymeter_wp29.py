"""Run Anonymeter 1.1.0's three evaluators on a list of evaluations; runs inside its own virtual environment.

Anonymeter pins numpy < 1.27, so `bench_wp29.py` runs this file with the interpreter of
bench-envs/anonymeter (NUMBA_NUM_THREADS=1 POLARS_MAX_THREADS=1 OMP_NUM_THREADS=1) and reads its
output. Only Anonymeter's public API is called.

Usage: python peer_anonymeter_wp29.py EVALUATIONS.json

EVALUATIONS.json is a list of objects:
    {"id": str, "original": path, "synthetic": path, "control": path (Parquet files), "seed": int,
     "family": "singling_out" | "linkability" | "inference", "n_attacks": int, plus
     singling_out: "mode", "n_cols", "max_attempts"; linkability: "aux_cols" [[...], [...]],
     "n_neighbors"; inference: "aux_cols" [...], "secret", "regression" (bool)}
Each run is seeded as the notes on Anonymeter prescribe: np.random.seed(seed), pl.set_random_seed(seed)
and SinglingOutEvaluator(seed=seed); linkability and inference run with n_jobs=1. One JSON line is
printed per evaluation: its id, the counts, rates and errors, the risk and its interval, the warnings
raised, and the wall seconds of constructing, evaluating and scoring the evaluator.
"""

from __future__ import annotations

import json
import logging
import sys
import time
import warnings
from functools import lru_cache

import numpy as np
import pandas as pd
import polars as pl
from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@lru_cache(maxsize=8)
def _table(path: str) -> pd.DataFrame:
    return pd.read_parquet(path)


def evaluator(spec: dict, ori: pd.DataFrame, syn: pd.DataFrame, control: pd.DataFrame):
    """Construct and run one evaluator as the spec says."""
    family, n_attacks = spec["family"], spec["n_attacks"]
    if family == "singling_out":
        return SinglingOutEvaluator(
            ori, syn, n_attacks=n_attacks, n_cols=spec.get("n_cols", 3), control=control, max_attempts=spec.get("max_attempts", 10_000_000), seed=spec["seed"]
        ).evaluate(mode=spec["mode"])
    if family == "linkability":
        return LinkabilityEvaluator(ori, syn, aux_cols=tuple(spec["aux_cols"]), n_attacks=n_attacks, n_neighbors=spec["n_neighbors"], control=control).evaluate(
            n_jobs=1
        )
    if family == "inference":
        return InferenceEvaluator(
            ori, syn, aux_cols=spec["aux_cols"], secret=spec["secret"], regression=spec.get("regression", False), n_attacks=n_attacks, control=control
        ).evaluate(n_jobs=1)
    raise ValueError(f"unknown family {family!r}")


def run(spec: dict) -> dict:
    ori, syn, control = (_table(spec[k]) for k in ("original", "synthetic", "control"))
    seed = spec["seed"]
    handler = _Collect()
    logging.getLogger("anonymeter").addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            np.random.seed(seed)
            pl.set_random_seed(seed)
            start = time.perf_counter()
            done = evaluator(spec, ori, syn, control)
            results = done.results(confidence_level=0.95)
            risk = results.risk()
            seconds = time.perf_counter() - start
    finally:
        logging.getLogger("anonymeter").removeHandler(handler)
    return {
        "id": spec["id"],
        "seconds": seconds,
        "n_attacks": results.n_attacks_ori,
        "n_success": int(results.n_success),
        "n_baseline_attacks": results.n_attacks_baseline,
        "n_baseline_success": int(results.n_baseline),
        "n_control_attacks": results.n_attacks_control,
        "n_control_success": float(results.n_control),
        "attack_rate": results.attack_rate.value,
        "attack_rate_err": results.attack_rate.error,
        "baseline_rate": results.baseline_rate.value,
        "baseline_rate_err": results.baseline_rate.error,
        "control_rate": results.control_rate.value,
        "control_rate_err": results.control_rate.error,
        "privacy_risk": risk.value,
        "privacy_risk_low": risk.ci[0],
        "privacy_risk_high": risk.ci[1],
        "warning": "; ".join([str(w.message) for w in caught if "Attack is as good" in str(w.message)] + handler.messages) or None,
    }


def warm_up(specs: list[dict]) -> None:
    """Compile Anonymeter's Numba functions (and import polars paths) outside the timings, on small tables."""
    done = set()
    for spec in specs:
        if spec["family"] in done:
            continue
        done.add(spec["family"])
        ori, syn, control = (_table(spec[k]).head(200) for k in ("original", "synthetic", "control"))
        small = {**spec, "n_attacks": 20, "seed": 0}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            logging.getLogger("anonymeter").setLevel(logging.CRITICAL)
            try:
                evaluator(small, ori, syn, control).results()
            except Exception:  # a warm-up on 200 rows may fail where the real run does not
                pass
            finally:
                logging.getLogger("anonymeter").setLevel(logging.NOTSET)


def main(path: str) -> None:
    with open(path) as f:
        specs = json.load(f)
    warm_up(specs)
    for spec in specs:
        try:
            out = run(spec)
        except Exception as exc:  # report and go on: one failing evaluation must not lose the others
            out = {"id": spec["id"], "error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
