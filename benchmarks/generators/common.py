"""What every script of the generators benchmark shares, in every virtual environment: paths, the
column kinds and casting a generated table back to the members' dtypes. Only pandas and numpy, so it
imports in each peer's environment."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
WORK = HERE / "work"
REAL = WORK / "real"
"""Real releases (``real.py``), read by the attacks' evaluator only: not a dataset of the peers' evaluators."""
MAX_CATEGORIES = 20
"""A numeric column with more distinct values than this is continuous (alc_dask's battery uses the same cut)."""


def dataset_folder(dataset: str) -> Path:
    return WORK / dataset


def releases_folder(dataset: str) -> Path:
    return dataset_folder(dataset) / "releases"


def datasets_present() -> list[str]:
    """The datasets whose split data.py has written (members.parquet and control.parquet)."""
    if not WORK.exists():
        return []
    return sorted(path.parent.name for path in WORK.glob("*/members.parquet"))


def read_split(dataset: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    folder = dataset_folder(dataset)
    return pd.read_parquet(folder / "members.parquet"), pd.read_parquet(folder / "control.parquet")


def continuous_columns(frame: pd.DataFrame) -> list[str]:
    return [name for name in frame.columns if pd.api.types.is_numeric_dtype(frame[name]) and frame[name].nunique() > MAX_CATEGORIES]


def categorical_columns(frame: pd.DataFrame) -> list[str]:
    continuous = set(continuous_columns(frame))
    return [name for name in frame.columns if name not in continuous]


def cast_like(generated: pd.DataFrame, members: pd.DataFrame) -> pd.DataFrame:
    """``generated`` with the members' columns in their order and dtypes: integers rounded and
    clipped to the members' range, categories outside the members' values replaced by the most
    frequent one (a generator may emit NaN or an unseen label)."""
    out = {}
    for name in members.columns:
        column, like = generated[name], members[name]
        if pd.api.types.is_numeric_dtype(like):
            values = pd.to_numeric(column, errors="coerce").fillna(like.median()).clip(like.min(), like.max())
            out[name] = (np.round(values) if pd.api.types.is_integer_dtype(like) else values).astype(like.dtype)
        else:
            text = column.astype(object).where(column.isin(set(like.unique())), like.mode().iloc[0])
            out[name] = text.astype(like.dtype)
    return pd.DataFrame(out, index=pd.RangeIndex(len(generated)))


def write_release(frame: pd.DataFrame, dataset: str, name: str, members: pd.DataFrame, meta: dict) -> Path:
    """Write a release cast to the members' dtypes, with a sidecar JSON saying how it was made."""
    folder = releases_folder(dataset)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.parquet"
    cast_like(frame, members).to_parquet(path, index=False)
    (folder / f"{name}.json").write_text(json.dumps(meta, indent=1))
    return path


def append_result(path: Path, record: dict) -> None:
    """One JSON line per (dataset, release, evaluator, measure)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as stream:
        stream.write(json.dumps(record) + "\n")


def digest(path: Path) -> str:
    """A release file's content hash: a result counts as done only for the release it was measured on."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def done_releases(path: Path) -> set[tuple[str, str, str]]:
    """The (dataset, release, digest) triples an evaluator already wrote, so a rerun resumes."""
    if not path.exists():
        return set()
    return {(row["dataset"], row["release"], row.get("digest")) for row in map(json.loads, path.read_text().splitlines())}


def pending(results: Path) -> list[tuple[str, Path, str]]:
    """(dataset, release path, digest) of every release not yet measured in ``results`` as it is now."""
    done = done_releases(results)
    todo = []
    for dataset in datasets_present():
        for release in release_paths(dataset):
            key = (dataset, release.stem, digest(release))
            if key not in done:
                todo.append((dataset, release, key[2]))
    return todo


def control_of(release: Path) -> Path:
    """The release's non-members: control.parquet unless its sidecar names another file (as large as its original)."""
    meta = json.loads(release.with_suffix(".json").read_text())
    return release.parent.parent / meta.get("control", "control.parquet")


def original_of(release: Path) -> Path:
    """The release's training rows: members.parquet unless its sidecar names another file."""
    meta = json.loads(release.with_suffix(".json").read_text())
    return release.parent.parent / meta.get("members", "members.parquet")


def release_paths(dataset: str) -> list[Path]:
    return sorted(releases_folder(dataset).glob("*.parquet"))


class Stopwatch:
    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start
