"""The demo releases ``check_family`` runs a family on, written as files a job reads: small, seeded,
and each with a known truth.

Three releases of one synthetic population (``alc_dask.apps.synthetic``): the one checked (a swap
of 10 % of the original's values, with a control table of other people), a copy of the original (it
leaks everyone), and a fresh sample of the same population (it leaks no one). A ``grouped`` demo is
a k-anonymous generalization (Mondrian) of the original's quasi-identifiers instead; its copy and
fresh sample are generalized to groups of one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from alc_dask.anonymize import mondrian
from alc_dask.apps.synthetic import make_demo_release, make_population

ROWS = 300
"""Rows of the original and of the control table: enough for every family, a second or less each."""
SEED = 3


@dataclass(frozen=True)
class GroupedColumns:
    quasi_identifiers: tuple[str, ...]
    sensitive: str

    @property
    def columns(self) -> tuple[str, ...]:
        return (*self.quasi_identifiers, self.sensitive)


GROUPED = GroupedColumns(("age", "sex", "region", "education"), "occupation")
"""The columns of the grouped demo's generalized table (its original holds every column)."""


def demo_columns() -> tuple[str, ...]:
    """The columns of every demo release's original (and of its anonymized tables): what a family's
    ``check_examples`` is given to choose its entries' columns from.

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> from alc_dask.testing import demo_columns
    >>> demo_columns()[:4]
    ('age', 'sex', 'region', 'education')
    """
    return tuple(make_population(1).columns)


@dataclass(frozen=True)
class DemoReleases:
    """The ``release:`` of a job for each demo release, files relative to the demo's folder, and the
    people of their original (whose values nothing reported per record may show)."""

    checked: dict[str, Any]
    copy: dict[str, Any]
    fresh: dict[str, Any]
    original: pd.DataFrame


def write_demo(folder: Path, kind: str, rows: int = ROWS, seed: int = SEED) -> DemoReleases:
    """The demo releases of ``kind`` (``tables`` or ``grouped``) written under ``folder``."""
    if kind == "tables":
        return _tables(folder, rows, seed)
    if kind == "grouped":
        return _grouped(folder, rows, seed)
    raise ValueError(f"unknown demo release {kind!r}: expected 'tables' or 'grouped'")


def _tables(folder: Path, rows: int, seed: int) -> DemoReleases:
    demo = make_demo_release(rows, seed)
    files = {
        "original": demo["original"],
        "weak": demo["weak"],
        "control": make_population(rows, seed + 1000),
        "copy": demo["original"].copy(),
        "fresh": make_population(rows, seed + 2000),
    }
    for name, frame in files.items():
        frame.to_parquet(folder / f"{name}.parquet")
    common = {"original": "original.parquet", "control": "control.parquet"}
    return DemoReleases(
        {"name": "demo", **common, "anonymized": ["weak.parquet"]},
        {"name": "copy", **common, "anonymized": ["copy.parquet"]},
        {"name": "fresh", **common, "anonymized": ["fresh.parquet"]},
        demo["original"],
    )


def _grouped(folder: Path, rows: int, seed: int) -> DemoReleases:
    original = make_demo_release(rows, seed)["original"]
    original.to_csv(folder / "original.csv", index=False)
    quasi, sensitive, grouped = list(GROUPED.quasi_identifiers), GROUPED.sensitive, original[list(GROUPED.columns)]
    mondrian(grouped, quasi, sensitive, k=3, l=2).to_csv(folder / "grouped.csv", index=False)
    mondrian(grouped, quasi, sensitive, k=1).to_csv(folder / "copy.csv", index=False)
    mondrian(_sample_within(grouped, rows, seed + 2000), quasi, sensitive, k=1).to_csv(folder / "fresh.csv", index=False)

    def release(name: str, table: str, **declared) -> dict[str, Any]:
        spec = {"scheme": "generalized", "table": table, "sensitive": sensitive, "group": "group", **declared}
        return {"name": name, "original": "original.csv", "grouped": spec}

    return DemoReleases(release("demo", "grouped.csv", k=3, l=2), release("copy", "copy.csv"), release("fresh", "fresh.csv"), original)


def _sample_within(original: pd.DataFrame, rows: int, seed: int) -> pd.DataFrame:
    """``rows`` people of the population not in ``original``, among those whose every value the
    original holds: a generalized release's cells are values of the original's domain."""
    people = make_population(20 * rows, seed)[list(original.columns)]
    inside = np.logical_and.reduce([people[c].isin(original[c].unique()) for c in original.columns])
    sample = people[inside].head(rows)
    if len(sample) < rows:
        raise ValueError(f"only {len(sample)} people of {len(people)} hold values of the original alone; {rows} were wanted")
    return sample.reset_index(drop=True)


def write_job(folder: Path, name: str, release: dict, entries: list[dict], settings: dict, seed: int) -> Path:
    """A job file of ``entries`` on ``release`` (results beside it, in ``out-<name>``)."""
    job = {"name": name, "release": release, "scenarios": entries, "seed": seed, "output": f"out-{name}", **settings}
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(job, sort_keys=False))
    return path


def family_entries(family: str, entries: list[dict]) -> list[dict]:
    """``entries`` with ``family:`` named where an evaluation's entry leaves it out (a generator's
    entry names its generator instead)."""
    return [entry if "generate" in entry or "family" in entry else {"family": family, **entry} for entry in entries]
