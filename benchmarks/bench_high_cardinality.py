"""The baseline's budget on a secret with hundreds of values: one ML scenario with and without it.

A generated release of --rows people: a known "place" column of 2700 values, age and sex, and a
secret of about 450 values that follows place. Runs the scenario (extra trees wins model selection
here) once with the block-fit budget of ``alc_dask.baseline.budget`` and once without it, in this
process, and prints per run the block fit's seconds, the trees used, the base and attack PRC, the
ALC and the scenario's seconds.

    .venv/bin/python benchmarks/bench_high_cardinality.py
"""

import argparse
import time

import numpy as np
import pandas as pd

import alc_dask.baseline.budget as budget
import alc_dask.baseline.sources as sources
from alc_dask import Release
from alc_dask.baseline.memo import BASELINES
from alc_dask.families.alc.loop import run_attack


def release_of(rows: int) -> Release:
    rng = np.random.default_rng(0)
    place = rng.integers(0, 2700, rows)
    secret = (place // 6 + rng.integers(0, 3, rows)) % 500
    original = pd.DataFrame(
        {"place": [f"p{v}" for v in place], "age": rng.integers(18, 90, rows), "sex": rng.choice(["f", "m"], rows), "secret": [f"s{v}" for v in secret]}
    )
    anonymized = original.sample(frac=1.0, random_state=1).reset_index(drop=True)
    anonymized.loc[rng.random(rows) < 0.3, "secret"] = "s0"
    return Release.load(original, [anonymized])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20000)
    args = parser.parse_args()
    release = release_of(args.rows)
    fits = []
    fit_without_block = sources.fit_without_block

    def timed_fit(*fit_args, **fit_kwargs):
        start = time.perf_counter()
        model = fit_without_block(*fit_args, **fit_kwargs)
        fits.append(time.perf_counter() - start)
        return model

    sources.fit_without_block = timed_fit
    print(f"{args.rows} rows; secret values: {release.secret_values_present('secret').size}")
    for label, forest_budget in (("with the budget", budget.FOREST_BUDGET), ("without", 1e30)):
        budget.FOREST_BUDGET = forest_budget
        BASELINES.clear()
        fits.clear()
        start = time.perf_counter()
        result = run_attack(release, "secret", ["place", "age", "sex"], seed=1)
        total = time.perf_counter() - start
        print(
            f"{label:>16}: model {result.model}, block fit {sum(fits):.1f} s ({len(fits)} blocks), note: {result.baseline_note}; "
            f"base PRC {result.base.prc:.3f}, attack PRC {result.attack.prc:.3f}, ALC {result.alc:.3f}; scenario {total:.1f} s"
        )


if __name__ == "__main__":
    main()
