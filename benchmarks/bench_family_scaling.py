"""Time against rows: how each costly family grows from 1e4 to 1e7 rows, on 2 single-threaded workers.

For each --rows: a synthetic population (``alc_dask.apps.synthetic``, 9 columns) of that many people
as the original, released with 20% of every column's values swapped, and a control table of as many
other people (seeded: the same rows on every run), each written in parts of 250 000 rows to a folder
(a job keeps them on the workers in parts, ``broadcast_limit: 0``) and as one Parquet file (what
``check`` reads). Then, each a job of its own on one LocalCluster of --workers
single-threaded workers (so none reuses another's work), with the families' defaults:

- ``density_ratio``: the membership family's density-ratio attack (20 000 members, 20 000 control rows);
- ``alc ml_on_release``: an ALC job (secret ``education``, seven known columns, ML baseline) with the
  ``ml_on_release`` attack;
- ``inference ml_on_release``: the inference family (2000 attacks) guessing by a model trained on the release;
- ``disclosure``: RepU/DiSCO of one key set (age bands, sex, region) and target occupation;
- ``special_uniques``: MSUs up to size 3 of the categorical columns, on the original and the release;
- ``privacy_models``: k, ℓ and t of the release on four quasi-identifiers;
- ``check``: ``alc-dask check`` end to end (``alc_dask.apps.check.run_check``: inputs read, its own
  local cluster of --workers single-threaded workers started, the battery run, report and verdict written).

A warm-up of every job on a 2 000-row table runs first, so no figure holds the workers' Numba compilation.
Each series has a time budget (--budget seconds): after a size, the next size's time is extrapolated
from the last two (``t · 10^slope``, the log-log slope clipped to [0, 2]; from one point, linear); a
series whose extrapolation passes the budget, or whose last time did, stops, and its larger sizes are
written as ``extrapolated`` with that figure. Every time goes to --csv as it is measured (with the
1-minute load average before the run); --figure draws them, log-log, measured solid and extrapolated
dashed. ``--plot-only`` redraws the figure from the CSV; ``--rerun`` adds the CSVs of later runs of
some series (``--series``), whose sizes replace the first's in the figure.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_family_scaling.py --rows 1e4 1e5 1e6 1e7 --workers 2
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

CHUNK = 250_000
WARM_UP_ROWS = 2_000
SECRET = "education"
KNOWN = ["age", "sex", "region", "occupation", "income", "hours_per_week", "married"]
AGE_BANDS = [20, 30, 40, 50, 60, 70]
SCENARIOS = {
    "density_ratio": {"family": "membership", "attack": "density_ratio"},
    "alc ml_on_release": {"secret": SECRET, "known": KNOWN},
    "inference ml_on_release": {"family": "inference", "secret": SECRET, "aux_cols": KNOWN, "attack": "ml_on_release"},
    "disclosure": {"family": "disclosure", "keys": ["age", "sex", "region"], "target": "occupation", "bins": {"age": AGE_BANDS}},
    "special_uniques": {"family": "special_uniques", "columns": ["sex", "region", "education", "occupation", "married"]},
    "privacy_models": {
        "family": "privacy_models",
        "declared_k": 5,
        "declared_l": 2,
        "declared_t": 0.2,
        "quasi_identifiers": ["age", "sex", "region", "married"],
        "sensitive": "occupation",
        "bins": {"age": AGE_BANDS},
    },
}
"""Series label -> the job's one scenario (the ALC one with the ``ml_on_release`` attack and the ML baseline)."""
SERIES = (*SCENARIOS, "check")
FIELDS = ("series", "rows", "status", "seconds", "evaluation_seconds", "load_before", "note")


def write_table(frame, folder: Path, name: str) -> None:
    """``name/`` in parts of ``CHUNK`` rows (for the jobs) and ``name.parquet`` in one file (for ``check``)."""
    parts = folder / name
    parts.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    for i, start in enumerate(range(0, len(frame), CHUNK)):
        pq.write_table(table.slice(start, CHUNK), parts / f"part-{i:04d}.parquet")
    pq.write_table(table, folder / f"{name}.parquet", row_group_size=CHUNK)


