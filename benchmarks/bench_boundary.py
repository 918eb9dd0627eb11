"""Fidelity at the risk boundary: alc_dask beside the reference implementation
(anonymity-loss-coefficient 1.0.32) on releases it calls at risk and serious, and the reference
beside itself.

Tables: 10 000 rows sampled (seed 0) from adult, insurance, census and BankChurners, and tx2019
(9 276 rows, shuffled) in ../shared/data; releases of each: an exact copy and copies with 5%, 20%
and 80% of every column's values swapped between rows; attacks: four categorical secrets per table
(from a common one to one ~96% of rows share), each with three to five known columns drawn at
random (seed 0), on every release: 80 attacks; and adult again (``adult_identifying``) with six
secrets each attacked from the three numbers that nearly single a person out: 24 attacks more.

The reference runs in its own virtual environment (bench-envs/reference, created when absent),
one process, twice: seed 1 on the file's row order, and seed 2 on the original's rows shuffled (it
attacks the first rows of its file and does not seed every model, so this is its agreement with
itself). Each attack's result is appended to benchmarks/boundary/reference-<run>.jsonl as it
finishes and reused: the reference needs minutes per attack, a run resumes where it stopped, and
``--reference-only`` runs just that part (in the background, for hours). alc_dask runs its default
job on a local cluster of 2 single-threaded workers.

Prints per attack both tools' ALC, base and attack PRC, labels and seconds, then the agreement of
the labels (binary: at risk or not; three-level: the paper's safe / at risk / serious) of alc_dask
with the reference beside the reference's with itself, on the attacks the reference calls at risk
and on those it calls safe (and the difference of the two with a bootstrap interval over attacks),
alc_dask's agreement where the reference agrees with itself, the attacks where they disagree most
(serious vs safe), and the median per-attack time ratio.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_boundary.py
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from alc_dask.anonymize.swap import swap_frame
from alc_dask.apps.reproduction import ALC_FLOOR, paper_label

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
WORK = ROOT / "bench-envs" / "boundary"
RESULTS = Path(__file__).with_name("boundary")
REFERENCE = ROOT / "bench-envs" / "reference"
ROWS = 10_000
TABLES = {
    "adult": ("alc-paper/adult/original.parquet", ["education", "marital-status", "workclass", "race"]),
    "insurance": ("alc-paper/insurance/original.parquet", ["ILiCost", "MedCost", "ThisCarCost", "Age"]),
    "tx2019": ("tx2019/original.csv", ["DEAR", "EDU", "MSP", "OWN_RENT"]),
    "census": ("alc-paper/census/original.parquet", ["sex", "marital stat", "class of worker", "tax filer stat"]),
    "bankchurners": ("alc-paper/BankChurnersNoId/original.parquet", ["Gender", "Marital_Status", "Income_Category", "Education_Level"]),
    "adult_identifying": ("alc-paper/adult/original.parquet", ["occupation", "relationship", "sex", "label", "marital-status", "education"]),
}
IDENTIFYING_KNOWN = {"adult_identifying": ["age", "fnlwgt", "hours-per-week"]}
"""Tables whose secrets are all attacked from the same known columns instead of random ones: adult's
numbers, which nearly single a person out (fnlwgt alone holds 20 423 values in 32 561 rows), so
that copies and light swaps are at risk for the reference and the boundary is crossed often enough."""
RELEASES = {"copy": 0.0, "swap_05": 0.05, "swap_20": 0.2, "swap_80": 0.8}
REFERENCE_RUNS = {"seed1": {"seed": 1}, "seed2_shuffled": {"seed": 2, "shuffle": 2}}
KEY = ["table", "release", "secret"]
# secrets the reference needs up to an hour per attack on (logistic regression on a wide one-hot;
# BankChurners' first attack ran past 10 CPU minutes): listed last, so that a partial run of the
# reference covers the most attacks
SLOW_FOR_REFERENCE = {("tx2019", "EDU"), ("tx2019", "MSP"), *(("bankchurners", s) for s in ("Gender", "Marital_Status", "Income_Category", "Education_Level"))}


def prepare() -> list[dict]:
    """Write each table's sample and releases (once: they are deterministic) and list the attacks,
    at-risk releases first and the reference's slowest attacks last, so that a partial reference
    run covers the most at-risk attacks."""
    attacks = []
    rng = np.random.default_rng(0)
    for table, (path, secrets) in TABLES.items():
        folder = WORK / table
        source = SHARED / path
        original = pd.read_parquet(source) if path.endswith(".parquet") else pd.read_csv(source)
        original = original.sample(min(ROWS, len(original)), random_state=0).reset_index(drop=True)
        if not (folder / "swap_80.parquet").exists():
            folder.mkdir(parents=True, exist_ok=True)
            original.to_parquet(folder / "original.parquet")
            for release, fraction in RELEASES.items():
                released = original.sample(frac=1.0, random_state=1) if fraction == 0 else swap_frame(original, fraction, seed=1)
                released.to_parquet(folder / f"{release}.parquet")
        for i, secret in enumerate(secrets):
            others = [c for c in original.columns if c != secret]
            known = IDENTIFYING_KNOWN.get(table) or sorted(rng.choice(others, size=3 + i % 3, replace=False).tolist())
            attacks += [{"table": table, "dataset_dir": str(folder), "release": release, "secret": secret, "known": known} for release in RELEASES]
    order = {release: i for i, release in enumerate(RELEASES)}
    return sorted(attacks, key=lambda a: ((a["table"], a["secret"]) in SLOW_FOR_REFERENCE, order[a["release"]], a["table"], a["secret"]))


def reference_run(attacks: list[dict], run: str, resume: bool = True) -> pd.DataFrame:
    """The reference's results of ``run`` for ``attacks``, running those not yet in its file (unless not ``resume``)."""
    file = RESULTS / f"reference-{run}.jsonl"
    done = _read(file)
    missing = [a for a in attacks if not len(done) or not ((done[KEY] == pd.Series({k: a[k] for k in KEY})).all(axis=1)).any()]
    if missing and resume:
        python = REFERENCE / "bin" / "python"
        if not python.exists():
            subprocess.run(["python3.11", "-m", "venv", str(REFERENCE)], check=True)
            subprocess.run([str(REFERENCE / "bin" / "pip"), "install", "--quiet", "anonymity-loss-coefficient==1.0.32", "pandas<3"], check=True)
        todo = WORK / f"todo-{run}.json"
        todo.write_text(json.dumps([{**a, **({"shuffle": REFERENCE_RUNS[run]["shuffle"]} if "shuffle" in REFERENCE_RUNS[run] else {})} for a in missing]))
        with file.open("a") as out:
            subprocess.run(
                [str(python), str(Path(__file__).with_name("peer_reference.py")), str(todo), str(REFERENCE_RUNS[run]["seed"])],
                stdout=out,
                stderr=subprocess.DEVNULL,
                check=True,
            )
        done = _read(file)
    return done.drop_duplicates(KEY, keep="last").set_index(KEY)


