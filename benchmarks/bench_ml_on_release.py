"""ml_on_release's cost beside best_row_match's on the same release, its scaling with the release's
rows, and what each attack finds.

For each --rows (default 1e4, 1e5, 1e6): a synthetic population of that many people (the original:
every one of them a possible target) released with 20% of every column's values swapped; secret
``education``, known the seven columns that tell people apart and predict it (as
``tests/test_ml_on_release.py``). Each attack is an ALC job of its own (ML baseline, the job's
defaults otherwise) on one LocalCluster of --workers single-threaded workers, so none reuses
another's work: the release kept on the workers in parts (``broadcast_limit: 0``) and, at the
--copied sizes (default 1e4, 1e5), copied to every worker as well; the script asserts that each
attack's results are the same in both placements. A warm-up job of both attacks in both placements
on a small release runs first, so the workers' Numba compilation is not in the first figure. Prints,
per job, the evaluation's seconds (``elapsed_seconds``), the job's wall time, the targets attacked
(``pairs``) and the ALC with its interval; then a table per placement with the ratio
ml_on_release / best_row_match at each size.

``--ml-max-rows N`` fits ml_on_release on up to N release rows instead of its default (10 000): on
all of them at 1e5, to tell its sample's size from the release's size.

``--truth N`` first prints both attacks' ALC (with its interval) on the known-truth releases of
``alc_dask.testing.truth`` (N members), in process.

    .venv/bin/python benchmarks/bench_ml_on_release.py --truth 1000 --rows 1e4 1e5 1e6 --workers 2
"""

import argparse
import json
import math
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

CHUNK = 250_000
WARM_UP_ROWS = 2_000
SECRET = "education"
KNOWN = ["age", "sex", "region", "occupation", "income", "hours_per_week", "married"]
ATTACKS = ("best_row_match", "ml_on_release")
PLACEMENTS = {"on workers": 0, "copied": "4GiB"}
"""Placement -> the job's ``broadcast_limit``."""
VOLATILE = {"elapsed_seconds", "seconds", "worker", "finished_at", "version"}
"""Score columns that may differ between two runs of the same evaluation: every other must not."""


def truth_table(members: int) -> pd.DataFrame:
    from alc_dask.families.alc.family import AlcFamily
    from alc_dask.families.alc.loop import run_attack
    from alc_dask.testing.truth import truth_releases

    truth = truth_releases(members, seed=0)
    found = []
    for name in truth.releases:
        for attack in ATTACKS:
            measures = run_attack(truth.release(name), SECRET, KNOWN, attack=attack, seed=0).measures()
            head = AlcFamily.headline_interval(measures)
            found.append({"release": name, "attack": attack, "cell": f"{head.value:.2f} [{head.low:.2f}, {head.high:.2f}]"})
    found = pd.DataFrame(found)
    return found.pivot(index="release", columns="attack", values="cell").reindex(index=list(truth.releases), columns=list(ATTACKS))