def make_tables(folder: Path, rows: int) -> None:
    """The original, the release and the control table of ``rows`` rows each, once per folder."""
    from alc_dask.anonymize import swap_frame
    from alc_dask.apps.synthetic import make_population

    done = folder / "_done"
    if done.exists():
        return
    original = make_population(rows, seed=1)
    write_table(original, folder, "original")
    write_table(swap_frame(original, 0.2, seed=2), folder, "release")
    del original
    write_table(make_population(rows, seed=3), folder, "control")
    done.write_text("")


def load() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def run_scenario(client, folder: Path, label: str) -> tuple[float, float, str]:
    """One job of ``SCENARIOS[label]`` on the tables of ``folder``: its wall time, its evaluation's seconds and no note."""
    from alc_dask import run_job
    from alc_dask.jobs import validate_job

    spec = {
        "name": "family-scaling",
        "release": {
            "original": str(folder / "original"),
            "anonymized": [str(folder / "release")],
            "control": str(folder / "control"),
            "broadcast_limit": 0,
        },
        "scenarios": [SCENARIOS[label]],
        "output": tempfile.mkdtemp(prefix="out-", dir=folder),
    }
    if "family" not in SCENARIOS[label]:
        spec |= {"attacks": ["ml_on_release"], "baselines": ["ml"]}
    job = validate_job(spec, f"the {label} job")
    started = time.perf_counter()
    scores = run_job(job, client=client, progress=False)
    seconds = time.perf_counter() - started
    failed = scores[scores["status"] != "ok"]
    if len(failed):
        raise RuntimeError(f"{label} on {folder}: {failed[['status', 'error']].to_dict('records')}")
    return seconds, float(scores["elapsed_seconds"].sum()), ""


def run_check_once(folder: Path, workers: int) -> tuple[float, float, str]:
    """``alc-dask check`` on the tables of ``folder``: its time end to end, the engine's seconds and
    each family's seconds of worker time."""
    from alc_dask.apps.check import read_inputs, run_check

    started = time.perf_counter()
    inputs = read_inputs(folder / "original.parquet", folder / "release.parquet", folder / "control.parquet")
    run = run_check(inputs, tempfile.mkdtemp(prefix="check-", dir=folder), workers=workers, progress=False)
    seconds = time.perf_counter() - started
    failed = run.scores[run.scores["status"] != "ok"]
    if len(failed):
        raise RuntimeError(f"check on {folder}: {failed[['family', 'status', 'error']].to_dict('records')}")
    per_family = "; ".join(f"{family} {seconds:.0f} s" for family, seconds in sorted(run.seconds_per_family.items(), key=lambda pair: -pair[1]))
    return seconds, run.seconds, f"worker time: {per_family}"


def next_estimate(times: list[tuple[int, float]], rows: int) -> float:
    """The time at ``rows`` extrapolated from the last two measured (rows, seconds): the log-log
    slope clipped to [0, 2] (from one point, linear in the rows)."""
    (last_rows, last), *_ = times[-1:]
    if len(times) == 1:
        slope = 1.0
    else:
        before_rows, before = times[-2]
        slope = min(2.0, max(0.0, math.log(last / before) / math.log(last_rows / before_rows)))
    return last * (rows / last_rows) ** slope


class Series:
    """One family's times, and whether its next size is within the budget."""

    def __init__(self, label: str, budget: float):
        self.label, self.budget, self.times = label, budget, []

    def estimate(self, rows: int) -> float | None:
        """None when ``rows`` should run; otherwise the extrapolated seconds that stop it."""
        if not self.times:
            return None
        estimate = next_estimate(self.times, rows)
        return estimate if estimate > self.budget or self.times[-1][1] > self.budget else None


def append(path: Path, row: dict) -> None:
    new = not path.exists()
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, FIELDS)
        if new:
            writer.writeheader()
        writer.writerow(row)
    print(", ".join(f"{k}={v}" for k, v in row.items() if v != ""), flush=True)


