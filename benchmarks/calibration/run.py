"""Calibration of ``alc_dask.evaluate``'s verdict on real tables and releases whose truth is known.

What it measures: for each table and seed the table is shuffled and cut into members, a control
group and others; releases of the members that give them away (a copy, noisy copies at 5, 10 and
20%, 20% of every column swapped, every column's values republished) and releases that give nothing
of them away (a bootstrap of the others, smoothed marginals of the members, the others' columns
shuffled apart) are each checked with and without the control table. Beside each verdict stand two
diagnostics that do not use alc_dask (closest-distance AUC and a nearest-row test, see
``diagnostics.py``). ``swap_80`` is reported but counts in neither goal: it is meant to leak little.

Why: a verdict is only worth having if it is right both ways. The goals: every leaking release
flagged, with and without control (100%); every non-leaking release passing at least 90% of the
time when members and control hold 5000 rows.

Results are appended to ``work/results.jsonl`` one row per (table, seed, release, with_control),
each written once its check is done; a re-run skips the rows already there. ``report.py`` prints the
tables and draws ``calibration.png``. Each check's results folder is kept under ``work/checks/``
without the copies of the tables the check writes there.

How long (2-core development machine, 2 workers, otherwise idle, 0.11.0 with the libraries'
bytecode compiled): one check at 5000 rows takes 6-26 s (median 8.8 s); the diagnostics 2-4 s per
release. The default run (4 tables x 3 seeds x 10 releases x 2 control modes) is 240 checks: about
40 minutes. A reported run's rows are kept beside this file (``results-<version>.jsonl``).
``--rows``, ``--tables``, ``--seeds`` and ``--releases`` make it short.

    .venv/bin/python benchmarks/calibration/run.py [--tables adult census ...] [--seeds 0 1 2]
        [--rows N] [--releases copy bootstrap ...] [--no-control-only | --control-only] [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from collections import Counter
from pathlib import Path

from diagnostics import diagnose
from releases import DATA, DEFAULT_TABLES, KINDS, MAX_MEMBERS, TABLE_FILES, Split, load_table, make_release, split

import alc_dask

HERE = Path(__file__).resolve().parent
EVIDENCE_CHARS = 200
WORKERS = 2


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line: which tables, seeds, sizes, releases and control modes to run, and where."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=list(DEFAULT_TABLES), choices=list(TABLE_FILES))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--rows", type=int, default=MAX_MEMBERS, help=f"members and control at most (default {MAX_MEMBERS}; never above a third of the table)")
    parser.add_argument("--releases", nargs="+", default=list(KINDS), choices=list(KINDS))
    modes = parser.add_mutually_exclusive_group()
    modes.add_argument("--no-control-only", action="store_true", help="check without the control table only")
    modes.add_argument("--control-only", action="store_true", help="check with the control table only")
    parser.add_argument("--work", type=Path, default=HERE / "work", help="results.jsonl and the checks' folders (default benchmarks/calibration/work)")
    return parser.parse_args(argv)


def control_modes(args: argparse.Namespace) -> list[bool]:
    """The with_control values to run."""
    if args.control_only:
        return [True]
    if args.no_control_only:
        return [False]
    return [True, False]


def row_key(table: str, seed: int, release: str, with_control: bool) -> tuple:
    """What identifies a result row (a re-run skips a key already written)."""
    return (table, seed, release, with_control)


def done_keys(results: Path) -> set[tuple]:
    """The keys of the rows ``results`` already holds."""
    if not results.exists():
        return set()
    rows = (json.loads(line) for line in results.read_text(encoding="utf-8").splitlines() if line.strip())
    return {row_key(row["table"], row["seed"], row["release"], row["with_control"]) for row in rows}


def summarized(result) -> dict:
    """What a row keeps of ``evaluate``'s answer: the verdict, every family's label counts, each
    evaluation that did not pass with its headline, its threshold and the start of its evidence, and
    each that passed with its headline and evidence (what a pass rests on)."""
    labels: dict[str, Counter] = {}
    for item in result.verdict.evaluations:
        labels.setdefault(item.family, Counter())[item.label] += 1
    non_pass = [
        {
            "family": item.family,
            "label": item.label,
            "value": item.headline.value,
            "low": item.headline.low,
            "high": item.headline.high,
            "threshold": item.headline.threshold,
            "evidence": item.evidence[:EVIDENCE_CHARS],
        }
        for item in result.verdict.evaluations
        if item.label != "pass"
    ]
    passed = [
        {"family": item.family, "value": item.headline.value, "low": item.headline.low, "high": item.headline.high, "evidence": item.evidence[:EVIDENCE_CHARS]}
        for item in result.verdict.evaluations
        if item.label == "pass"
    ]
    return {"verdict": result.verdict.verdict, "labels": {family: dict(counts) for family, counts in labels.items()}, "non_pass": non_pass, "passed": passed}


def check(parts: Split, release, with_control: bool, seed: int, output: Path) -> dict:
    """Run the battery on one release (a fresh results folder each time, so that an interrupted
    check is not resumed half-way) and summarize it; an exception becomes verdict ``error`` so that
    one failure does not stop the run. The folder's copies of the tables are removed afterwards:
    the members are real people's records."""
    shutil.rmtree(output, ignore_errors=True)
    started = time.perf_counter()
    try:
        result = alc_dask.evaluate(parts.members, release, parts.control if with_control else None, seed=seed, output=output, progress=False, workers=WORKERS)
        row = summarized(result)
    except Exception as error:  # recorded in the row: the run goes on
        row = {"verdict": "error", "labels": {}, "non_pass": [], "error": f"{type(error).__name__}: {error}"}
    shutil.rmtree(output / "data", ignore_errors=True)
    return {**row, "seconds": round(time.perf_counter() - started, 1)}


def run_release(table: str, seed: int, name: str, parts: Split, modes: list[bool], work: Path) -> None:
    """Make release ``name``, diagnose it once and check it in each control mode, writing each row as soon as its check is done."""
    release = make_release(name, parts, seed)
    diagnostics = diagnose(parts.members, parts.control, release, seed)
    for with_control in modes:
        output = work / "checks" / table / f"seed{seed}" / name / ("control" if with_control else "no_control")
        row = {
            "table": table,
            "seed": seed,
            "release": name,
            "truth": KINDS[name].truth_for(parts),
            "with_control": with_control,
            "n_members": len(parts.members),
            **check(parts, release, with_control, seed, output),
            **diagnostics,
        }
        with open(work / "results.jsonl", "a", encoding="utf-8") as results:
            results.write(json.dumps(row) + "\n")
        print(f"{table} seed {seed} {name:<29} control={with_control!s:<5} {row['verdict']:<12} {row['seconds']:7.1f} s  AUC {row['auc']:.3f}", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Run every (table, seed, release, control mode) not yet in ``results.jsonl``."""
    args = parse_args(argv)
    if not DATA.exists():
        print(f"{DATA} is absent: the calibration needs the shared real tables; nothing to do.")
        return 0
    args.work.mkdir(parents=True, exist_ok=True)
    done = done_keys(args.work / "results.jsonl")
    modes = control_modes(args)
    for table in args.tables:
        data = load_table(table)
        for seed in args.seeds:
            parts = split(data, seed, args.rows)
            for name in args.releases:
                todo = [mode for mode in modes if row_key(table, seed, name, mode) not in done]
                if todo:
                    run_release(table, seed, name, parts, todo, args.work)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
