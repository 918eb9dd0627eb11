"""Run attacks with the published reference implementation, for side-by-side benchmarks.

Runs inside its own virtual environment (the reference needs pandas < 3; bench_reference.py
creates it):

    python3.11 -m venv bench-envs/reference
    bench-envs/reference/bin/pip install anonymity-loss-coefficient==1.0.32 "pandas<3"
    bench-envs/reference/bin/python benchmarks/peer_reference.py ATTACKS.json SEED [SWAP] >> results.jsonl

ATTACKS.json is a list of {"dataset_dir", "release", "secret", "known"} and, optionally, "shuffle": a
seed by which the original's rows are shuffled first (the reference attacks the first rows of its
file, so this measures how much its result depends on their order); one JSON line is printed
per attack with its wall time, halt code, model, the ALC, base and attack PRC of its result (the
best measure: the paper's "ours"), and the counts of correct predictions of each side at recall 1,
from which the benchmark measures the "no recall" ALC.
SWAP > 0 runs the reference's prior experiment instead: the baseline is the attack on a copy of
the original with that fraction of each column's values swapped.
"""

import contextlib
import json
import random
import sys
import tempfile
import time

import numpy as np
import pandas as pd
from anonymity_loss_coefficient import BrmAttack


def run(attack: dict, seed: int, swap: float) -> dict:
    random.seed(seed)
    np.random.seed(seed)
    original = pd.read_parquet(f"{attack['dataset_dir']}/original.parquet")
    if "shuffle" in attack:
        original = original.sample(frac=1.0, random_state=attack["shuffle"]).reset_index(drop=True)
    anonymized = pd.read_parquet(f"{attack['dataset_dir']}/{attack['release']}.parquet")
    with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(sys.stderr):
        start = time.perf_counter()
        brm = BrmAttack(original, anonymized, results_path=out, no_counter=True, prior_experiment_swap_fraction=swap if swap > 0 else -1.0)
        brm.run_one_attack(attack["secret"], attack["known"])
        elapsed = time.perf_counter() - start
        best = brm.alcm.results().iloc[0]
        predictions = brm.alcm.prediction_results()
    if best["halt_code"] == "init_failed" or "predict_type" not in predictions:  # it could not attack: no measure
        return {
            **attack,
            "seed": seed,
            "swap": swap,
            "seconds": elapsed,
            "halt_code": str(best["halt_code"]),
            "error": "the reference could not set the attack up",
        }
    correct = {side: predictions.loc[predictions["predict_type"] == side, "prediction"].astype(bool) for side in ("base", "attack")}
    return {
        **attack,
        "seed": seed,
        "swap": swap,
        "seconds": elapsed,
        "alc": float(best["alc"]),
        "base_full_recall": [int(correct["base"].sum()), len(correct["base"])],  # correct, predictions
        "attack_full_recall": [int(correct["attack"].sum()), len(correct["attack"])],
        "base_prc": float(best["base_prc"]),
        "attack_prc": float(best["attack_prc"]),
        "attack_recall": float(best["attack_recall"]),
        "halt_code": str(best["halt_code"]),
        "model": str(best["model_name"]),
    }


def main() -> None:
    attacks = json.load(open(sys.argv[1]))
    seed = int(sys.argv[2])
    swap = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    for attack in attacks:
        try:
            line = run(attack, seed, swap)
        except Exception as error:  # noqa: BLE001 - recorded; the other attacks go on
            line = {**attack, "seed": seed, "swap": swap, "error": f"{type(error).__name__}: {error}"}
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
