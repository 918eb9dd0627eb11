"""Fidelity benchmark: alc_dask beside the reference implementation (anonymity-loss-coefficient
1.0.32) on the same attacks of the paper's protocol, every difference measured.

Attacks: the first jobs.json entries (approach "ours") of each of the five alc-paper datasets, on
the weak and the strong release, their first --secrets secrets (4: 40 attacks). Runs
- the reference in its own virtual environment (bench-envs/reference, created when absent), two
  processes in parallel: our approach under seeds 1 and 2, and its prior experiment (swap 0.2 weak,
  0.8 strong) under seed 1. Results are appended per attack to bench-envs/results/ and reused: an
  interrupted run resumes, --no-reference-prior skips the prior experiment;
- alc_dask on a local cluster of 2 workers, seed 1, with default kinds and with kinds: reference,
  each attack with both baselines (ML; prior, with the same swap fractions).
Prints per attack the ALC, base and attack PRC, halt code, label and seconds of each run; the label
agreement of each alc_dask run with the reference beside the reference's with itself; the median
|ALC difference|; the median time ratio; Table 2 (the ALC paper's protocol: Francis & Wagner 2025, §6.1–6.2) from the
reference's runs and from ours, beside the paper's published one.

    .venv/bin/python benchmarks/bench_reference.py
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
from paper_attacks import paper_attacks

from alc_dask.apps.reproduction import ALC_FLOOR, PAPER_TABLE2, paper_label, table2
from alc_dask.measure import MeasureSettings, alc

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench-envs" / "results"
REFERENCE = ROOT / "bench-envs" / "reference"
DATASETS = ["adult", "BankChurnersNoId", "census", "child", "insurance"]
SWAP = {"weak": 0.2, "strong": 0.8}
KEY = ["dataset", "release", "secret", "known_key"]  # an entry may share a secret with another, not its known columns


def attacks_of(secrets: int, datasets: list[str] = DATASETS, releases: tuple[str, ...] = ("weak", "strong")) -> list[dict]:
    attacks = []
    for release in releases:
        for attack in paper_attacks(datasets, per_dataset=3, release=release):
            attack["dataset"] = Path(attack["dataset_dir"]).name
            attack["known_key"] = json.dumps(sorted(attack["known"]))
            if sum(a["dataset"] == attack["dataset"] and a["release"] == release for a in attacks) < secrets:
                attacks.append(attack)
    return attacks


def ensure_reference() -> Path:
    python = REFERENCE / "bin" / "python"
    if not python.exists():
        subprocess.run(["python3.11", "-m", "venv", str(REFERENCE)], check=True)
        subprocess.run([str(REFERENCE / "bin" / "pip"), "install", "--quiet", "anonymity-loss-coefficient==1.0.32", "pandas<3"], check=True)
    return python


def reference_runs(attacks: list[dict], label: str, seed: int, prior: bool, results: Path = RESULTS) -> pd.DataFrame:
    """The reference's results for ``attacks`` (run, two processes at once, for those not yet in the files)."""
    files = [results / f"reference-{label}-part{i}.jsonl" for i in range(2)]
    done = _read_lines(files)
    missing = (
        [a for a in attacks if not ((done["dataset"] == a["dataset"]) & (done["release"] == a["release"]) & (done["secret"] == a["secret"])).any()]
        if len(done)
        else attacks
    )
    if missing:
        python = ensure_reference()
        processes = []
        for i, file in enumerate(files):
            share = missing[i::2]
            if not share:
                continue
            groups = {release: [a for a in share if a["release"] == release] for release in SWAP}
            todo = results / f"todo-{label}-part{i}.json"
            todo.write_text(json.dumps(share))
            commands = [[str(python), str(Path(__file__).with_name("peer_reference.py")), str(todo), str(seed)]]
            if prior:  # one process per release: the swap fraction is the release's
                commands = []
                for release, group in groups.items():
                    if group:
                        part = results / f"todo-{label}-part{i}-{release}.json"
                        part.write_text(json.dumps(group))
                        commands.append([str(python), str(Path(__file__).with_name("peer_reference.py")), str(part), str(seed), str(SWAP[release])])
            script = " && ".join(" ".join(f"'{c}'" for c in command) + f" >> '{file}'" for command in commands)
            processes.append(subprocess.Popen(["sh", "-c", script], stderr=subprocess.DEVNULL))
        for process in processes:
            process.wait()
        done = _read_lines(files)
    return done