def _read(file: Path) -> pd.DataFrame:
    rows = [json.loads(line) for line in file.read_text().splitlines() if line.startswith('{"')] if file.exists() else []
    return pd.DataFrame(rows, columns=None if rows else [*KEY, "alc"])


def ours(attacks: list[dict]) -> pd.DataFrame:
    """alc_dask's default job per release (an ML baseline per attack; every setting its default)."""
    from distributed import Client, LocalCluster

    from alc_dask import run_job
    from alc_dask.jobs import job_model

    frames = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) as cluster, Client(cluster) as client:
        for (table, release), group in pd.DataFrame(attacks).groupby(["table", "release"], sort=False):
            folder = Path(group["dataset_dir"].iloc[0])
            output = WORK / "ours" / f"{table}-{release}"
            shutil.rmtree(output, ignore_errors=True)
            spec = job_model().model_validate(
                {
                    "name": "boundary",
                    "release": {"name": f"{table}-{release}", "original": str(folder / "original.parquet"), "anonymized": [str(folder / f"{release}.parquet")]},
                    "scenarios": [{"secret": a.secret, "known": list(a.known)} for a in group.itertuples()],
                    "seed": 1,
                    "output": str(output),
                }
            )
            scores = run_job(spec, client=client, progress=False)
            frames.append(scores.assign(table=table, release=release))
    scores = pd.concat(frames, ignore_index=True)
    chosen = scores[["table", "release", "secret", "alc", "base_prc", "attack_prc", "halt_code", "model", "pairs", "elapsed_seconds"]]
    return chosen.rename(columns={"elapsed_seconds": "seconds"}).set_index(KEY)