def write_parts(frame: pd.DataFrame, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i, start in enumerate(range(0, len(frame), CHUNK)):
        pq.write_table(pa.Table.from_pandas(frame.iloc[start : start + CHUNK], preserve_index=False), folder / f"part-{i:04d}.parquet")
    (folder / "_done").write_text("")


def release_data(folder: Path, rows: int) -> None:
    from alc_dask.anonymize import swap_frame
    from alc_dask.apps.synthetic import make_population

    if (folder / "anonymized" / "_done").exists():
        return
    original = make_population(rows, seed=1)
    write_parts(original, folder / "original")
    write_parts(swap_frame(original, 0.2, seed=2), folder / "anonymized")


def run(client, folder: Path, attacks: list, placement: str) -> pd.DataFrame:
    """The job of ``attacks`` on the release of ``folder``, held as ``placement`` says: its scores."""
    from alc_dask import run_job
    from alc_dask.jobs import validate_job

    job = validate_job(
        {
            "name": "ml-on-release-bench",
            "release": {"original": str(folder / "original"), "anonymized": [str(folder / "anonymized")], "broadcast_limit": PLACEMENTS[placement]},
            "scenarios": [{"secret": SECRET, "known": KNOWN}],
            "attacks": attacks,
            "baselines": ["ml"],
            "output": str(folder / f"out-{time.time_ns()}"),
        },
        "the benchmark's job",
    )
    started = time.perf_counter()
    scores = run_job(job, client=client, progress=False)
    scores["job_seconds"] = time.perf_counter() - started
    failed = scores[scores["status"] != "ok"]
    if len(failed):
        raise RuntimeError(f"{placement}, {folder}: {failed[['attack', 'status', 'error']].to_dict('records')}")
    return scores


def summary(row, rows: int, placement: str) -> dict:
    from alc_dask.families.alc.family import AlcFamily

    head = AlcFamily.headline_interval(row)
    return {
        "rows": rows,
        "placement": placement,
        "attack": row["attack"],
        "evaluation_seconds": round(float(row["elapsed_seconds"]), 2),
        "job_seconds": round(float(row["job_seconds"]), 1),
        "pairs": int(row["pairs"]),
        "alc": round(head.value, 3),
        "alc_low": round(head.low, 3),
        "alc_high": round(head.high, 3),
        "baseline_model": row["model"],
        "halt_code": row["halt_code"],
    }


def assert_same_results(first: pd.Series, second: pd.Series, where: str) -> None:
    """Every score but the timing and the worker's name equal (NaN equal to NaN)."""
    differing = [
        column
        for column in first.index
        if column not in VOLATILE | {"job_seconds"}
        and not (first[column] == second[column] or (isinstance(first[column], float) and math.isnan(first[column]) and math.isnan(second[column])))
    ]
    assert not differing, f"{where}: the placements differ in {[(c, first[c], second[c]) for c in differing]}"


def ratio_table(found: pd.DataFrame, placement: str) -> str:
    mine = found[found["placement"] == placement].pivot(index="rows", columns="attack")
    table = pd.DataFrame(
        {
            "best_row_match s": mine["evaluation_seconds"]["best_row_match"],
            "ml_on_release s": mine["evaluation_seconds"]["ml_on_release"],
            "ratio ml / brm": (mine["evaluation_seconds"]["ml_on_release"] / mine["evaluation_seconds"]["best_row_match"]).round(2),
            **{f"{attack} pairs": mine["pairs"][attack] for attack in ATTACKS},
            **{
                f"{attack} ALC": [
                    f"{v:.3f} [{lo:.3f}, {hi:.3f}]" for v, lo, hi in zip(mine["alc"][attack], mine["alc_low"][attack], mine["alc_high"][attack], strict=True)
                ]
                for attack in ATTACKS
            },
        }
    )
    return f"{placement}\n{table.to_markdown()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=float, nargs="*", default=[1e4, 1e5, 1e6], help="release rows of each scaling run; none: no cluster")
    parser.add_argument("--copied", type=float, nargs="*", default=[1e4, 1e5], help="of --rows, the sizes also run with the release copied to every worker")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--data", type=Path, default=Path("bench-data/ml-on-release"))
    parser.add_argument("--ml-max-rows", type=int, help="ml_on_release's max_rows (default: the attack's)")
    parser.add_argument("--truth", type=int, default=0, help="members of the known-truth releases; 0: skip")
    args = parser.parse_args()
    if args.truth:
        print("ALC [interval]\n" + truth_table(args.truth).to_markdown(), flush=True)
    if not args.rows:
        return

    from distributed import Client, LocalCluster

    copied = {int(rows) for rows in args.copied}
    specs = {attack: attack for attack in ATTACKS}
    if args.ml_max_rows:
        specs["ml_on_release"] = {"name": "ml_on_release", "params": {"max_rows": args.ml_max_rows}}
    found = []
    with (
        LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None, memory_limit="8GiB") as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        warm_up = args.data / f"{WARM_UP_ROWS}"
        release_data(warm_up, WARM_UP_ROWS)
        started = time.perf_counter()
        for placement in PLACEMENTS:
            run(client, warm_up, list(specs.values()), placement)
        print(json.dumps({"warm_up_seconds": round(time.perf_counter() - started, 1)}), flush=True)
        for rows in map(int, args.rows):
            folder = args.data / f"{rows}"
            started = time.perf_counter()
            release_data(folder, rows)
            print(json.dumps({"rows": rows, "data_seconds": round(time.perf_counter() - started, 1)}), flush=True)
            for attack in ATTACKS:
                held = {
                    placement: run(client, folder, [specs[attack]], placement).iloc[0]
                    for placement in PLACEMENTS
                    if placement == "on workers" or rows in copied
                }
                for placement, row in held.items():
                    found.append(summary(row, rows, placement))
                    print(json.dumps(found[-1]), flush=True)
                if len(held) == 2:
                    assert_same_results(*held.values(), f"{attack} at {rows} rows")
    found = pd.DataFrame(found)
    for placement in PLACEMENTS:
        if (found["placement"] == placement).any():
            print(ratio_table(found, placement), flush=True)


if __name__ == "__main__":
    main()
