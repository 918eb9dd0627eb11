"""Running a family's job on real Dask clusters, checked: every evaluation succeeds, the same seed gives the same scores on one worker, on two, and in this process, and a re-run
resumes: it writes nothing when all is done, and recomputes exactly the evaluations of a lost part."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from alc_dask.engine import run_job
from alc_dask.families import EvaluationFamily
from alc_dask.testing.contract import expect
from alc_dask.testing.values import differences, summary

SEEDED = ["family", "params", "seed", "status"]
"""Identity columns a run must reproduce (its worker, timings and end time are where and when it ran)."""


def run_checked(cls: type[EvaluationFamily], job: Path, client, out: Path) -> pd.DataFrame:
    """The job's scores (indexed by scenario id) once every evaluation finished."""
    name = cls.name
    scores = run_job(job, client=client, out=out, progress=False).set_index("scenario_id")
    failed = scores[scores["status"] == "failed"]
    expect(
        failed.empty,
        name,
        "evaluate on a worker",
        "; ".join(f"scenario {s} failed: {row['error']}\n{row.get('traceback') or ''}" for s, row in failed.iterrows()),
    )
    return scores


def seeded_measures(cls: type[EvaluationFamily]) -> list[str]:
    """The family's measures that only its seed may change."""
    return [f.name for f in cls.fields if f.name not in cls.run_dependent]


def check_same_scores(cls: type[EvaluationFamily], expected: pd.DataFrame, actual: pd.DataFrame, what: str) -> None:
    problems = differences(expected, actual, [*SEEDED, *seeded_measures(cls)])
    expect(not problems, cls.name, "reproducibility", f"{what} with the same seed gave other scores: {summary(problems)}")


def check_local_scores(cls: type[EvaluationFamily], local: dict[str, dict], scores: pd.DataFrame) -> None:
    """The measures evaluated in this process are those the workers stored."""
    here = pd.DataFrame.from_dict(local, orient="index")
    problems = differences(here, scores[scores["status"] == "ok"], [c for c in seeded_measures(cls) if c in here.columns])
    expect(not problems, cls.name, "reproducibility", f"evaluated in this process and on a worker with the same seed, scores differ: {summary(problems)}")


def check_resume(cls: type[EvaluationFamily], job: Path, client, out: Path, scores: pd.DataFrame) -> None:
    """A re-run of the finished job writes nothing and returns the same scores; once a part of the
    scores is deleted, a re-run recomputes the evaluations it held and no other."""
    name = cls.name
    before = snapshot(out)
    again = run_checked(cls, job, client, out)
    after = snapshot(out)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    expect(not changed, name, "resume", f"re-running the finished job wrote or changed {changed}")
    problems = differences(scores, again, list(scores.columns))
    expect(not problems, name, "resume", f"re-running the finished job returned other scores: {summary(problems)}")

    parts = score_parts(out)
    expect(bool(parts), name, "resume", f"no Parquet part of scores (a file with a `status` column) under {out}")
    lost = parts[0]
    lost_ids = set(pq.read_table(lost, columns=["scenario_id"]).column("scenario_id").to_pylist())
    lost.unlink()
    kept = {p: stamp for p, stamp in snapshot(out).items() if Path(out, p) in parts}
    recomputed = run_checked(cls, job, client, out)
    after = snapshot(out)
    touched = sorted(p for p, stamp in kept.items() if after.get(p) != stamp)
    expect(not touched, name, "resume", f"after deleting {lost.name}, the re-run rewrote parts it did not lose: {touched}")
    new_ids = {
        s for p in score_parts(out) if str(p.relative_to(out)) not in kept for s in pq.read_table(p, columns=["scenario_id"]).column("scenario_id").to_pylist()
    }
    expect(
        new_ids == lost_ids,
        name,
        "resume",
        f"after deleting {lost.name} (scenarios {sorted(lost_ids)}), the re-run recomputed {sorted(new_ids)}",
    )
    check_same_scores(cls, scores, recomputed, "recomputing a lost part")


def score_parts(out: Path) -> list[Path]:
    """The Parquet files of scores under ``out`` (those with a ``status`` column), in path order."""
    return sorted(p for p in Path(out).rglob("*.parquet") if "status" in pq.read_schema(p).names)


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``folder``: its size and modification time."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in Path(folder).rglob("*") if p.is_file()}
