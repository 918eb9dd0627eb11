"""Run attacks with the published reference implementation, for side-by-side benchmarks.

Runs inside its own virtual environment (the reference needs pandas < 3):

    python3.11 -m venv bench-envs/reference
    bench-envs/reference/bin/pip install anonymity-loss-coefficient==1.0.32
    bench-envs/reference/bin/python benchmarks/peer_reference.py ATTACKS.json SEED > results.jsonl

ATTACKS.json is a list of {"dataset_dir", "release", "secret", "known"}; one JSON line is printed
per attack with its wall time, ALC, base and attack PRC and halt code.
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


def run(attack: dict, seed: int) -> dict:
    random.seed(seed)
    np.random.seed(seed)
    original = pd.read_parquet(f"{attack['dataset_dir']}/original.parquet")
    anonymized = pd.read_parquet(f"{attack['dataset_dir']}/{attack['release']}.parquet")
    with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(sys.stderr):
        start = time.perf_counter()
        brm = BrmAttack(original, anonymized, results_path=out, no_counter=True)
        brm.run_one_attack(attack["secret"], attack["known"])
        elapsed = time.perf_counter() - start
        best = brm.alcm.results().iloc[0]
    return {
        **attack,
        "seed": seed,
        "seconds": elapsed,
        "alc": float(best["alc"]),
        "base_prc": float(best["base_prc"]),
        "attack_prc": float(best["attack_prc"]),
        "attack_recall": float(best["attack_recall"]),
        "halt_code": str(best["halt_code"]),
        "model": str(best["model_name"]),
    }


def main() -> None:
    attacks = json.load(open(sys.argv[1]))
    seed = int(sys.argv[2])
    for attack in attacks:
        print(json.dumps(run(attack, seed)), flush=True)


if __name__ == "__main__":
    main()
