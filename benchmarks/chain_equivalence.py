"""The relative-threat family's measures over seeds, saved by one version of the chains and compared
with another's: a change that alters the draws must leave the measures within the old spread.

Each of the four releases of ``bench_relative_threat.py`` (Mondrian k = ℓ = 4 and 6, Anatomy ℓ = 4
and 6, 5 692 rows of adult; needs ../shared/data) is evaluated in this process with the family's
defaults (two chains of 100 000 sweeps, 50 000 burn-in) once per seed.

    # the version on PYTHONPATH: e.g. `git archive <commit> alc_dask | tar -x -C /tmp/old`, then this checkout
    PYTHONPATH=/tmp/old .venv/bin/python benchmarks/chain_equivalence.py save bench-data/chains-before --seeds 1 2 3 4 5 6 7 8
    PYTHONPATH=$PWD .venv/bin/python benchmarks/chain_equivalence.py save bench-data/chains-after --seeds 1 2 3 4 5 6 7 8
    .venv/bin/python benchmarks/chain_equivalence.py compare bench-data/chains-before bench-data/chains-after

``compare`` prints, per release and measure, the old and new mean ± standard deviation over seeds,
their difference in old standard deviations, the old [min, max] and how many new values fall in
it (with n old seeds, a new value from the same law falls inside with chance (n − 1)/(n + 1)), and
whether the new mean lies within the old [min, max]: the rule of equivalence. Exit 1 if not.
"""

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

MEASURES = [
    "gt_attacker",
    "gt_learner",
    "gt_random_worlds",
    "rgt_attacker",
    "alc_over_learner",
    "faithfulness",
    "abs_attacker",
    "abs_random_worlds",
    "ti_doubled_share",
    "rhat_max",
    "geweke_outside",
    "acceptance",
]


def save(directory: Path, seeds: list[int], releases: list[str] | None) -> None:
    from bench_relative_threat import DATA, adult_sample, write_releases

    from alc_dask.data import Release
    from alc_dask.families.relative_threat import gibbs_kernels
    from alc_dask.families.relative_threat.family import RelativeThreat
    from alc_dask.jobs.spec import GroupedSpec

    directory.mkdir(parents=True, exist_ok=True)
    print(f"chains of {gibbs_kernels.__file__}")
    family = RelativeThreat()
    for (scheme, level), entry in write_releases(adult_sample()).items():
        if releases and f"{scheme}{level}" not in releases:
            continue
        release = Release.load(DATA / "original.csv", [], grouped=GroupedSpec(**entry))
        for seed in seeds:
            path = directory / f"{scheme}{level}-seed{seed}.json"
            if path.exists():
                continue
            cpu = time.process_time()
            row = family.evaluate(release, seed).measures
            cpu = time.process_time() - cpu
            kept = {m: (None if row[m] is None else float(row[m])) for m in MEASURES}
            kept.update(risk=row["risk"], converged=bool(row["converged"]), chain_seconds=float(row["chain_seconds"]), cpu_seconds=cpu)
            path.write_text(json.dumps(kept))
            print(f"{scheme} {level} seed {seed}: slowest chain {row['chain_seconds']:.2f} s, evaluation {cpu:.1f} s CPU")


def _load(directory: Path) -> dict[str, list[dict]]:
    runs: dict[str, list[dict]] = {}
    for path in sorted(directory.glob("*-seed*.json")):
        runs.setdefault(path.name.split("-seed")[0], []).append(json.loads(path.read_text()))
    if not runs:
        raise SystemExit(f"{directory}: no saved evaluations (*-seed*.json)")
    return runs


def compare(before: Path, after: Path) -> bool:
    old_runs, new_runs = _load(before), _load(after)
    equivalent = True
    print("| release | measure | old mean ± sd | new mean ± sd | shift (old sd) | old [min, max] | new inside | new mean inside |")
    print("|---|---|---|---|---:|---|---:|---|")
    for release, old in old_runs.items():
        new = new_runs.get(release, [])
        for measure in MEASURES:
            a = np.array([r[measure] for r in old if r[measure] is not None], dtype=float)
            b = np.array([r[measure] for r in new if r[measure] is not None], dtype=float)
            if not len(a) or not len(b):
                continue
            low, high = a.min(), a.max()
            inside = int(np.sum((b >= low) & (b <= high)))
            mean_inside = bool(low <= b.mean() <= high)
            equivalent &= mean_inside
            shift = (b.mean() - a.mean()) / a.std(ddof=1) if len(a) > 1 and a.std(ddof=1) > 0 else float("nan")
            print(
                f"| {release} | {measure} | {a.mean():.4g} ± {a.std(ddof=1):.2g} | {b.mean():.4g} ± {b.std(ddof=1):.2g} | {shift:+.2f} | "
                f"[{low:.4g}, {high:.4g}] | {inside}/{len(b)} | {'yes' if mean_inside else 'NO'} |"
            )
        same_risk = sum(r["risk"] == o["risk"] for r in new for o in old) / max(len(new) * len(old), 1)
        chain = (np.mean([r["chain_seconds"] for r in old]), np.mean([r["chain_seconds"] for r in new]))
        print(
            f"| {release} | risk label, pairs agreeing | | | | | {same_risk:.0%} | |\n"
            f"| {release} | slowest chain s (mean) | {chain[0]:.2f} | {chain[1]:.2f} | | | {chain[0] / chain[1]:.2f}× | |"
        )
    print("equivalent: every new mean within the old spread" if equivalent else "NOT equivalent")
    return equivalent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    saving = commands.add_parser("save")
    saving.add_argument("directory", type=Path)
    saving.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6, 7, 8])
    saving.add_argument("--releases", nargs="+", help="e.g. mondrian4 anatomy6 (default: all four)")
    comparing = commands.add_parser("compare")
    comparing.add_argument("before", type=Path)
    comparing.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "save":
        os.environ.setdefault("NUMBA_NUM_THREADS", "1")
        save(args.directory, args.seeds, args.releases)
    elif not compare(args.before, args.after):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
