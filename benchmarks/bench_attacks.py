"""Benchmark: alc_dask against the reference implementation on the paper's attacks, side by side.

Takes the first jobs.json entries (approach "ours", weak release, the paper's 5 secrets per entry)
of the given datasets, runs each attack with alc_dask, and with the reference in its own virtual
environment (bench-envs/reference, see peer_reference.py) under two seeds, so that the agreement
of ours with the reference can be set against the reference's agreement with itself.

    .venv/bin/python benchmarks/bench_attacks.py                 # runs the reference too (slow)
    .venv/bin/python benchmarks/bench_attacks.py --reuse-reference  # reuse its results from an earlier run

Reference results are kept in bench-envs/results/reference_seed{1,2}.jsonl.
"""

import argparse
import json
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd
from paper_attacks import paper_attacks

from alc_dask import Release, run_attack
from alc_dask.measure import risk_label

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench-envs" / "results"
REFERENCE_PYTHON = ROOT / "bench-envs" / "reference" / "bin" / "python"


def reference_results(attacks: list[dict], seed: int, reuse: bool) -> pd.DataFrame:
    out = RESULTS / f"reference_seed{seed}.jsonl"
    if not reuse:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "attacks.json").write_text(json.dumps(attacks))
        with open(out, "w") as sink:
            subprocess.run(
                [REFERENCE_PYTHON, Path(__file__).with_name("peer_reference.py"), RESULTS / "attacks.json", str(seed)],
                stdout=sink,
                stderr=subprocess.DEVNULL,
                check=True,
            )
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.startswith('{"dataset_dir"')]
    return pd.DataFrame(rows)


def ours(attacks: list[dict], seed: int) -> pd.DataFrame:
    rows, releases = [], {}
    for attack in attacks:
        key = (attack["dataset_dir"], attack["release"])
        if key not in releases:
            releases[key] = Release.load(f"{key[0]}/original.parquet", [f"{key[0]}/{key[1]}.parquet"])
        start = time.perf_counter()
        result = run_attack(releases[key], attack["secret"], attack["known"], seed=seed)
        rows.append(
            {
                "dataset_dir": attack["dataset_dir"],
                "secret": attack["secret"],
                "seconds": time.perf_counter() - start,
                "alc": result.alc,
                "base_prc": result.base.prc,
                "attack_prc": result.attack.prc,
                "halt_code": result.halt_code,
                "model": result.model,
            }
        )
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["adult", "BankChurnersNoId", "child"])
    parser.add_argument("--per-dataset", type=int, default=1, help="jobs.json entries per dataset (5 secrets each)")
    parser.add_argument("--reuse-reference", action="store_true")
    args = parser.parse_args()

    attacks = paper_attacks(args.datasets, args.per_dataset)
    mine = ours(attacks, seed=1)
    ref1, ref2 = (reference_results(attacks, seed, args.reuse_reference) for seed in (1, 2))
    keys = ["dataset_dir", "secret"]
    table = mine.merge(ref1, on=keys, suffixes=("", "_ref")).merge(ref2[keys + ["alc"]].rename(columns={"alc": "alc_ref2"}), on=keys)
    table["dataset"] = table["dataset_dir"].str.rsplit("/", n=1).str[-1]
    table["ratio"] = table["seconds_ref"] / table["seconds"]
    for column in ("alc", "alc_ref", "alc_ref2"):
        table[f"risk{column[3:]}"] = risk_label(table[column].to_numpy())
        # The paper's three labels: "no loss" counts as safe.
        table[f"paper_risk{column[3:]}"] = table[f"risk{column[3:]}"].replace({"no loss": "safe"})
    table["secret"] = table["secret"].str.slice(0, 24)
    shown = [
        "dataset",
        "secret",
        "seconds_ref",
        "seconds",
        "ratio",
        "alc_ref",
        "alc_ref2",
        "alc",
        "base_prc_ref",
        "base_prc",
        "attack_prc_ref",
        "attack_prc",
        "halt_code_ref",
        "halt_code",
    ]
    with pd.option_context("display.width", 250):
        print(table[shown].to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print()
    print(f"attacks: {len(table)}")
    print(f"median time ratio (reference / alc_dask): {table['ratio'].median():.1f}x")
    print(f"total time: reference {table['seconds_ref'].sum():.0f} s, alc_dask {table['seconds'].sum():.1f} s")
    for labels, prefix in (("4 labels (no loss, safe, at risk, serious)", "risk"), ("the paper's 3 labels (safe, at risk, serious)", "paper_risk")):
        print(f"risk labels, {labels}:")
        print(f"  alc_dask vs reference seed 1: {np.mean(table[prefix] == table[prefix + '_ref']):.0%} agree")
        print(f"  alc_dask vs reference seed 2: {np.mean(table[prefix] == table[prefix + '_ref2']):.0%} agree")
        print(f"  reference seed 1 vs seed 2:   {np.mean(table[prefix + '_ref'] == table[prefix + '_ref2']):.0%} agree")
    print(f"median base PRC: alc_dask {table['base_prc'].median():.3f}, reference {table['base_prc_ref'].median():.3f}")


if __name__ == "__main__":
    main()
