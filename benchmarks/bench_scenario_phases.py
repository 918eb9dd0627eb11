"""Where a scenario's time goes: the paper's attacks run one at a time in this process, each phase
timed (model selection, per-block fits, per-block predictions, the prior baseline's swapped copy and
search, the attack's search and preparation, halting checks, result assembly).

Attacks: a seeded sample of --per-job scenarios of each job file (the paper's protocol, both
approaches). Prints per phase the total seconds and share, the phases grouped as baseline
training, search and measure, the distribution of scenario seconds
(median, p90, p99, max), and the slowest scenarios with their phases.

    .venv/bin/python benchmarks/bench_scenario_phases.py jobs/paper/*.yaml --per-job 20
"""

import argparse
import json
import time
from collections import defaultdict
from contextlib import contextmanager

import numpy as np
import pandas as pd

import alc_dask.baseline.sources as sources
import alc_dask.families.alc.loop.scenario_run as scenario_run
from alc_dask.engine.runner import prepare_release
from alc_dask.families.alc.best_row_match import BestRowMatch
from alc_dask.jobs import expand, load_job
from alc_dask.measure.halting import HaltingMonitor

PHASES = {
    "selection": (sources, "select_model"),
    "block fits": (sources, "fit_without_block"),
    "block predictions": (sources, "predicted"),
    "prior baseline copy": (sources, "swap_encoded"),
    "search (attack and prior baseline)": (BestRowMatch, "predict"),
    "attack preparation (value counts)": (BestRowMatch, "prepare"),
    "halting checks": (HaltingMonitor, "check"),
    "result assembly": (scenario_run.ScenarioRun, "result"),
}
OTHER = "other (targets, pairs, measures)"
GROUPS = {
    "baseline training": ["selection", "block fits", "block predictions", "prior baseline copy"],
    "search": ["search (attack and prior baseline)", "attack preparation (value counts)"],
    "measure": ["halting checks", "result assembly", OTHER],
}
"""The phases summed as the breakdown in ``RESULTS-performance.md`` names them (the engine's scheduling and
I/O are the rest of a cluster run's wall time: see ``bench_paper.py``)."""


class Timer:
    """Seconds per phase of the scenario running now; a phase inside another counts once, in the outer."""

    def __init__(self):
        self.seconds = defaultdict(float)
        self.depth = 0

    @contextmanager
    def phase(self, name: str):
        self.depth += 1
        start = time.perf_counter()
        try:
            yield
        finally:
            self.depth -= 1
            if self.depth == 0:
                self.seconds[name] += time.perf_counter() - start

    def install(self) -> None:
        for name, (owner, attribute) in PHASES.items():
            original = getattr(owner, attribute)
            setattr(owner, attribute, self._timed(name, original))

    def _timed(self, name, function):
        timer = self

        def timed(*args, **kwargs):
            with timer.phase(name):
                return function(*args, **kwargs)

        return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("jobs", nargs="+")
    parser.add_argument("--per-job", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--csv", help="write every scenario's phases here")
    args = parser.parse_args()
    timer = Timer()
    timer.install()
    rows = []
    for path in args.jobs:
        spec = load_job(path)
        release = prepare_release(spec)
        scenarios = [s for s in expand(spec, release, path) if not s.skipped]
        chosen = np.random.default_rng(args.seed).choice(len(scenarios), min(args.per_job, len(scenarios)), replace=False)
        for index in sorted(chosen):
            scenario = scenarios[index]
            timer.seconds.clear()
            start = time.perf_counter()
            try:
                evaluation = scenario.family.evaluate(release, scenario.seed)
                measures, error = evaluation.measures, None
            except Exception as failure:  # noqa: BLE001 - reported, the others go on
                measures, error = {}, f"{type(failure).__name__}: {failure}"
            total = time.perf_counter() - start
            rows.append(
                {
                    "job": spec.name,
                    "secret": scenario.family.params.secret[:28],
                    "baseline": scenario.family.params.baseline,
                    "model": measures.get("model"),
                    "pairs": measures.get("pairs"),
                    "seconds": total,
                    **dict(timer.seconds),
                    "error": error,
                }
            )
        print(f"{path}: {len(chosen)} scenarios", flush=True)
    frame = pd.DataFrame(rows)
    frame = frame.assign(**{name: frame.get(name, 0.0) for name in PHASES}).fillna({name: 0.0 for name in PHASES})  # a phase no scenario reached
    total = frame["seconds"].sum()
    print("\nphase                                  seconds   share")
    for name in PHASES:
        print(f"{name:<38} {frame[name].sum():8.1f}  {frame[name].sum() / total:6.1%}")
    frame[OTHER] = frame["seconds"] - frame[list(PHASES)].sum(axis=1)
    print(f"{OTHER:<38} {frame[OTHER].sum():8.1f}  {frame[OTHER].sum() / total:6.1%}")
    print("\ngroup                                  seconds   share")
    for group, phases in GROUPS.items():
        seconds = frame[phases].sum().sum()
        print(f"{group:<38} {seconds:8.1f}  {seconds / total:6.1%}")
    quantiles = frame["seconds"].quantile([0.5, 0.9, 0.99, 1.0]).tolist()
    print(
        "\nscenario seconds: median {:.2f}, p90 {:.2f}, p99 {:.2f}, max {:.2f}; {} scenarios, {} failed".format(
            *quantiles, len(frame), frame["error"].notna().sum()
        )
    )
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        print(frame.sort_values("seconds", ascending=False).head(15).drop(columns=["error"]).to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    if args.csv:
        frame.to_csv(args.csv, index=False)
    print(json.dumps({"total_seconds": total, "scenarios": len(frame)}))


if __name__ == "__main__":
    main()
