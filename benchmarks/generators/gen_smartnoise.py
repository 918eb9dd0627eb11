"""smartnoise-synth's differentially private generators MST and AIM at ε = 1 and ε = 10, trained on
the members only, in their own environment (.venvs/smartnoise).

Continuous columns are binned by smartnoise's own preprocessor, which spends ``PREPROCESSOR_SHARE``
of ε on their bounds, so the whole release is ε-DP (δ: smartnoise's default, 1/(n·√n)); the rest are
categorical. The release has as many rows as members. MST and AIM draw their noise from numpy and
from OpenDP's own random source, which no seed reaches: these releases differ from run to run.
Usage: .venvs/smartnoise/bin/python benchmarks/generators/gen_smartnoise.py [--seed 0] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from importlib.metadata import version

import numpy as np
from common import categorical_columns, continuous_columns, datasets_present, read_split, releases_folder, write_release
from snsynth import Synthesizer

PREPROCESSOR_SHARE = 0.1
EPSILONS = (1.0, 10.0)
MECHANISMS = ("mst", "aim")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="*", help="the releases to make, e.g. smartnoise_mst_eps1 (default: all)")
    parser.add_argument("--datasets", nargs="*")
    parser.add_argument("--aim-rounds", type=int, help="AIM's rounds (smartnoise's default: 16 per column; each refits the model)")
    parser.add_argument("--skip-existing", action="store_true", help="keep a release already made")
    args = parser.parse_args(argv)
    for dataset in args.datasets or datasets_present():
        members, _ = read_split(dataset)
        for mechanism in MECHANISMS:
            for epsilon in EPSILONS:
                name = f"smartnoise_{mechanism}_eps{epsilon:g}"
                if (args.only and name not in args.only) or (args.skip_existing and (releases_folder(dataset) / f"{name}.parquet").exists()):
                    continue
                random.seed(args.seed)
                np.random.seed(args.seed)
                start = time.perf_counter()
                options = {"rounds": args.aim_rounds} if mechanism == "aim" and args.aim_rounds else {}
                synthesizer = Synthesizer.create(mechanism, epsilon=epsilon, verbose=False, **options)
                synthesizer.fit(
                    members,
                    categorical_columns=categorical_columns(members),
                    continuous_columns=continuous_columns(members),
                    preprocessor_eps=PREPROCESSOR_SHARE * epsilon,
                )
                generated = synthesizer.sample(len(members))
                seconds = time.perf_counter() - start
                delta = getattr(synthesizer, "delta", None)
                meta = {"name": name, "kind": "generator", "tool": "smartnoise-synth", "version": version("smartnoise-synth")}
                meta |= options | {"mechanism": mechanism, "epsilon": epsilon, "delta": delta, "seed": args.seed, "seconds": seconds}
                write_release(generated, dataset, name, members, meta)
                print(f"{dataset}/{name}: {len(generated)} rows in {seconds:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