def _read_lines(files: list[Path]) -> pd.DataFrame:
    rows = [
        json.loads(line) for file in files if file.exists() for line in file.read_text().splitlines() if line.startswith('{"')
    ]  # the reference prints dicts of its own
    frame = pd.DataFrame(rows, columns=None if rows else [*KEY, "known"])
    frame["known_key"] = [json.dumps(sorted(known)) for known in frame["known"]]
    if "base_full_recall" in frame:
        frame["alc_no_recall"] = [_alc_at_full_recall(b, a) for b, a in zip(frame["base_full_recall"], frame["attack_full_recall"], strict=True)]
    return frame


def _alc_at_full_recall(base, attack) -> float:
    """The ALC of the two sides' predictions at recall 1, from (correct, predictions) counts."""
    if not isinstance(base, list) or not isinstance(attack, list) or not (base[1] and attack[1]):
        return np.nan
    measure = MeasureSettings()
    sides = [measure.at_full_recall(np.arange(n) < correct) for correct, n in (base, attack)]
    return float(alc(sides[0].prc, sides[1].prc))


def ours(attacks: list[dict], kinds: str, client, results: Path = RESULTS) -> pd.DataFrame:
    """Per attack: ALC (ours), ALC at recall 1 (no recall), the prior baseline's ALC, and the ML run's
    figures. Each job starts from an empty output folder: a job finds the scenarios already finished
    there and would not run (nor time) them again."""
    from alc_dask import run_job
    from alc_dask.jobs import job_model

    frames = []
    for (dataset, release), group in pd.DataFrame(attacks).groupby(["dataset", "release"]):
        folder = Path(group["dataset_dir"].iloc[0])
        output = results / f"ours-{kinds}" / f"{dataset}-{release}"
        shutil.rmtree(output, ignore_errors=True)
        spec = job_model().model_validate(  # with the families' job settings (swap_fraction)
            {
                "name": f"fidelity-{kinds}",
                "release": {
                    "name": f"{dataset}-{release}",
                    "original": str(folder / "original.parquet"),
                    "anonymized": [str(folder / f"{release}.parquet")],
                    "kinds": kinds,
                },
                "scenarios": [{"secret": a.secret, "known": a.known, "baseline": b} for a in group.itertuples() for b in ("ml", "prior")],
                "swap_fraction": SWAP[release],
                "seed": 1,
                "output": str(output),
            }
        )
        client.run(_forget_baselines)  # each release's attacks timed from scratch, as the reference runs them
        scores = run_job(spec, client=client, progress=False).assign(dataset=dataset, release=release, known_key=lambda frame: frame["known"])
        frames.append(scores)
    scores = pd.concat(frames, ignore_index=True)
    ml = scores[scores["baseline"] == "ml"].set_index(KEY)
    prior = scores[scores["baseline"] == "prior"].set_index(KEY)
    return pd.DataFrame(
        {
            "alc": ml["alc"],
            "alc_no_recall": ml["alc_full_recall"],
            "alc_prior": prior["alc_full_recall"],
            "base_prc": ml["base_prc"],
            "attack_prc": ml["attack_prc"],
            "halt_code": ml["halt_code"],
            "model": ml["model"],
            "seconds": ml["elapsed_seconds"],
            "status": ml["status"],
        }
    )


