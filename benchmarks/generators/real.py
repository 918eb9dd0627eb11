"""Real releases for the attacks' table: the ALC paper's weak releases of census and BankChurnersNoId
(20% of every column's values swapped), halved into members and non-members.

The paper released every row of each original, swapped; its weak table is row-aligned with the
original (84-91% of the cells equal, measured). Here a seeded half of the rows are the members: the
release is the weak table's rows of the members only, and the other half of the original are the
non-members (the control). Written to work/real/DATASET/{members,control,release}.parquet, read by
``evaluators/alc_attacks.py`` only (the peers' evaluators read work/DATASET/).
Usage: python benchmarks/generators/real.py [--seed 0]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd
from common import WORK
from data import SHARED

DATASETS = ("census", "BankChurnersNoId")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for name in DATASETS:
        folder = SHARED / "alc-paper" / name
        if not (folder / "weak.parquet").exists():
            print(f"skipped {name}: {folder} is absent", file=sys.stderr)
            continue
        original, weak = pd.read_parquet(folder / "original.parquet"), pd.read_parquet(folder / "weak.parquet")
        order = np.random.default_rng(args.seed).permutation(len(original))
        members, non_members = np.sort(order[: len(order) // 2]), np.sort(order[len(order) // 2 :])
        out = WORK / "real" / name
        out.mkdir(parents=True, exist_ok=True)
        original.iloc[members].reset_index(drop=True).to_parquet(out / "members.parquet", index=False)
        original.iloc[non_members].reset_index(drop=True).to_parquet(out / "control.parquet", index=False)
        weak.iloc[members].reset_index(drop=True).to_parquet(out / "release.parquet", index=False)
        print(f"{name}: {len(members)} members released (weak), {len(non_members)} non-members -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
