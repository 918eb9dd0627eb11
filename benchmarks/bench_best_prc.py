"""Benchmark: best_prc (sort + cumulative sums) against a prefix-by-prefix quadratic scan.

The quadratic scan re-counts every prefix of the ranked predictions with pandas, as the published
reference implementation does. Prints one table; the quadratic scan is skipped for sizes whose
predicted time exceeds --budget seconds (its cost grows with the square of the size).

    .venv/bin/python benchmarks/bench_best_prc.py
"""

import argparse
import math
import time

import numpy as np
import pandas as pd

from alc_dask.measure import best_prc

Z = 1.959963984540054


def quadratic_best_prc(correct: np.ndarray, confidence: np.ndarray, max_interval: float = 0.1) -> float:
    ranked = pd.DataFrame({"correct": correct, "confidence": confidence}).sort_values("confidence", ascending=False)
    total, best = len(ranked), 0.0
    for n in range(1, total + 1):
        precision = ranked.head(n)["correct"].sum() / n
        denominator = 1 + Z * Z / n
        center = (precision + Z * Z / (2 * n)) / denominator
        half = Z * math.sqrt(precision * (1 - precision) / n + Z * Z / (4 * n * n)) / denominator
        if 2 * half < max_interval:
            recall = n / total
            weight = 1 - (math.log10(recall) / math.log10(1e-4)) ** 3 if recall > 1e-4 else 0.0
            best = max(best, center * weight)
    return best


def predictions(size: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    confidence = np.round(rng.random(size), 3)  # 3 decimals, like attack rank scores: many ties
    return rng.random(size) < confidence, confidence


def timed(function, *args, repeat: int = 1) -> tuple[float, object]:
    best, result = math.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000, 1_000_000])
    parser.add_argument("--budget", type=float, default=120.0, help="skip quadratic runs predicted to take longer (s)")
    args = parser.parse_args()

    print(f"{'predictions':>12} {'alc_dask (s)':>13} {'quadratic (s)':>14} {'ratio':>10}  same best PRC")
    quadratic_per_n2 = None
    for size in args.sizes:
        correct, confidence = predictions(size)
        ours, result = timed(best_prc, correct, confidence, repeat=5)
        predicted = quadratic_per_n2 * size * size if quadratic_per_n2 else 0.0
        if predicted <= args.budget:
            theirs, value = timed(quadratic_best_prc, correct, confidence)
            quadratic_per_n2 = theirs / size / size
            # The quadratic scan may split tie groups, so it can only find the same or a higher PRC.
            agree = "yes" if value >= result.prc - 1e-12 and np.isclose(value, result.prc, atol=0.01) else "NO"
            print(f"{size:>12,} {ours:>13.5f} {theirs:>14.3f} {theirs / ours:>9,.0f}x  {agree}")
        else:
            print(f"{size:>12,} {ours:>13.5f} {'~' + format(predicted, ',.0f'):>14} {predicted / ours:>9,.0f}x  (quadratic predicted, not run)")


if __name__ == "__main__":
    main()
