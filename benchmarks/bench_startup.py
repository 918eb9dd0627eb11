"""Start-up of the ``alc-dask`` command: wall time of ``alc-dask --help`` and of ``alc-dask plan``
of the demo job (``jobs/demo.yaml``), each run as a fresh process, median of ``--runs``.

"after" is this checkout's code, started as the console script starts it
(``python -c 'from alc_dask.cli import main; main()'`` with this checkout first on PYTHONPATH);
"before", when ``--before`` names another installation's ``alc-dask`` entry point (e.g. main's
venv), that one with PYTHONPATH unset. The runs of every command alternate, so that the machine's
load weighs on each alike. "floor" imports only the libraries ``plan`` cannot do without (click,
numpy, pandas, pyarrow.parquet, fsspec, pydantic, yaml): no start-up work of alc_dask's can go below it.

The demo job reads ``alc-out/demo/data/``, which ``alc-dask demo`` writes; when it is missing, its
tables are written here (``make_demo_release(5000, 0)``, as ``alc-dask demo`` makes them).

    python benchmarks/bench_startup.py --before /work/main/.venv/bin/alc-dask --runs 10
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO_JOB = ROOT / "jobs" / "demo.yaml"
DEMO_DATA = ROOT / "alc-out" / "demo" / "data"
AFTER = "import sys; from alc_dask.cli import main; sys.argv[0] = 'alc-dask'; sys.exit(main())"
FLOOR = "import click, numpy, pandas, pyarrow.parquet, fsspec, pydantic, yaml"


def ensure_demo_data() -> None:
    """The demo release the demo job reads, written once."""
    if all((DEMO_DATA / f"{name}.parquet").is_file() for name in ("original", "weak", "control")):
        return
    sys.path.insert(0, str(ROOT))
    from alc_dask.apps.synthetic import make_demo_release

    DEMO_DATA.mkdir(parents=True, exist_ok=True)
    for name, table in make_demo_release(5000, 0).items():
        table.to_parquet(DEMO_DATA / f"{name}.parquet", index=False)


def commands(before: str | None) -> dict[str, tuple[list[str], dict[str, str]]]:
    """Each timed command line with its environment, by label."""
    after_env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    plain_env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    after = [sys.executable, "-c", AFTER]
    timed = {
        "floor (imports plan needs)": ([sys.executable, "-c", FLOOR], plain_env),
        "--help after": ([*after, "--help"], after_env),
        "plan after": ([*after, "plan", str(DEMO_JOB)], after_env),
    }
    if before:
        timed["--help before"] = ([before, "--help"], plain_env)
        timed["plan before"] = ([before, "plan", str(DEMO_JOB)], plain_env)
    return timed


def wall_time(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Seconds from start to exit, and the command's stdout (a failed command stops the benchmark)."""
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr}")
    return elapsed, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="Another installation's alc-dask entry point, to time side by side (e.g. /work/main/.venv/bin/alc-dask).")
    parser.add_argument("--runs", type=int, default=10, help="Runs of each command (default 10).")
    args = parser.parse_args()
    ensure_demo_data()
    timed = commands(args.before)
    compileall.compile_dir(ROOT / "alc_dask", quiet=1)  # where PYTHONDONTWRITEBYTECODE is set, the warm-up below writes none
    for command, env in timed.values():  # warm-up: bytecode caches written, files in the page cache
        wall_time(command, env)
    times: dict[str, list[float]] = {label: [] for label in timed}
    outputs: dict[str, str] = {}
    load_before = os.getloadavg()
    for _ in range(args.runs):
        for label, (command, env) in timed.items():
            elapsed, outputs[label] = wall_time(command, env)
            times[label].append(elapsed)
    load_after = os.getloadavg()
    print(
        f"load average (1, 5, 15 min): {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f} at start, {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f} at end"
    )
    print(f"{'command':<28} {'median s':>9} {'min s':>7} {'max s':>7}  ({args.runs} runs each, interleaved)")
    for label, seconds in times.items():
        print(f"{label:<28} {statistics.median(seconds):>9.3f} {min(seconds):>7.3f} {max(seconds):>7.3f}")
    if args.before:
        for command in ("--help", "plan"):
            ratio = statistics.median(times[f"{command} before"]) / statistics.median(times[f"{command} after"])
            print(f"{command}: before / after (medians) = {ratio:.2f}x")
        same = outputs["plan before"] == outputs["plan after"]
        print(f"plan's scenario lists identical before and after: {same}")


if __name__ == "__main__":
    main()
