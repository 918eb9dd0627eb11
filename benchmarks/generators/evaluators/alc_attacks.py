"""Every membership and attribute attack of alc_dask on every release, the distance attacks beside
the stronger ones: what each attack adds, measured where it matters.

- Membership: ``closest_distance``, ``distance_ratio``, ``density_ratio`` (k-nearest densities, its
  default) and ``density_ratio`` with ``density: mixture``; each attack's AUC with DeLong's interval
  and its TPR at FPR 1% with the TPR's Wilson interval (every member and non-member scored).
- A DP generator's declared ε (its sidecar's) beside each membership attack's ``epsilon_lower_bound``.
- Attribute inference: the ALC of ``best_row_match`` and of ``ml_on_release`` (a model trained on the
  release) for each of the battery's secrets, known columns the battery's quasi-identifiers, against
  the ML baseline; the ALC's interval as the report's (Wilson ends of both precisions).

The releases are the generators benchmark's (work/DATASET/releases) and the real releases of
``real.py`` (work/real/DATASET). One job per release on a local cluster of 2 workers, seed 0.
One JSON line per (release, attack[, secret]) in work/results/alc_attacks.jsonl.
Usage: python benchmarks/generators/evaluators/alc_attacks.py   (the main environment)
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import _paths  # noqa: F401
import pandas as pd
from common import REAL, WORK, append_result, control_of, digest, done_releases, original_of, pending

from alc_dask import run_job
from alc_dask.apps.battery import battery_entries, battery_job
from alc_dask.families.alc.family import BATTERY_BASELINE, AlcFamily
from alc_dask.jobs import validate_job
from alc_dask.results import read_scores

EVALUATOR = "alc_attacks"
RESULTS = WORK / "results" / f"{EVALUATOR}.jsonl"
MEMBERSHIP_ATTACKS = {
    "closest_distance": ("closest_distance", {}),
    "distance_ratio": ("distance_ratio", {}),
    "density_ratio": ("density_ratio", {}),
    "density_ratio_mixture": ("density_ratio", {"density": "mixture"}),
}
ALC_ATTACKS = (
    "best_row_match",
    {"name": "ml_on_release", "params": {"baseline_settings": {"candidates": ["majority", "random_forest"], "trees": BATTERY_BASELINE["trees"]}}},
)
FPR = 0.01


def job_of(original_path: Path, release_path: Path, control_path: Path, output: Path) -> dict:
    original, release = pd.read_parquet(original_path), pd.read_parquet(release_path)
    alc = battery_entries(original, release, has_control=True, families=["alc"])
    population = 10 * len(original)
    membership = [
        {"family": "membership", "attack": attack, "attack_params": params, "population": population} for attack, params in MEMBERSHIP_ATTACKS.values()
    ]
    job = battery_job(str(original_path), str(release_path), str(control_path), str(output), alc + membership)
    job["release"] |= declared_generator(release_path)
    return job | {"attacks": list(ALC_ATTACKS)}


def declared_generator(release_path: Path) -> dict:
    """``release.generator`` from the release's sidecar: a DP generator's ε and δ, read against what the attacks prove."""
    sidecar = release_path.with_suffix(".json")
    meta = json.loads(sidecar.read_text()) if sidecar.exists() else {}
    if meta.get("kind") != "generator":
        return {}
    declared = {"name": meta.get("mechanism", meta["name"]), "version": f"{meta['tool']} {meta['version']}"}
    if meta.get("epsilon") is not None:
        declared |= {"epsilon": meta["epsilon"], "delta": meta.get("delta") or 0.0}
    return {"generator": declared}


def measure(name: str, original_path: Path, release_path: Path, control_path: Path, base: dict) -> None:
    output = WORK / "alc-attacks" / name
    shutil.rmtree(output, ignore_errors=True)
    start = time.perf_counter()
    run_job(validate_job(job_of(original_path, release_path, control_path, output)), workers=2, progress=False)
    seconds = time.perf_counter() - start
    for row in read_scores(output, family="membership").to_dict("records"):
        at = next(point for point in row["tpr_at_fpr"] if point["fpr_target"] == FPR)
        attack = row["attack"] + ("_mixture" if "mixture" in str(row["params"]) else "")
        values = {"value": row["auc"], "low": row["auc_low"], "high": row["auc_high"], "tpr": at["tpr"], "tpr_low": at["tpr_low"], "tpr_high": at["tpr_high"]}
        values |= {"epsilon_lower_bound": row["epsilon_lower_bound"], "epsilon_declared": row["epsilon_declared"]}
        append_result(RESULTS, base | {"measure": f"membership:{attack}", "family": "membership", "attack": attack} | values)
    for row in read_scores(output, family="alc").to_dict("records"):
        head = AlcFamily.headline_interval(row)
        values = {"value": head.value, "low": head.low, "high": head.high, "secret": row["secret"]}
        append_result(RESULTS, base | {"measure": f"alc:{row['attack']}:{row['secret']}", "family": "alc", "attack": row["attack"]} | values)
    append_result(RESULTS, base | {"measure": "total", "seconds": seconds})
    print(f"{name}: {seconds:.1f} s", flush=True)


def real_releases() -> list[tuple[str, Path, str]]:
    """(dataset, release, digest) of every real release ``real.py`` prepared and not yet measured."""
    done = done_releases(RESULTS)
    found = [(path.parent.name, path) for path in sorted(REAL.glob("*/release.parquet"))]
    return [(dataset, path, key) for dataset, path in found if (dataset, "real_weak", key := digest(path)) not in done]


def main() -> int:
    for dataset, path, release_digest in pending(RESULTS):
        base = {"dataset": dataset, "release": path.stem, "digest": release_digest, "evaluator": EVALUATOR}
        measure(f"{dataset}/{path.stem}", original_of(path), path, control_of(path), base)
    for dataset, path, release_digest in real_releases():
        base = {"dataset": dataset, "release": "real_weak", "digest": release_digest, "evaluator": EVALUATOR}
        measure(f"real/{dataset}", path.parent / "members.parquet", path, path.parent / "control.parquet", base)
    return 0


if __name__ == "__main__":
    sys.exit(main())
