"""Split each shared dataset by a seed into members (the generators' training rows) and non-members
(the control), capped so the whole benchmark fits in about an hour on 2 cores.

The data stay in ../shared (beside the repository) and in the ignored work/ folder: never in the repository.
Usage: python benchmarks/generators/data.py [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from common import dataset_folder

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"


@dataclass(frozen=True)
class Source:
    name: str
    path: str
    members: int
    non_members: int


SOURCES = (
    Source("adult", "alc-paper/adult/original.parquet", members=6000, non_members=6000),
    # 9 276 rows: at least 5 000 members, the rest (4 276) is the control.
    Source("tx2019", "tx2019/original.csv", members=5000, non_members=4276),
)


def read_source(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


def split(frame: pd.DataFrame, members: int, non_members: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Disjoint random members and non-members, each re-indexed from 0."""
    if members + non_members > len(frame):
        raise ValueError(f"{members} + {non_members} rows asked of a table of {len(frame)}")
    order = np.random.default_rng(seed).permutation(len(frame))
    chosen = frame.iloc[order[:members]].reset_index(drop=True), frame.iloc[order[members : members + non_members]].reset_index(drop=True)
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--datasets", nargs="*", default=[source.name for source in SOURCES])
    args = parser.parse_args(argv)
    written = 0
    for source in SOURCES:
        if source.name not in args.datasets:
            continue
        path = SHARED / source.path
        if not path.exists():
            print(f"skipped {source.name}: {path} is absent (the shared data sit beside the repository as ../shared)", file=sys.stderr)
            continue
        members, control = split(read_source(path), source.members, source.non_members, args.seed)
        folder = dataset_folder(source.name)
        folder.mkdir(parents=True, exist_ok=True)
        members.to_parquet(folder / "members.parquet", index=False)
        control.to_parquet(folder / "control.parquet", index=False)
        print(f"{source.name}: {len(members)} members, {len(control)} non-members (seed {args.seed}) -> {folder}")
        written += 1
    return 0 if written else 3


if __name__ == "__main__":
    sys.exit(main())
