"""The paper's experiment, timed: `alc-dask paper run jobs/paper/*.yaml` by this checkout and by
an earlier commit, on the same attacks, side by side.

Each side runs in its own process with its own code (the earlier commit is exported to
bench-envs/code-<commit>/), writing to bench-data/paper-<side>/ (resumed when present). Prints
per side the wall time, the distribution of scenario seconds (median, p90, p99, max, overall and
per baseline) and the scenarios over 10 s; then, on the scenarios both sides ran, the change of
the base PRC (after - before) and of the ALC, the share of risk labels kept, and the scenarios whose
base PRC is below the most-common-value floor; and the equivalence figures of a change of scores
(issue rule: ≥ 99% of headlines within the earlier interval or the intervals overlapping, ≥ 99% of
labels kept, Table 2 with the same conclusions): the ALC with its interval as the verdict judges it
(``AlcFamily.headline_interval``), the four labels and the paper's three, and Table 2 of both sides.

    .venv/bin/python benchmarks/bench_paper.py --before 9ac1e36            # the jobs' sample
    .venv/bin/python benchmarks/bench_paper.py --sides after --all          # every attack, this checkout only

``--after-settings JSON`` merges job settings into the after side's copies of the jobs (e.g. other
baseline candidates), and ``--folders BEFORE AFTER`` names the sides' folders (default ``before``
and ``after``): so an earlier run of this checkout, kept as ``after``, can be the before side of a
run with other settings:

    .venv/bin/python benchmarks/bench_paper.py --before <this commit> --all --folders after no-forests \\
        --after-settings '{"baseline_settings": {"candidates": ["majority", "one_to_one", "logistic_regression", "hist_gradient_boosting"]}}'
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import yaml

from alc_dask.apps.reproduction import our_keys, paper_label, release_dataset_strength, table2
from alc_dask.cli import EXIT_SCENARIOS_FAILED
from alc_dask.families.alc.family import AlcFamily
from alc_dask.results import read_scores

ROOT = Path(__file__).resolve().parents[1]
JOBS = sorted((ROOT / "jobs" / "paper").glob("*.yaml"))
SLOW_SECONDS = 10.0


def code_of(commit: str | None) -> Path:
    """The package source of ``commit`` (None: this checkout)."""
    if commit is None:
        return ROOT
    target = ROOT / "bench-envs" / f"code-{commit}"
    if not target.exists():
        target.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "alc_dask"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def job_copies(side: str, settings: dict) -> list[Path]:
    """The paper's job files with absolute data paths, ``settings`` merged in (a mapping setting
    merged key by key), and their output under bench-data/paper-<side>/."""
    folder = ROOT / "bench-data" / f"paper-{side}"
    (folder / "jobs").mkdir(parents=True, exist_ok=True)
    copies = []
    for job in JOBS:
        spec = yaml.safe_load(job.read_text())
        for name, value in settings.items():
            spec[name] = {**spec.get(name, {}), **value} if isinstance(value, dict) else value
        here = job.parent
        spec["release"]["original"] = str((here / spec["release"]["original"]).resolve())
        spec["release"]["anonymized"] = [str((here / path).resolve()) for path in spec["release"]["anonymized"]]
        for scenario in spec["scenarios"]:
            if "jobs_file" in scenario:
                scenario["jobs_file"] = str((here / scenario["jobs_file"]).resolve())
        spec["output"] = str(folder / "out" / job.stem)
        copy = folder / "jobs" / job.name
        copy.write_text(yaml.safe_dump(spec, sort_keys=False))
        copies.append(copy)
    return copies


def run_side(side: str, commit: str | None, everything: bool, workers: int, settings: dict) -> float:
    """Wall seconds of the side's paper run (its results resume, so a finished side costs seconds)."""
    command = [str(Path(sys.executable).parent / "alc-dask"), "paper", "run", *map(str, job_copies(side, settings)), "--workers", str(workers)]
    if everything:
        command.append("--all")
    environment = {**os.environ, "PYTHONPATH": str(code_of(commit))}
    start = time.perf_counter()
    finished = subprocess.run(command, env=environment, cwd=ROOT / "bench-data")
    if finished.returncode not in (0, EXIT_SCENARIOS_FAILED):  # failed scenarios are reported with the scores
        raise SystemExit(f"the {side} side's paper run stopped with exit code {finished.returncode}")
    return time.perf_counter() - start


def scores_of(side: str) -> pd.DataFrame:
    folder = ROOT / "bench-data" / f"paper-{side}" / "out"
    frames = [read_scores(path).assign(job=path.name) for path in sorted(folder.iterdir())]
    scores = pd.concat(frames, ignore_index=True)
    failed = scores[scores["status"] == "failed"]
    for error, count in failed["error"].value_counts().items():
        print(f"{side}: {count} scenarios failed: {error}")
    return scores[scores["status"] == "ok"]


