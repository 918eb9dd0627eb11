"""Save, or compare, every output of one chain per release of bench_relative_threat.py: a change to
the chains' kernels must leave them identical (the same seed, the same draws).

    # the kernels on PYTHONPATH (e.g. a checkout of main, then the changed code), needs ../shared/data:
    PYTHONPATH=$PWD .venv/bin/python benchmarks/chain_outputs.py save /tmp/before --iterations 100000
    PYTHONPATH=$PWD .venv/bin/python benchmarks/chain_outputs.py save /tmp/after --iterations 100000
    .venv/bin/python benchmarks/chain_outputs.py compare /tmp/before /tmp/after

``save`` writes theta and phi draws (and Anatomy's slot counts and acceptance rate) of a chain per
release and seed, and prints its wall and CPU seconds; ``compare`` exits 1 unless every array of
every saved chain is equal, bit for bit.
"""

import argparse
import os
import time
from pathlib import Path

import numpy as np


def save(directory: Path, iterations: int, seeds: list[int]) -> None:
    from bench_relative_threat import adult_sample, write_releases

    from alc_dask.data import Release
    from alc_dask.families.relative_threat import gibbs_kernels
    from alc_dask.families.relative_threat.group_posterior import ChainSettings, run_chain
    from alc_dask.jobs.spec import GroupedSpec

    directory.mkdir(parents=True, exist_ok=True)
    print(f"kernels of {gibbs_kernels.__file__}")
    for (scheme, level), entry in write_releases(adult_sample()).items():
        grouped = Release.load(Path(entry["table"]).parent / "original.csv", [], grouped=GroupedSpec(**entry)).grouped
        run_chain(grouped, ChainSettings(iterations=200, burn_in=100, thin=10), 0)  # compiled before timing
        for seed in seeds:
            cpu = time.process_time()
            chain = run_chain(grouped, ChainSettings(iterations=iterations, burn_in=iterations // 2, thin=100), seed)
            cpu = time.process_time() - cpu
            anatomy = {} if chain.slot_counts is None else {"slot_counts": chain.slot_counts, "acceptance": chain.acceptance}
            np.savez(directory / f"{scheme}{level}-seed{seed}.npz", thetas=chain.thetas, phis=chain.phis, **anatomy)
            print(f"{scheme} {level} seed {seed}: {chain.seconds:.2f} s wall, {cpu:.2f} s CPU")


def compare(before: Path, after: Path) -> bool:
    files = sorted(before.glob("*.npz"))
    if not files:
        raise SystemExit(f"{before}: no saved chains (*.npz)")
    same = True
    for file in files:
        old, new = np.load(file), np.load(after / file.name)
        for name in old.files:
            if not np.array_equal(old[name], new[name]):
                same = False
                print(f"{file.name}: {name} differs")
    print(f"{len(files)} chains: {'every array identical' if same else 'DIFFERENT'}")
    return same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    saving = commands.add_parser("save")
    saving.add_argument("directory", type=Path)
    saving.add_argument("--iterations", type=int, default=20_000)
    saving.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    comparing = commands.add_parser("compare")
    comparing.add_argument("before", type=Path)
    comparing.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "save":
        os.environ.setdefault("NUMBA_NUM_THREADS", "1")
        save(args.directory, args.iterations, args.seeds)
    elif not compare(args.before, args.after):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
