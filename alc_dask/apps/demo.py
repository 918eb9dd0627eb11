"""The demo: a synthetic population released twice (weakly and strongly anonymized), both attacked
by the same job on a local cluster, a third time as a 5-anonymous table (Mondrian) measured for
its relative threat, and one report comparing them.

Everything it makes stays under one folder: the tables, the two job files (rerun them with
``alc-dask run``), their results and the report.
"""

from pathlib import Path

import pandas as pd
import yaml

from alc_dask.anonymize import mondrian
from alc_dask.apps.synthetic import make_demo_release
from alc_dask.engine import connect, run_job
from alc_dask.engine.progress import Interrupted
from alc_dask.jobs import load_job
from alc_dask.report import summarize, write_report
from alc_dask.report.exposure import exposure_of_results
from alc_dask.results.files import write_file

LEVELS = ("weak", "strong")


WP29 = [
    {"family": "singling_out", "mode": "univariate"},
    {"family": "singling_out", "mode": "multivariate", "n_cols": 3},
    {"family": "linkability", "aux_cols": [["age", "sex", "region"], ["education", "occupation", "hours_per_week"]], "n_neighbors": 10},
    {"family": "inference", "aux_cols": ["age", "sex", "region", "education", "occupation", "hours_per_week", "married"], "secret": "income"},
    {"family": "inference", "aux_cols": ["age", "sex", "region", "education", "occupation", "income", "married"], "secret": "condition"},
]
"""Anonymeter's three evaluators, beside the ALC scenarios."""

MEMBERSHIP = [{"family": "membership", "attack": attack, "population": 500_000} for attack in ("closest_distance", "distance_ratio")]
"""Who is in the data, for an attacker whose targets come from a town of 500 000 people."""

IDENTIFICATION = [{"family": "identification", "quasi_identifiers": ["age", "sex", "region"], "population": 500_000, "allow_negative_gamma": True}]
"""How many of the town's people a match on age, sex and region would identify correctly (a few
thousand combinations of them: a tail lighter than geometric, γ < 0)."""


def demo_job(level: str) -> dict:
    """The demo's job for one release: every column as secret, sampled mostly-unique known sets,
    singling out, linkability and inference against the control table, membership inference and
    identification at population scale."""
    return {
        "name": f"demo-{level}",
        "release": {"name": level, "original": "../data/original.parquet", "anonymized": [f"../data/{level}.parquet"], "control": "../data/control.parquet"},
        "scenarios": [
            {"generate": "each_column"},
            {"generate": "sampled_known", "per_secret": 1, "size": 3, "min_unique": 0.5},
            *WP29,
            *MEMBERSHIP,
            *IDENTIFICATION,
        ],
        "baselines": ["ml"],
        "baseline_settings": {"candidates": ["majority", "logistic_regression", "random_forest"], "trees": 30},
        "seed": 0,
        "output": f"../results/{level}",
    }


GROUPED_QUASI_IDENTIFIERS = ["age", "sex", "region", "education"]
CHAIN = {"iterations": 10_000, "burn_in": 5_000, "thin": 10, "chains": 2}
"""A tenth of the paper's run: the demo's 5 000 people converge (split-R̂ below 1.1) in it."""


def k_anonymous_job() -> dict:
    """The 5-anonymous, 5-diverse release of the occupation: its relative threat (Boreale et al.
    2020), and the ALC of its Bayesian attacker against the ML baseline."""
    return {
        "name": "demo-k5",
        "release": {
            "name": "k5",
            "original": "../data/original.parquet",
            "grouped": {
                "scheme": "generalized",
                "table": "../data/k5.csv",
                "sensitive": "occupation",
                "quasi_identifiers": GROUPED_QUASI_IDENTIFIERS,
                "group": "group",
                "k": 5,
                "l": 5,
            },
        },
        "scenarios": [
            {"family": "relative_threat", **CHAIN},
            {"secret": "occupation", "known": GROUPED_QUASI_IDENTIFIERS, "attack": {"name": "bayesian_group", "params": CHAIN}},
        ],
        "baselines": ["ml"],
        "baseline_settings": {"candidates": ["majority", "logistic_regression", "random_forest"], "trees": 30},
        "seed": 0,
        "output": "../results/k5",
    }


def run_demo(
    folder: str | Path, rows: int = 5000, seed: int = 0, workers: int | None = None, progress: bool = True, dashboard: bool | str = False
) -> dict[str, Path]:
    """Make the release, run both jobs on one local cluster (``dashboard`` as ``connect`` takes it), write the report; return the report's files."""
    folder = Path(folder)
    data, jobs = folder / "data", folder / "jobs"
    tables = make_demo_release(rows, seed)
    for name, table in tables.items():
        write_file(data / f"{name}.parquet", table.to_parquet(index=False))
    write_file(data / "k5.csv", mondrian(tables["original"], GROUPED_QUASI_IDENTIFIERS, "occupation", k=5, l=5).to_csv(index=False).encode())
    scores, outputs = [], []
    try:
        with connect(workers=workers, dashboard=dashboard) as client:
            for name, job in [*((f"demo-{level}", demo_job(level)) for level in LEVELS), ("demo-k5", k_anonymous_job())]:
                path = jobs / f"{name}.yaml"
                write_file(path, yaml.safe_dump(job, sort_keys=False).encode())
                spec = load_job(path)
                scores.append(run_job(spec, client=client, progress=progress))
                outputs.append(spec.output)
        return write_report(
            summarize(pd.concat(scores, ignore_index=True)),
            folder / "report",
            title="alc_dask demo: a weakly and a strongly anonymized release, and a 5-anonymous one",
            exposure=exposure_of_results(*outputs),
        )
    except KeyboardInterrupt as interrupt:
        raise counted_over_jobs(interrupt, sum(map(len, scores))) from None


def counted_over_jobs(interrupt: KeyboardInterrupt, finished: int) -> KeyboardInterrupt:
    """A Ctrl-C counted over the jobs the demo started: the ``finished`` scenarios of those it ended
    (resumed ones included) and, when it stopped one, that job's own count (of what it had left to
    do). ``run_job`` counts its job alone: a Ctrl-C in the second job said "13 of 26 done" with the
    first job's 26 saved too, and one during the report "no scenario done" with every scenario saved."""
    if isinstance(interrupt, Interrupted):
        return Interrupted(finished + interrupt.done, finished + interrupt.total)
    return Interrupted(finished, finished) if finished else interrupt
