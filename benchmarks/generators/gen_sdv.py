"""SDV 2.x generators, trained on the members only, in their own environment (.venvs/sdv, CPU torch).

- ``sdv_gaussian_copula``: GaussianCopulaSynthesizer with its defaults.
- ``sdv_ctgan`` and ``sdv_tvae``: CTGAN and TVAE with fewer epochs than their default 300, so the
  benchmark fits its time budget on 2 cores (``--ctgan-epochs``, ``--tvae-epochs``).
- ``sdv_ctgan_overfit``: CTGAN on a small training set (``--overfit-rows`` members) for many epochs
  (``--overfit-epochs``): a generator that memorises. Its original is those rows alone
  (``members_overfit.parquet``), as it never saw the other members, and its control as many
  non-members (``control_overfit.parquet``): singling out reads a control of another size only as a range.

Each release has as many rows as its training set. Seeds: python, numpy and torch are seeded before
each fit and each sample; torch's CPU kernels (multi-threaded reductions) remain the only
nondeterminism, so a rerun's CTGAN/TVAE tables may differ slightly.
Usage: .venvs/sdv/bin/python benchmarks/generators/gen_sdv.py [--seed 0] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np
import torch
from common import continuous_columns, dataset_folder, datasets_present, read_split, releases_folder, write_release
from sdv.metadata import Metadata
from sdv.single_table import CTGANSynthesizer, GaussianCopulaSynthesizer, TVAESynthesizer

TABLE = "members"


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def metadata_of(members) -> Metadata:
    """Continuous columns numerical, the rest categorical: no column detected as an id or a date."""
    continuous = set(continuous_columns(members))
    columns = {name: {"sdtype": "numerical"} if name in continuous else {"sdtype": "categorical"} for name in members.columns}
    return Metadata.load_from_dict({"METADATA_SPEC_VERSION": "V1", "tables": {TABLE: {"columns": columns}}})


def synthesizers(metadata: Metadata, args) -> dict:
    return {
        "sdv_gaussian_copula": (lambda: GaussianCopulaSynthesizer(metadata), {}),
        "sdv_ctgan": (lambda: CTGANSynthesizer(metadata, epochs=args.ctgan_epochs, enable_gpu=False), {"epochs": args.ctgan_epochs}),
        "sdv_tvae": (lambda: TVAESynthesizer(metadata, epochs=args.tvae_epochs, enable_gpu=False), {"epochs": args.tvae_epochs}),
        "sdv_ctgan_overfit": (
            lambda: CTGANSynthesizer(metadata, epochs=args.overfit_epochs, batch_size=args.overfit_rows, enable_gpu=False),
            {"epochs": args.overfit_epochs, "training_rows": args.overfit_rows},
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ctgan-epochs", type=int, default=50)
    parser.add_argument("--tvae-epochs", type=int, default=100)
    parser.add_argument("--overfit-rows", type=int, default=500)
    parser.add_argument("--overfit-epochs", type=int, default=1000)
    parser.add_argument("--only", nargs="*", help="the generators to run (default: all)")
    parser.add_argument("--datasets", nargs="*")
    parser.add_argument("--skip-existing", action="store_true", help="keep a release already made")
    args = parser.parse_args(argv)
    torch.set_num_threads(2)
    for dataset in args.datasets or datasets_present():
        members, control = read_split(dataset)
        overfit_members = members.head(args.overfit_rows)
        overfit_members.to_parquet(dataset_folder(dataset) / "members_overfit.parquet", index=False)
        control.head(args.overfit_rows).to_parquet(dataset_folder(dataset) / "control_overfit.parquet", index=False)
        for name, (make, params) in synthesizers(metadata_of(members), args).items():
            if (args.only and name not in args.only) or (args.skip_existing and (releases_folder(dataset) / f"{name}.parquet").exists()):
                continue
            training = overfit_members if name == "sdv_ctgan_overfit" else members
            seed_everything(args.seed)
            start = time.perf_counter()
            synthesizer = make()
            synthesizer.fit({TABLE: training})  # SDV 2 takes a dict of tables
            seed_everything(args.seed)
            generated = synthesizer.sample(num_rows=len(training))
            generated = generated[TABLE] if isinstance(generated, dict) else generated
            seconds = time.perf_counter() - start
            meta = {"name": name, "kind": "generator", "tool": "sdv", "version": _sdv_version(), "seed": args.seed, "seconds": seconds, **params}
            if name == "sdv_ctgan_overfit":
                meta |= {"members": "members_overfit.parquet", "control": "control_overfit.parquet"}
            write_release(generated, dataset, name, training, meta)
            print(f"{dataset}/{name}: {len(generated)} rows in {seconds:.0f} s", flush=True)
    return 0


def _sdv_version() -> str:
    from importlib.metadata import version

    return version("sdv")


if __name__ == "__main__":
    sys.exit(main())
