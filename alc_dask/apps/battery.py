"""The default battery of ``alc-dask check`` and ``alc_dask.evaluate``: every family the inputs
allow, with defaults a custodian need not choose, as one job spec run by the normal engine.

The defaults, and why:

- **Secrets**: up to two categorical and two continuous columns (a continuous column is numeric
  with more than ``MAX_CATEGORIES`` distinct values), the *last* of each kind in the original's
  column order: sensitive attributes usually follow the demographics a table starts with.
- **Quasi-identifiers**: up to four columns that are not secrets, the *first* in column order
  (age, sex, region and the like usually lead a table).
- **ALC** (needs no control table): each secret guessed from the quasi-identifiers, against the
  ML baseline (a forest of ``BASELINE_TREES`` trees).
- **Identification** (needs no control table): a match on the quasi-identifiers in a population of
  ``POPULATION_FACTOR`` times the original's rows (the release taken as a 10% sample of it). Its
  forecast (Pitman–Yor) reads the original alone, so it speaks of the release only when the
  release publishes people's own records: it runs when at least ``MICRODATA_SHARE`` of the
  release's rows are rows of the original (a copy, a subset or a sample of the microdata). A
  synthetic or perturbed release is judged by the attacks on it instead; run identification in a
  job to forecast it anyway.
- **With a control table only** (they compare members with non-members): singling out
  (univariate, and multivariate on ``SINGLING_OUT_COLUMNS`` columns), linkability (the first
  half of the columns against the other half, as Anonymeter's examples split them: measured on the
  generators benchmark, four quasi-identifiers against three other columns linked a copy of tx2019's
  24 columns for 10% of people where the halves link it for 99.7%), inference of each secret from up to
  ``INFERENCE_KNOWN`` other columns, each with ``N_ATTACKS`` attacks; membership by each of
  ``MEMBERSHIP_ATTACKS`` at the same population's skew, the verdict taking the strongest with a
  correction for having chosen it (``alc_dask.report.verdict``). ``density_ratio`` (k-nearest
  densities) joins ``distance_ratio`` because it adds power where a release holds near copies: on
  the generators benchmark's noisy copy of adult, TPR at FPR 1% 0.377 against 0.292; it shares
  ``closest_distance``'s search of the release, so it costs one search of the control halves more.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd
from pandas.api.types import is_numeric_dtype

from alc_dask.data.schema import MAX_CATEGORIES

SECRETS_PER_KIND = 2
QUASI_IDENTIFIERS = 4
INFERENCE_KNOWN = 8
N_ATTACKS = 2000
"""Anonymeter's examples use 500; at a risk near 0.1 that leaves a 95% interval of about ±2.6 points,
2000 about ±1.3: narrow enough to decide against a threshold like 0.09 more often, and the
battery stays well inside its time budget (benchmarks/bench_check.py).
"""
SINGLING_OUT_COLUMNS = 3
MICRODATA_SHARE = 0.5
POPULATION_FACTOR = 10
BASELINE_TREES = 30
MEMBERSHIP_ATTACKS = ("distance_ratio", "density_ratio")
NEEDS_CONTROL = ("singling_out", "linkability", "inference", "membership")
FAMILIES = ("alc", "identification", *NEEDS_CONTROL)


def is_continuous(column: pd.Series) -> bool:
    return is_numeric_dtype(column) and column.nunique() > MAX_CATEGORIES


def secrets_of(original: pd.DataFrame) -> list[str]:
    """The battery's secrets: the last ``SECRETS_PER_KIND`` categorical and continuous columns, in column order."""
    continuous = [name for name in original.columns if is_continuous(original[name])]
    categorical = [name for name in original.columns if name not in continuous]
    chosen = set(categorical[-SECRETS_PER_KIND:]) | set(continuous[-SECRETS_PER_KIND:])
    return [name for name in original.columns if name in chosen]


def quasi_identifiers_of(original: pd.DataFrame, secrets: Iterable[str]) -> list[str]:
    others = [name for name in original.columns if name not in set(secrets)]
    return others[:QUASI_IDENTIFIERS]


def original_records_share(original: pd.DataFrame, release: pd.DataFrame) -> float:
    """The share of the release's rows that are rows of the original, on every column the release has."""
    if release.empty:
        return 0.0
    columns = list(release.columns)
    known = pd.MultiIndex.from_frame(original[columns].drop_duplicates().astype("string"))
    return float(pd.MultiIndex.from_frame(release[columns].astype("string")).isin(known).mean())


def battery_entries(original: pd.DataFrame, release: pd.DataFrame, has_control: bool, families: Iterable[str] | None = None) -> list[dict]:
    """The job entries of every family in ``families`` (default: all) the inputs allow."""
    wanted = set(FAMILIES if families is None else families)
    unknown = sorted(wanted - set(FAMILIES))
    if unknown:
        raise ValueError(f"families: {unknown} are not in the battery; it has {list(FAMILIES)}")
    if not has_control:
        wanted -= set(NEEDS_CONTROL)
    if original_records_share(original, release) < MICRODATA_SHARE:
        wanted.discard("identification")
    secrets = secrets_of(original)
    quasi = quasi_identifiers_of(original, secrets)
    population = POPULATION_FACTOR * len(original)
    columns = list(original.columns)
    entries = {
        "alc": [{"secret": secret, "known": [c for c in quasi if c != secret]} for secret in secrets if len(quasi) > 0],
        "identification": [{"family": "identification", "quasi_identifiers": quasi, "population": population, "allow_negative_gamma": True}] if quasi else [],
        "singling_out": [
            {"family": "singling_out", "mode": "univariate", "n_attacks": N_ATTACKS},
            {"family": "singling_out", "mode": "multivariate", "n_cols": min(SINGLING_OUT_COLUMNS, len(columns)), "n_attacks": N_ATTACKS},
        ],
        "linkability": _linkability(columns),
        "inference": [
            {"family": "inference", "secret": secret, "aux_cols": [c for c in columns if c != secret][:INFERENCE_KNOWN], "n_attacks": N_ATTACKS}
            for secret in secrets
            if len(columns) > 1
        ],
        "membership": [{"family": "membership", "attack": attack, "population": max(population, len(original) + 1)} for attack in MEMBERSHIP_ATTACKS],
    }
    return [entry for family in FAMILIES if family in wanted for entry in entries[family]]


def _linkability(columns: list[str]) -> list[dict]:
    half = len(columns) // 2
    if half == 0:
        return []
    return [{"family": "linkability", "aux_cols": [columns[:half], columns[half:]], "n_neighbors": 10, "n_attacks": N_ATTACKS}]


def battery_job(original_path: str, release_path: str, control_path: str | None, output: str, entries: list[dict], seed: int = 0) -> dict:
    """The battery as a job spec (before ``validate_job``): the release, its entries, the ML baseline."""
    release = {"name": Path(release_path).stem, "original": original_path, "anonymized": [release_path]}
    if control_path is not None:
        release["control"] = control_path
    job = {"name": "check", "release": release, "scenarios": entries, "seed": seed, "output": output}
    if any("family" not in entry for entry in entries):
        job |= {"baselines": ["ml"], "baseline_settings": {"candidates": ["majority", "random_forest"], "trees": BASELINE_TREES}}
    return job