def measure(args) -> None:
    from distributed import Client, LocalCluster

    wanted = [label for label in SERIES if label in args.series]
    series = {label: Series(label, args.budget) for label in wanted}
    jobs = [label for label in wanted if label != "check"]
    with (
        LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None, memory_limit="8GiB") as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        warm_up = args.data / f"{WARM_UP_ROWS}"
        make_tables(warm_up, WARM_UP_ROWS)
        started = time.perf_counter()
        for label in jobs:
            run_scenario(client, warm_up, label)
        print(f"warm-up {time.perf_counter() - started:.1f} s", flush=True)
        for rows in map(int, args.rows):
            folder = args.data / f"{rows}"
            started = time.perf_counter()
            make_tables(folder, rows)
            print(f"{rows} rows: tables in {time.perf_counter() - started:.1f} s", flush=True)
            for label in wanted:
                record = {"series": label, "rows": rows, "load_before": load(), "evaluation_seconds": "", "note": ""}
                estimate = series[label].estimate(rows)
                if estimate is not None:
                    append(args.csv, record | {"status": "extrapolated", "seconds": round(estimate, 1), "note": f"not run: budget {args.budget:.0f} s"})
                    continue
                try:
                    seconds, evaluation, note = run_check_once(folder, args.workers) if label == "check" else run_scenario(client, folder, label)
                except Exception as error:  # a failed size ends its series; the others go on
                    series[label].budget = 0.0
                    append(args.csv, record | {"status": "failed", "seconds": "", "note": f"{type(error).__name__}: {error}"[:300]})
                    continue
                series[label].times.append((rows, seconds))
                append(args.csv, record | {"status": "measured", "seconds": round(seconds, 2), "evaluation_seconds": round(evaluation, 2), "note": note})


def read_times(paths: list[Path]) -> list[dict]:
    """The rows of every CSV with a time, a later file's (series, rows) replacing an earlier one's."""
    found = {}
    for path in paths:
        with path.open() as handle:
            found |= {(row["series"], row["rows"]): row for row in csv.DictReader(handle) if row["seconds"]}
    return list(found.values())


def plot(paths: list[Path], figure: Path) -> None:
    """Log-log time against rows, one line per series: measured solid, extrapolated dashed with open markers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_times(paths)
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for i, label in enumerate(label for label in SERIES if any(r["series"] == label for r in rows)):
        color = f"C{i}"
        mine = sorted(((int(r["rows"]), float(r["seconds"]), r["status"]) for r in rows if r["series"] == label), key=lambda r: r[0])
        measured = [(n, s) for n, s, status in mine if status == "measured"]
        guessed = [(n, s) for n, s, status in mine if status == "extrapolated"]
        if measured:
            ax.plot(*zip(*measured), "o-", color=color, label=label)
        if guessed:
            ax.plot(*zip(*(measured[-1:] + guessed)), "--", color=color)
            ax.plot(*zip(*guessed), "o", color=color, markerfacecolor="white")
    ax.set(xscale="log", yscale="log", xlabel="rows (original, release and control each)", ylabel="wall time of the job (s)")
    ax.set_title("Time against rows, 2 single-threaded workers (dashed, open: extrapolated, not run)", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(figure, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=float, nargs="+", default=[1e4, 1e5, 1e6, 1e7])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--series", nargs="+", default=list(SERIES), choices=SERIES)
    parser.add_argument("--budget", type=float, default=600.0, help="seconds a series may take at one size")
    parser.add_argument("--data", type=Path, default=Path("bench-data/family-scaling"))
    parser.add_argument("--csv", type=Path, default=Path("benchmarks/scaling/families.csv"))
    parser.add_argument("--figure", type=Path, default=Path("benchmarks/scaling/families.png"))
    parser.add_argument("--plot-only", action="store_true", help="only redraw --figure from --csv")
    parser.add_argument("--rerun", type=Path, nargs="*", default=[], help="CSVs of later runs whose sizes replace --csv's in the figure")
    args = parser.parse_args()
    if not args.plot_only:
        print(f"load {os.getloadavg()[0]:.2f}", flush=True)
        measure(args)
        print(f"load {os.getloadavg()[0]:.2f}", flush=True)
    plot([args.csv, *args.rerun], args.figure)


if __name__ == "__main__":
    main()
