"""Relative threat of k-anonymous and Anatomy releases of adult (Boreale et al. 2020, §VI: "the
paper" below), and the chains' speed.

Part 1 (``--tables``, needs ../shared/data): 5692 rows drawn (seeded) from the adult original of the
ALC paper's data, rows with an unknown value ("?") left out, with the paper's attributes: sex, age, race,
marital status, education, native country, workclass, salary (``label``) as quasi-identifiers and
occupation (14 values) sensitive. Four releases are made with ``alc_dask.anonymize``: Mondrian
with k = ℓ = 4 and 6, Anatomy with ℓ = 4 and 6. Each is evaluated by a job on a LocalCluster of
two single-threaded workers: the ``relative_threat`` family (the paper's 100 000 sweeps, 50 000
burn-in, two chains, each on its own worker) and the ALC of the ``bayesian_group`` attack against
the ML baseline on every original row. Prints a table shaped like the paper's Tables IV and V beside
its figures.

Part 2 (``--speed``): one chain of --iterations sweeps on each release, in this process on one
core (Numba compiled beforehand), seconds per chain (wall and CPU).

    .venv/bin/python benchmarks/bench_relative_threat.py --tables --speed
"""

import argparse
import os
import time
from pathlib import Path

import pandas as pd
import yaml

ADULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "alc-paper" / "adult" / "original.parquet"
DATA = Path(__file__).resolve().parents[1] / "bench-data" / "relative-threat"
QUASI_IDENTIFIERS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "label"]
SENSITIVE = "occupation"
ROWS = 5692
RELEASES = [("mondrian", 4), ("mondrian", 6), ("anatomy", 4), ("anatomy", 6)]
PAPER = {  # Boreale et al. 2020, Tables IV and V
    ("mondrian", 4): {
        "gt_attacker": 0.2930,
        "gt_learner": 0.2681,
        "gt_random_worlds": 0.2131,
        "rgt_attacker": 0.0249,
        "faithfulness": 0.3106,
        "abs_attacker": 9795.58,
        "abs_random_worlds": 9980.35,
    },
    ("mondrian", 6): {
        "gt_attacker": 0.2994,
        "gt_learner": 0.2756,
        "gt_random_worlds": 0.2890,
        "rgt_attacker": 0.0232,
        "faithfulness": 0.3011,
        "abs_attacker": 9699.09,
        "abs_random_worlds": 9451.53,
    },
    ("anatomy", 4): {
        "gt_attacker": 0.3273,
        "gt_learner": 0.2653,
        "gt_random_worlds": 0.1669,
        "rgt_attacker": 0.0620,
        "faithfulness": 0.6493,
        "abs_attacker": 8391.66,
        "abs_random_worlds": 9471.94,
    },
    ("anatomy", 6): {
        "gt_attacker": 0.2396,
        "gt_learner": 0.2136,
        "gt_random_worlds": 0.1689,
        "rgt_attacker": 0.0260,
        "faithfulness": 0.5341,
        "abs_attacker": 9276.25,
        "abs_random_worlds": 9889.07,
    },
}
PAPER_ACCURACY = {"baseline_accuracy": 0.1656, "ideal_accuracy": 0.3534}
SHOWN = [
    "gt_attacker",
    "gt_learner",
    "gt_random_worlds",
    "rgt_attacker",
    "faithfulness",
    "abs_attacker",
    "abs_random_worlds",
    "baseline_accuracy",
    "ideal_accuracy",
    "ti_max",
    "ti_doubled_share",
]


def adult_sample() -> pd.DataFrame:
    original = pd.read_parquet(ADULT, columns=[*QUASI_IDENTIFIERS, SENSITIVE])
    known = original[~original.astype(str).apply(lambda c: c.str.strip().eq("?")).any(axis=1)]
    return known.sample(ROWS, random_state=0).reset_index(drop=True)


def write_releases(sample: pd.DataFrame) -> dict[tuple[str, int], dict]:
    """Each release's files, and its ``release.grouped`` entry of a job."""
    from alc_dask.anonymize import anatomize, mondrian

    DATA.mkdir(parents=True, exist_ok=True)
    sample.to_csv(DATA / "original.csv", index=False)
    grouped = {}
    for scheme, level in RELEASES:
        if scheme == "mondrian":
            mondrian(sample, QUASI_IDENTIFIERS, SENSITIVE, k=level, l=level).to_csv(DATA / f"k{level}.csv", index=False)
            grouped[scheme, level] = {
                "scheme": "generalized",
                "table": str(DATA / f"k{level}.csv"),
                "sensitive": SENSITIVE,
                "group": "group",
                "k": level,
                "l": level,
            }
        else:
            quasi, sensitive = anatomize(sample, QUASI_IDENTIFIERS, SENSITIVE, l=level, seed=0)
            quasi.to_csv(DATA / f"anatomy{level}-qit.csv", index=False)
            sensitive.to_csv(DATA / f"anatomy{level}-st.csv", index=False)
            grouped[scheme, level] = {
                "scheme": "anatomy",
                "table": str(DATA / f"anatomy{level}-qit.csv"),
                "sensitive_table": str(DATA / f"anatomy{level}-st.csv"),
                "sensitive": SENSITIVE,
                "group": "group",
                "count": "count",
                "l": level,
            }
    return grouped


