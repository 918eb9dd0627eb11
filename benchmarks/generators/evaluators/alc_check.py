"""alc_dask's default battery on every release: ``alc-dask check MEMBERS RELEASE --control CONTROL``,
timed end to end (local cluster started, every evaluation, report and verdict.json written).

One JSON line per evaluation of verdict.json (family, id, label, headline value/low/high/threshold) and
one for the release's verdict with the command's seconds, in work/results/alc_dask.jsonl.
Usage: python benchmarks/generators/evaluators/alc_check.py   (the main environment, alc_dask installed)
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import _paths  # noqa: F401
from common import WORK, append_result, control_of, original_of, pending

EVALUATOR = "alc_dask"
RESULTS = WORK / "results" / f"{EVALUATOR}.jsonl"
ALC_DASK_VERSION = version("alc-dask")
EXIT_CODES = {0: "pass or inconclusive", 4: "flagged"}
RETRIES = 1
"""Runs again once after an unexpected exit: on the loaded 2-core machine a local cluster's start once timed out."""


def check(dataset: str, release: Path, release_digest: str) -> None:
    output = WORK / "alc-check" / dataset / release.stem  # emptied first: check refuses a folder holding another release's results
    command = [str(Path(sys.executable).with_name("alc-dask")), "check", str(original_of(release)), str(release)]
    command += ["--control", str(control_of(release)), "--output", str(output)]
    for attempt in range(1 + RETRIES):
        shutil.rmtree(output, ignore_errors=True)
        start = time.perf_counter()
        finished = subprocess.run(command, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if finished.returncode in EXIT_CODES:
            break
        print(f"{dataset}/{release.stem}: check exited {finished.returncode} (attempt {attempt + 1}): {finished.stderr[-300:]}", file=sys.stderr)
    else:
        raise RuntimeError(f"{' '.join(command)} exited {finished.returncode}: {finished.stderr[-2000:]}")
    verdict = json.loads((output / "verdict.json").read_text())
    base = {"dataset": dataset, "release": release.stem, "digest": release_digest, "evaluator": EVALUATOR, "version": ALC_DASK_VERSION}
    append_result(RESULTS, base | {"measure": "verdict", "verdict": verdict["verdict"], "exit_code": finished.returncode, "seconds": seconds})
    for evaluation in verdict["evaluations"]:
        headline = evaluation["headline"]
        append_result(
            RESULTS,
            base
            | {
                "measure": f"{evaluation['family']}:{evaluation['id']}",
                "family": evaluation["family"],
                "headline": headline["name"],
                "value": headline["value"],
                "low": headline["low"],
                "high": headline["high"],
                "threshold": headline["threshold"],
                "verdict": evaluation["label"],
            },
        )
    print(f"{dataset}/{release.stem}: {verdict['verdict']} in {seconds:.1f} s", flush=True)


def main() -> int:
    for dataset, release, release_digest in pending(RESULTS):
        check(dataset, release, release_digest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