def compare(attacks: list[dict], reference: dict[str, pd.DataFrame], mine: pd.DataFrame) -> pd.DataFrame:
    keys = pd.MultiIndex.from_frame(pd.DataFrame(attacks)[KEY])
    table = pd.DataFrame(index=keys)
    for name, run in {"ours": mine, **reference}.items():
        run = run.reindex(keys)
        for column in ("alc", "base_prc", "attack_prc", "halt_code", "seconds", "model", "pairs"):
            table[f"{column}_{name}"] = run[column] if column in run else None
        table[f"label_{name}"] = np.where(run["alc"].notna(), paper_label(run["alc"].fillna(0.0).to_numpy(dtype=float)), None)
    return table


def agreement(table: pd.DataFrame, a: str, b: str, among: pd.Series) -> str:
    both = among & table[f"label_{a}"].notna() & table[f"label_{b}"].notna()
    first, second = table.loc[both, f"label_{a}"], table.loc[both, f"label_{b}"]
    binary = np.mean((first != "safe") == (second != "safe"))
    exact = np.mean(first == second)
    return f"{binary:.0%} binary, {exact:.0%} three-level (n {int(both.sum())})"


def agreement_difference(table: pd.DataFrame, among: pd.Series, resamples: int = 10_000) -> str:
    """alc_dask's label agreement with the reference (seed 1) minus the reference's with itself
    (seed 2, rows shuffled), binary and three-level, each with a 95% percentile bootstrap interval
    over the attacks (seeded): on 22 attacks one attack is 4.5 points, so a point difference alone
    says little about which agrees more."""
    both = among & table[["label_ours", "label_seed1", "label_seed2_shuffled"]].notna().all(axis=1)
    reference, ours, again = (table.loc[both, f"label_{name}"].to_numpy() for name in ("seed1", "ours", "seed2_shuffled"))
    rng = np.random.default_rng(0)
    picks = rng.integers(0, len(reference), size=(resamples, len(reference)))
    shown = []
    for name, same in (("binary", lambda a, b: (a != "safe") == (b != "safe")), ("three-level", lambda a, b: a == b)):
        difference = same(ours, reference).astype(float) - same(again, reference).astype(float)
        low, high = np.percentile(difference[picks].mean(axis=1), [2.5, 97.5])
        shown.append(f"{name} {difference.mean():+.0%} [{low:+.0%}, {high:+.0%}]")
    return ", ".join(shown)


