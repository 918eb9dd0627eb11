"""The known-truth reference releases, made in the main environment (no peer needed).

- ``copy``: the members themselves (the worst release: every member published).
- ``noisy_copy``: each member with noise: gaussian noise of 10% of the column's standard deviation on
  continuous columns, 10% of categorical (and few-valued numeric) values redrawn from the members'
  marginal; a row still equal to a member afterwards gets its noise redrawn, so no exact copy remains.
  Every released row is one member's record, lightly perturbed: a leak.
- ``marginals``: every column drawn independently from the members' marginal (no row links its
  columns: no member's record survives, only first-order statistics).
- ``marginals_smoothed``: the same with the marginals smoothed (alc_dask's known-truth
  ``smoothed_marginals``): a category fewer than 10 members hold is never drawn, a number is drawn
  uniformly within one of 20 quantile bins; no member's rare value is republished. Per-column
  marginals republish every rare value a member holds, which singles that member out (a real, if
  small, leak that alc_dask and Anonymeter both flag); the smoothed ones are the null case.
- ``bootstrap_population``: a bootstrap (with replacement) of the others (people of the population
  who are neither members nor the control), as many rows as members: a release that never saw a
  member, the null case of every membership and linkage attack. Not a bootstrap of the control: the
  control's people are the non-member targets, and a release made of them makes non-members look
  like members (membership AUC far below 0.5, an artefact rather than a null case).

Usage: python benchmarks/generators/releases.py [--seed 0]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd
from common import continuous_columns, dataset_folder, datasets_present, read_split, write_release

from alc_dask.testing.truth import smoothed_marginals

NOISE_SHARE = 0.10


def copy_of(members: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    return members.copy()


def noisy_copy_of(members: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    noisy = perturbed(members, members, rng)
    while (exact := exact_member_rows(noisy, members)).any():
        noisy.loc[exact] = perturbed(members.loc[exact], members, rng).to_numpy()
    return noisy


def perturbed(rows: pd.DataFrame, members: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    out = rows.copy()
    continuous = set(continuous_columns(members))
    for name in members.columns:
        if name in continuous:
            noise = rng.normal(0.0, NOISE_SHARE * members[name].std(), len(rows))
            values = (rows[name].to_numpy(dtype=float) + noise).clip(members[name].min(), members[name].max())
            out[name] = np.round(values).astype(members[name].dtype) if pd.api.types.is_integer_dtype(members[name]) else values
        else:
            redraw = rng.random(len(rows)) < NOISE_SHARE
            drawn = members[name].to_numpy()[rng.integers(0, len(members), int(redraw.sum()))]
            column = out[name].to_numpy(copy=True)
            column[redraw] = drawn
            out[name] = pd.array(column, dtype=members[name].dtype)
    return out


def exact_member_rows(release: pd.DataFrame, members: pd.DataFrame) -> np.ndarray:
    """Which rows of ``release`` equal some member's row on every column."""
    known = pd.MultiIndex.from_frame(members.astype("string"))
    return np.asarray(pd.MultiIndex.from_frame(release.astype("string")).isin(known))


def marginals_of(members: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    return pd.DataFrame({name: members[name].to_numpy()[rng.integers(0, len(members), len(members))] for name in members.columns}).astype(members.dtypes)


def bootstrap_of(people: pd.DataFrame, rows: int, rng: np.random.Generator) -> pd.DataFrame:
    return people.iloc[rng.integers(0, len(people), rows)].reset_index(drop=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for dataset in datasets_present():
        members, _ = read_split(dataset)
        others = pd.read_parquet(dataset_folder(dataset) / "others.parquet")
        made = {
            "copy": copy_of(members, np.random.default_rng(args.seed)),
            "noisy_copy": noisy_copy_of(members, np.random.default_rng(args.seed + 1)),
            "marginals": marginals_of(members, np.random.default_rng(args.seed + 2)),
            "marginals_smoothed": smoothed_marginals(members, seed=args.seed),
            "bootstrap_population": bootstrap_of(others, len(members), np.random.default_rng(args.seed + 3)),
        }
        for name, frame in made.items():
            write_release(frame, dataset, name, members, {"name": name, "kind": "reference", "seed": args.seed})
            print(f"{dataset}/{name}: {len(frame)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