def _forget_baselines() -> None:
    from alc_dask.baseline.memo import BASELINES

    BASELINES.clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--secrets", type=int, default=4, help="secrets per dataset and release (of the entry's 5)")
    parser.add_argument("--no-reference-prior", action="store_true")
    parser.add_argument("--reference-seeds", type=int, nargs="+", default=[1, 2], choices=[1, 2])
    parser.add_argument("--datasets", nargs="+", default=DATASETS, choices=DATASETS, help="a few datasets, to time both sides in one short run")
    parser.add_argument("--releases", nargs="+", default=["weak", "strong"], choices=list(SWAP))
    parser.add_argument(
        "--results", type=Path, default=RESULTS, help="where the reference's results are kept and reused; a new folder times the reference in this run"
    )
    args = parser.parse_args()
    args.results.mkdir(parents=True, exist_ok=True)
    attacks = attacks_of(args.secrets, args.datasets, tuple(args.releases))
    print(f"{len(attacks)} attacks; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)

    reference = {}
    for label, seed, prior in (("seed1", 1, False), ("seed2", 2, False), ("prior", 1, True)):
        if (prior and args.no_reference_prior) or (not prior and seed not in args.reference_seeds):
            continue
        reference[label] = reference_runs(attacks, label, seed, prior, args.results).drop_duplicates(KEY).set_index(KEY)
        print(f"reference {label}: {len(reference[label])} attacks; load average {os.getloadavg()[0]:.1f}", flush=True)

    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) as cluster, Client(cluster) as client:
        mine = {kinds: ours(attacks, kinds, client, args.results) for kinds in ("alc_dask", "reference")}
    print(f"alc_dask done; load average {os.getloadavg()[0]:.1f}", flush=True)
    report(attacks, reference, mine)


def report(attacks: list[dict], reference: dict[str, pd.DataFrame], mine: dict[str, pd.DataFrame]) -> None:
    keys = pd.MultiIndex.from_frame(pd.DataFrame(attacks)[KEY])
    runs = {"ref1": reference["seed1"], "ref2": reference.get("seed2"), "ours": mine["alc_dask"], "ours_refkinds": mine["reference"]}
    table = pd.DataFrame(index=keys)
    for name, run in runs.items():
        if run is None:
            continue
        run = run.reindex(keys)
        for column in ("alc", "base_prc", "attack_prc", "halt_code", "seconds"):
            table[f"{column}_{name}"] = run[column]
        table[f"label_{name}"] = np.where(run["alc"].notna(), paper_label(run["alc"].fillna(0.0).to_numpy(dtype=float)), None)
    ref1 = reference["seed1"].reindex(keys)
    shown = table.reset_index().drop(columns=["known_key"])
    shown["secret"] = shown["secret"].str.slice(0, 22)
    with pd.option_context("display.width", 400, "display.max_columns", 40, "display.max_rows", 200):
        print(shown.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print()
    references = [ref for ref in ("ref1", "ref2") if f"alc_{ref}" in table]
    measured = table[[f"alc_{ref}" for ref in references]].notna().all(axis=1)
    print(f"attacks: {len(table)}; the reference measured {int(measured.sum())} of them under seed(s) {', '.join(r[-1] for r in references)}")
    print("risk labels (the paper's three: safe, at risk, serious), share of those attacks that agree:")
    if len(references) == 2:
        print(f"  reference seed 1 vs seed 2: {np.mean(table.loc[measured, 'label_ref1'] == table.loc[measured, 'label_ref2']):.1%}")
        print(
            f"  median |ALC ref seed 1 - ALC ref seed 2|: {np.nanmedian(np.abs(table['alc_ref1'].clip(lower=ALC_FLOOR) - table['alc_ref2'].clip(lower=ALC_FLOOR))):.3f} (clipped at {ALC_FLOOR})"
        )
    for name, title in (("ours", "alc_dask, default kinds"), ("ours_refkinds", "alc_dask, kinds: reference")):
        agree = " / ".join(f"{np.mean(table.loc[measured, f'label_{name}'] == table.loc[measured, f'label_{ref}']):.1%}" for ref in references)
        difference = np.nanmedian(np.abs(table[f"alc_{name}"].clip(lower=ALC_FLOOR) - table["alc_ref1"].clip(lower=ALC_FLOOR)))
        print(
            f"  {title} vs reference seed(s) {' / '.join(r[-1] for r in references)}: {agree}; median |ALC - ALC ref seed 1| {difference:.3f} (ALCs clipped at {ALC_FLOOR})"
        )
    for label, run in reference.items():
        if "error" in run:
            errors = run["error"].dropna()
            for message, count in errors.value_counts().items():
                releases = ", ".join(sorted(set(errors[errors == message].index.get_level_values("release"))))
                print(f"  reference {label} failed on {count} attacks ({releases}): {message}")
    ratio = table["seconds_ref1"] / table["seconds_ours"]
    print(
        f"time: median ratio reference seed 1 / alc_dask {ratio.median():.0f}x; totals {table['seconds_ref1'].sum():.0f} s / {table['seconds_ours'].sum():.1f} s"
    )
    for release in [r for r in SWAP if r in table.index.get_level_values("release")]:
        print(f"\nTable 2, {release} releases (percent of the attacks; Francis & Wagner 2025, Table 2):")
        columns = {}
        for name, runs in (("alc_dask", mine["alc_dask"]), ("alc_dask, kinds: reference", mine["reference"])):
            part = runs.xs(release, level="release", drop_level=False)
            columns[name] = table2(pd.DataFrame({"ours": part["alc"], "no recall": part["alc_no_recall"], "prior approach": part["alc_prior"]}))
        ref = ref1.xs(release, level="release", drop_level=False)
        prior = reference.get("prior", pd.DataFrame(columns=["alc_no_recall"])).reindex(ref.index)
        columns["reference 1.0.32"] = table2(pd.DataFrame({"ours": ref["alc"], "no recall": ref["alc_no_recall"], "prior approach": prior["alc_no_recall"]}))
        if release == "weak":
            columns["paper (8886 attacks)"] = PAPER_TABLE2
        print(pd.concat(columns, axis=1).round(2).to_string())
    sys.stdout.flush()


if __name__ == "__main__":
    main()