def report(table: pd.DataFrame) -> None:
    shown = table.reset_index()
    columns = ["table", "release", "secret"] + [f"{c}_{r}" for r in ("seed1", "seed2_shuffled", "ours") for c in ("alc", "base_prc", "attack_prc", "label")]
    columns += ["model_seed1", "model_ours", "halt_code_ours", "pairs_ours", "seconds_seed1", "seconds_ours"]
    with pd.option_context("display.width", 400, "display.max_columns", 40, "display.max_rows", 200):
        print(shown[[c for c in columns if c in shown]].to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    measured = table["label_seed1"].notna()
    at_risk = measured & (table["label_seed1"] != "safe")
    print(f"\nattacks: {len(table)}; measured by the reference (seed 1): {int(measured.sum())}, of them at risk or serious: {int(at_risk.sum())}")
    for name, among in (
        ("at risk or serious for the reference (seed 1)", at_risk),
        ("safe for the reference (seed 1)", measured & ~at_risk),
        ("all", measured),
    ):
        print(f"label agreement on the attacks {name}:")
        print(f"  reference seed 1 vs reference seed 2, rows shuffled: {agreement(table, 'seed1', 'seed2_shuffled', among)}")
        print(f"  alc_dask vs reference seed 1:                        {agreement(table, 'ours', 'seed1', among)}")
        print(f"  alc_dask vs reference seed 2, rows shuffled:         {agreement(table, 'ours', 'seed2_shuffled', among)}")
        print(f"  alc_dask's agreement minus the reference's with itself: {agreement_difference(table, among)}")
    settled = measured & (table["label_seed1"] == table["label_seed2_shuffled"])
    print(f"where both reference runs give the same three-level label, alc_dask agrees: {agreement(table, 'ours', 'seed1', settled)}")
    clipped = {name: table[f"alc_{name}"].clip(lower=ALC_FLOOR) for name in ("ours", "seed1", "seed2_shuffled")}
    print(
        f"median |ALC difference| (clipped at {ALC_FLOOR}): alc_dask vs seed 1 {np.nanmedian(np.abs(clipped['ours'] - clipped['seed1'])):.3f}, "
        f"seed 1 vs seed 2 shuffled {np.nanmedian(np.abs(clipped['seed1'] - clipped['seed2_shuffled'])):.3f}"
    )
    serious_safe = table[(table["label_seed1"] == "serious") & (table["label_ours"] == "safe")]
    stronger_base = table[(table["label_seed1"] == "safe") & (table["label_ours"] != "safe") & (table["base_prc_seed1"] > table["base_prc_ours"])]
    print(f"serious for the reference (seed 1), safe for alc_dask: {len(serious_safe)}")
    print(f"safe for the reference (seed 1) with a higher base PRC, at risk for alc_dask: {len(stronger_base)}")
    for title, rows in (("serious vs safe", serious_safe), ("higher reference base, at risk in alc_dask", stronger_base)):
        for key, row in rows.iterrows():
            print(
                f"  {title}: {key}: reference ALC {row['alc_seed1']:.3f} (base {row['base_prc_seed1']:.3f}, attack {row['attack_prc_seed1']:.3f}); "
                f"alc_dask {row['alc_ours']:.3f} (base {row['base_prc_ours']:.3f}, attack {row['attack_prc_ours']:.3f})"
            )
    ratio = (table["seconds_seed1"] / table["seconds_ours"]).dropna()
    print(f"time per attack: median ratio reference seed 1 / alc_dask {ratio.median():.0f}x over {len(ratio)} attacks (minimum {ratio.min():.0f}x)")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference-only", action="store_true", help="run (or resume) the reference's runs and stop")
    parser.add_argument("--runs", nargs="+", default=list(REFERENCE_RUNS), choices=list(REFERENCE_RUNS))
    parser.add_argument("--tables", nargs="+", default=list(TABLES), choices=list(TABLES), help="the tables whose attacks run (default: every one)")
    parser.add_argument(
        "--measured-only", action="store_true", help="compare on the attacks both reference runs have measured so far, running neither (alc_dask runs them all)"
    )
    args = parser.parse_args()
    RESULTS.mkdir(exist_ok=True)
    attacks = [a for a in prepare() if a["table"] in args.tables]
    print(f"{len(attacks)} attacks; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    reference = {run: reference_run(attacks, run, resume=not args.measured_only) for run in args.runs}
    if args.reference_only:
        return
    if args.measured_only:
        measured = set.intersection(*(set(run.index) for run in reference.values()))
        attacks = [a for a in attacks if (a["table"], a["release"], a["secret"]) in measured]
        print(f"{len(attacks)} attacks measured by every reference run so far", flush=True)
    report(compare(attacks, reference, ours(attacks)))


if __name__ == "__main__":
    main()