def seconds_table(scores: pd.DataFrame) -> pd.DataFrame:
    def summary(seconds: pd.Series) -> pd.Series:
        q = seconds.quantile([0.5, 0.9, 0.99, 1.0]).to_numpy()
        return pd.Series(
            {
                "scenarios": len(seconds),
                "median": q[0],
                "p90": q[1],
                "p99": q[2],
                "max": q[3],
                "sum": seconds.sum(),
                f"over {SLOW_SECONDS:.0f} s": int((seconds > SLOW_SECONDS).sum()),
            }
        )

    rows = {"all": summary(scores["elapsed_seconds"])}
    for baseline, group in scores.groupby("baseline"):
        rows[baseline] = summary(group["elapsed_seconds"])
    return pd.DataFrame(rows).T


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="the earlier commit to compare with")
    parser.add_argument("--sides", nargs="+", default=["before", "after"], choices=["before", "after"])
    parser.add_argument("--all", dest="everything", action="store_true", help="every attack of jobs.json, not the jobs' sample")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--after-settings", type=json.loads, default={}, metavar="JSON", help="job settings merged into the after side's jobs")
    parser.add_argument("--folders", nargs=2, default=["before", "after"], metavar=("BEFORE", "AFTER"), help="the sides' folder names under bench-data/paper-*")
    args = parser.parse_args()
    if "before" in args.sides and not args.before:
        parser.error("--before COMMIT is needed for the 'before' side")
    label = "all" if args.everything else "sample"
    scores = {}
    folders = dict(zip(("before", "after"), args.folders))
    for side in args.sides:
        name = f"{folders[side]}-{label}"
        wall = run_side(name, args.before if side == "before" else None, args.everything, args.workers, args.after_settings if side == "after" else {})
        scores[side] = scores_of(name)
        print(f"\n{side} ({args.before if side == 'before' else 'this checkout'}): wall time {wall:.0f} s ({wall / 60:.1f} min) on {args.workers} workers")
        print(seconds_table(scores[side]).round(2).to_string())
        work = scores[side]["elapsed_seconds"].sum() / args.workers
        print(f"scenario work per worker {work:.0f} s; the rest of the wall time (start, reading releases, scheduling, writing results) {wall - work:.0f} s")
        floor_violations = (scores[side]["base_prc"] < scores[side]["floor_prc"] - 1e-12).sum() if "floor_prc" in scores[side] else "n/a"
        print(f"scenarios with a base PRC below the most-common-value floor: {floor_violations}")
    if len(scores) == 2:
        key = ["job", "scenario_id"]
        both = scores["before"].merge(scores["after"], on=key, suffixes=("_before", "_after"))
        print(f"\non the {len(both)} scenarios both sides ran:")
        for baseline, group in both.groupby("baseline_after"):
            change = group["base_prc_after"] - group["base_prc_before"]
            q = change.quantile([0.01, 0.05, 0.5, 0.95, 0.99]).round(4).tolist()
            lower = (change < -0.01).mean()
            alc_change = (group["alc_after"] - group["alc_before"]).abs().median()
            labels = (group["risk_after"] == group["risk_before"]).mean()
            print(
                f"  {baseline}: base PRC change (after - before) quantiles 1/5/50/95/99%: {q}; mean {change.mean():+.4f}; "
                f"lower by > 0.01: {lower:.1%}; median |ALC change| {alc_change:.3f}; risk labels kept {labels:.1%}"
            )
        print(f"  total scenario seconds: before {scores['before']['elapsed_seconds'].sum():.0f}, after {scores['after']['elapsed_seconds'].sum():.0f}")
        equivalence(both)
        for side in ("before", "after"):
            print(f"\nTable 2 of the {side} side (percent of attacks):")
            for strength, table in table2_of(scores[side]).items():
                print(f"  {strength} releases:\n" + table.round(2).to_string())


def equivalence(both: pd.DataFrame) -> None:
    """The issue's equivalence figures, per baseline and over all scenarios both sides ran."""

    def interval(row, side):
        return AlcFamily.headline_interval({name.removesuffix(f"_{side}"): value for name, value in row.items() if name.endswith(f"_{side}")})

    rows = []
    for _, row in both.iterrows():
        before, after = interval(row, "before"), interval(row, "after")
        rows.append(
            {
                "baseline": row["baseline_after"],
                "within": before.low <= after.value <= before.high,
                "overlap": after.low <= before.high and before.low <= after.high,
                "labels": row["risk_before"] == row["risk_after"],
                "paper labels": paper_label(row["alc_before"]) == paper_label(row["alc_after"]),
                "unchanged": row["alc_before"] == row["alc_after"],
            }
        )
    shares = pd.DataFrame(rows)
    table = pd.concat(
        {"all": shares.drop(columns="baseline").mean(), **{b: g.drop(columns="baseline").mean() for b, g in shares.groupby("baseline")}}, axis=1
    ).T
    print(
        "\nequivalence (share of scenarios): ALC within the earlier interval; the intervals overlapping; four labels kept; the paper's three kept; ALC unchanged"
    )
    print((100 * table).round(2).to_string())


def table2_of(scores: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Table 2 of the paper per release strength, from one side's scores."""
    frame = scores.copy()
    frame[["dataset", "strength"]] = [release_dataset_strength(r) for r in frame["release"]]
    return {strength: table2(our_keys(part[part["baseline"] == "ml"], part[part["baseline"] == "prior"])) for strength, part in frame.groupby("strength")}


if __name__ == "__main__":
    main()
