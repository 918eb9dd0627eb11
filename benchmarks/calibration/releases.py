"""The calibration's inputs: a real table split into members, control and others, and releases of
the members whose truth is known because it is fixed by how each was made, not by what an attack finds.

``alc_dask.testing.truth`` was written for the synthetic population, so this module feeds it a
categorical view of a real table (booleans as text, a missing category as a value of its own) and
gives each column its own type back afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from alc_dask.anonymize.swap import swap_frame
from alc_dask.testing.truth import marginals, noisy_copy, smoothed_marginals

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
"""The shared real tables (``../shared/data`` from the repository's root), never copied into the repository."""
TABLE_FILES = {
    "adult": "alc-paper/adult/original.parquet",
    "census": "alc-paper/census/original.parquet",
    "child": "alc-paper/child/original.parquet",
    "insurance": "alc-paper/insurance/original.parquet",
    "BankChurnersNoId": "alc-paper/BankChurnersNoId/original.parquet",
    "tx2019": "tx2019/original.csv",
}
DEFAULT_TABLES = ("adult", "census", "child", "insurance")
MAX_MEMBERS = 5000
"""Members (and control) per run: the size at which the verdict of a clean release is expected to settle."""
MISSING = "<missing>"
"""A missing category as the truth functions see it: ``numpy.unique`` cannot order NaN among text."""


@dataclass(frozen=True)
class Split:
    """One seed's disjoint parts of a table: the members (the original every release is made from),
    the control (other people, given to the check) and others (other people again, only for null releases)."""

    members: pd.DataFrame
    control: pd.DataFrame
    others: pd.DataFrame


@dataclass(frozen=True)
class Kind:
    """A release kind: whether it leaks (``yes``, ``no``, or ``weak``: reported, kept out of both
    goals), or how to tell from the split (``truth_of``), and how it is made."""

    truth: str
    make: Callable[[Split, int], pd.DataFrame]
    truth_of: Callable[[Split], str] | None = None

    def truth_for(self, parts: Split) -> str:
        return self.truth if self.truth_of is None else self.truth_of(parts)


def load_table(name: str) -> pd.DataFrame:
    """The shared table ``name`` (Parquet or CSV)."""
    path = DATA / TABLE_FILES[name]
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


def split(table: pd.DataFrame, seed: int, rows: int = MAX_MEMBERS) -> Split:
    """Shuffle ``table`` by ``seed`` and cut it into members and control of ``min(rows, n // 3)`` rows
    each and others of the rest, so that others always hold at least as many people as the members."""
    size = min(rows, len(table) // 3)
    shuffled = table.iloc[np.random.default_rng(seed).permutation(len(table))].reset_index(drop=True)
    parts = (shuffled.iloc[:size], shuffled.iloc[size : 2 * size], shuffled.iloc[2 * size :])
    return Split(*(part.reset_index(drop=True) for part in parts))


def make_release(name: str, parts: Split, seed: int) -> pd.DataFrame:
    """The release ``name`` of ``parts``, its rows in random order so that no attack can pair a
    released row with its member by position."""
    release = KINDS[name].make(parts, seed)
    order = np.random.default_rng([seed, 1]).permutation(len(release))
    return release.iloc[order].reset_index(drop=True)


def _categorical_view(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as the truth functions can take it: booleans as text (``noisy_copy`` would add
    Gaussian noise to them, ``smoothed_marginals`` cannot take their quantiles) and a missing
    category as ``MISSING``."""
    view = frame.copy()
    for column in frame.columns:
        if pd.api.types.is_bool_dtype(frame[column]):
            view[column] = frame[column].map(str).astype(object)
        elif not pd.api.types.is_numeric_dtype(frame[column]):
            view[column] = frame[column].astype(object).where(frame[column].notna(), MISSING)
    return view


def _restored(view: pd.DataFrame, like: pd.DataFrame) -> pd.DataFrame:
    """``view`` with every column of ``like``'s type again (whole numbers back to integers), so that the
    check sees the release's columns as it sees the original's."""
    frame = view.copy()
    for column in like.columns:
        dtype = like[column].dtype
        if pd.api.types.is_bool_dtype(dtype):
            frame[column] = view[column] == "True"
        elif not pd.api.types.is_numeric_dtype(dtype):
            frame[column] = view[column].where(view[column] != MISSING).astype(dtype)
        elif pd.api.types.is_integer_dtype(dtype) and np.all(np.mod(view[column].to_numpy(dtype=float), 1) == 0):
            frame[column] = view[column].astype(dtype)
    return frame


def _noisy(level: float) -> Callable[[Split, int], pd.DataFrame]:
    """The maker of a noisy copy of the members at ``level`` (``noisy_copy``)."""

    def make(parts: Split, seed: int) -> pd.DataFrame:
        return _restored(noisy_copy(_categorical_view(parts.members), level, seed), parts.members)

    return make


def _rare_values_republished(parts: Split) -> str:
    """Whether the members' columns shuffled apart give anyone away: ``yes`` when some member holds
    a value no other member holds (republished, it singles them out), ``no`` when every value is
    shared (child's and insurance's few categories): the release is then the members' marginal
    counts, as the smoothed marginals are, and no attack on a person can tell a member by it."""
    rare = any((parts.members[column].value_counts(dropna=False) == 1).any() for column in parts.members.columns)
    return "yes" if rare else "no"


def _smoothed(parts: Split, seed: int) -> pd.DataFrame:
    """``smoothed_marginals`` of the members."""
    return _restored(smoothed_marginals(_categorical_view(parts.members), seed), parts.members)


KINDS: dict[str, Kind] = {
    "copy": Kind("yes", lambda parts, seed: parts.members),
    "noisy_5": Kind("yes", _noisy(0.05)),
    "noisy_10": Kind("yes", _noisy(0.10)),
    "noisy_20": Kind("yes", _noisy(0.20)),
    "swap_20": Kind("yes", lambda parts, seed: swap_frame(parts.members, 0.2, seed)),
    "swap_80": Kind("weak", lambda parts, seed: swap_frame(parts.members, 0.8, seed)),
    # every column's values republished: a member's rare value singles them out
    "marginals": Kind("yes", lambda parts, seed: marginals(parts.members, seed), _rare_values_republished),
    "bootstrap": Kind("no", lambda parts, seed: parts.others.sample(len(parts.members), replace=True, random_state=seed)),
    "smoothed_marginals": Kind("no", _smoothed),
    "independent_marginals_others": Kind("no", lambda parts, seed: marginals(parts.others.iloc[: len(parts.members)], seed)),
}
"""Every release kind, leaking ones first."""
