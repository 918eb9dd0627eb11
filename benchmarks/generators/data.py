"""Split each shared dataset by a seed into members (the generators' training rows), non-members
(the control) and others (people of the population in neither: what the non-member bootstrap is
drawn from), capped so the whole benchmark fits in about an hour on 2 cores.

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
    others: int


SOURCES = (
    Source("adult", "alc-paper/adult/original.parquet", members=6000, non_members=6000, others=6000),
    # 9 276 rows: at least 5 000 members; the other 4 276 split evenly between the control and the others.
    Source("tx2019", "tx2019/original.csv", members=5000, non_members=2138, others=2138),
)


def read_source(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


def split(frame: pd.DataFrame, sizes: tuple[int, ...], seed: int) -> list[pd.DataFrame]:
    """Disjoint random parts of the given sizes (members, non-members, others), each re-indexed from 0."""
    if sum(sizes) > len(frame):
        raise ValueError(f"{' + '.join(map(str, sizes))} rows asked of a table of {len(frame)}")
    order = np.random.default_rng(seed).permutation(len(frame))
    bounds = np.cumsum((0, *sizes))
    return [frame.iloc[order[start:stop]].reset_index(drop=True) for start, stop in zip(bounds[:-1], bounds[1:])]


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
        members, control, others = split(read_source(path), (source.members, source.non_members, source.others), args.seed)
        folder = dataset_folder(source.name)
        folder.mkdir(parents=True, exist_ok=True)
        members.to_parquet(folder / "members.parquet", index=False)
        control.to_parquet(folder / "control.parquet", index=False)
        others.to_parquet(folder / "others.parquet", index=False)
        print(f"{source.name}: {len(members)} members, {len(control)} non-members, {len(others)} others (seed {args.seed}) -> {folder}")
        written += 1
    return 0 if written else 3


if __name__ == "__main__":
    sys.exit(main())