def job_file(name: str, grouped: dict, iterations: int, burn_in: int) -> Path:
    chain = {"iterations": iterations, "burn_in": burn_in, "thin": 100, "chains": 2}
    job = {
        "name": name,
        "release": {"name": name, "original": str(DATA / "original.csv"), "grouped": grouped},
        "scenarios": [
            {"family": "relative_threat", **chain},
            {"secret": SENSITIVE, "known": QUASI_IDENTIFIERS, "attack": {"name": "bayesian_group", "params": chain}},
        ],
        "baselines": ["ml"],
        "seed": 0,
        "output": str(DATA / "out" / name),
    }
    path = DATA / f"{name}.yaml"
    path.write_text(yaml.safe_dump(job, sort_keys=False))
    return path


def tables(iterations: int, burn_in: int) -> None:
    from distributed import Client, LocalCluster

    from alc_dask import run_job

    grouped = write_releases(adult_sample())
    rows, alcs = {}, {}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, Client(cluster) as client:
        for key, entry in grouped.items():
            name = f"{key[0]}-{key[1]}"
            started = time.perf_counter()
            scores = run_job(job_file(name, entry, iterations, burn_in), client=client, progress=False)
            seconds = time.perf_counter() - started
            failed = scores[scores["status"] != "ok"]
            if len(failed):
                raise SystemExit(f"{name}: {failed['error'].tolist()}")
            threat = scores[scores["family"] == "relative_threat"].iloc[0]
            attack = scores[scores["family"] == "alc"].iloc[0]
            rows[key] = threat
            alcs[key] = attack
            print(
                f"{name}: {seconds:.1f} s wall; groups {threat['n_groups']} (mean size {threat['mean_group_size']:.1f}); "
                f"slowest chain {threat['chain_seconds']:.1f} s, chains on {threat['chain_workers']} workers; "
                f"R-hat max {threat['rhat_max']:.3f}, Geweke outside {threat['geweke_outside']:.1%}, converged {threat['converged']}"
            )
    print()
    header = "| measure | " + " | ".join(f"{s} {'k = ℓ' if s == 'mondrian' else 'ℓ'} = {level}: ours / paper" for s, level in RELEASES) + " |"
    print(header)
    print("|---" * (len(RELEASES) + 1) + "|")
    for measure in SHOWN:
        cells = []
        for key in RELEASES:
            ours = rows[key][measure]
            paper = PAPER[key].get(measure, PAPER_ACCURACY.get(measure))
            cells.append(f"{ours:.4g} / {paper:.4g}" if paper is not None else f"{ours:.4g}")
        print(f"| {measure} | " + " | ".join(cells) + " |")
    for label, column in (("ALC (bayesian_group vs ML baseline)", "alc"), ("attack precision", "attack_precision"), ("base precision", "base_precision")):
        print(f"| {label} | " + " | ".join(f"{alcs[key][column]:.3f}" for key in RELEASES) + " |")
    print("| risk (ALC family) | " + " | ".join(str(alcs[key]["risk"]) for key in RELEASES) + " |")


def speed(iterations: int, burn_in: int) -> None:
    from alc_dask.data import Release
    from alc_dask.families.relative_threat.group_posterior import ChainSettings, run_chain
    from alc_dask.jobs.spec import GroupedSpec

    grouped = write_releases(adult_sample())
    warm = ChainSettings(iterations=200, burn_in=100, thin=10)
    for key, entry in grouped.items():
        release = Release.load(DATA / "original.csv", [], grouped=GroupedSpec(**entry))
        run_chain(release.grouped, warm, 0)  # compiled (or read from Numba's cache) before timing
        cpu = time.process_time()
        chain = run_chain(release.grouped, ChainSettings(iterations=iterations, burn_in=burn_in, thin=100), 1)
        cpu = time.process_time() - cpu  # on a shared machine, the wall time also counts other processes' turns
        acceptance = f", swap acceptance {chain.acceptance:.1%}" if chain.acceptance is not None else ""
        print(f"{key[0]} {key[1]}: one chain of {iterations} sweeps in {chain.seconds:.1f} s ({cpu:.1f} s CPU) on one core{acceptance}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", action="store_true")
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--iterations", type=int, default=100_000)
    parser.add_argument("--burn-in", type=int, default=50_000)
    args = parser.parse_args()
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    if args.tables:
        tables(args.iterations, args.burn_in)
    if args.speed:
        speed(args.iterations, args.burn_in)


if __name__ == "__main__":
    main()
