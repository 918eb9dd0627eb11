"""The non-member framework on BankChurners (Francis & Wagner 2024, §4.4): baselines of its continuous columns
scored within 5% of the true value beside the default bins, and the replication stress test.

Part 1: every continuous column of ../shared/data/alc-paper/BankChurnersNoId as the secret, all
other columns known, attacked on the weak release with the ML baseline, once with the default 20
bins and once with `tolerance: {epsilon: 0.05, relative_to: value}`; per column the chosen model,
base and attack precision and recall, ALC and precision improvement.
Part 2: `alc-dask stress` on the same job (every column as the secret), its table as Markdown.

    .venv/bin/python benchmarks/bench_nonmember.py [--workers 2] [--skip-stress]
"""

import argparse
import time
from pathlib import Path

import pandas as pd

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "alc-paper" / "BankChurnersNoId"
MEASURES = ["secret", "model", "base_precision", "base_recall", "attack_precision", "attack_recall", "alc", "pi", "pi_vulnerable"]
MODELS = ["majority", "logistic_regression", "random_forest", "extra_trees", "regularized_random_forest"]


def short(name: str) -> str:
    return name if len(name) < 40 else name[:20] + "…" + name[-2:]


def stress_summary(results: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """Per secret and model: precision without copies and its largest move; and per model how many secrets moved by more than 0.1."""
    from alc_dask.baseline.dependence import stress_table

    table = stress_table(results)
    none = table.pivot_table(index="secret", columns="model", values="none", sort=False)
    move = table.pivot_table(index="secret", columns="model", values="largest move", sort=False)
    models = [m for m in MODELS if m in none.columns]
    cells = pd.DataFrame({m: [f"{n:.2f} ({d:+.2f})" for n, d in zip(none[m], move[m])] for m in models}, index=[short(s) for s in none.index])
    moved = {m: f"{int((move[m].abs() > 0.1).sum())} of {len(move)}, median |move| {move[m].abs().median():.2f}" for m in models}
    return cells.rename_axis("secret").reset_index(), moved


def job(continuous: list[str], tolerance: dict | None, output: Path) -> dict:
    spec = {
        "name": "bankchurners-" + ("tolerance" if tolerance else "bins"),
        "release": {"original": str(DATA / "original.parquet"), "anonymized": [str(DATA / "weak.parquet")]},
        "scenarios": [{"generate": "each_column", "secrets": continuous}],
        "seed": 0,
        "output": str(output),
    }
    return spec | ({"tolerance": tolerance} if tolerance else {})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("bench-data/nonmember"))
    parser.add_argument("--skip-stress", action="store_true")
    args = parser.parse_args()

    from alc_dask import run_job
    from alc_dask.apps.stress import stress_job, write_stress
    from alc_dask.data import ColumnKind, Release
    from alc_dask.engine import connect
    from alc_dask.jobs import JobSpec
    from alc_dask.report.render import markdown_table

    original = pd.read_parquet(DATA / "original.parquet")
    release = Release.load(original, [original])
    continuous = [name for name, column in release.columns.items() if column.kind is ColumnKind.CONTINUOUS]
    with connect(workers=args.workers) as client:
        tables = {}
        for label, tolerance in (("bins", None), ("within 5%", {"epsilon": 0.05, "relative_to": "value"})):
            started = time.perf_counter()
            spec = JobSpec.model_validate(job(continuous, tolerance, args.out / label.replace(" ", "-").replace("%", "pc") / str(time.time_ns())))
            scores = run_job(spec, client=client, progress=False)
            print(f"{label}: {len(scores)} scenarios in {time.perf_counter() - started:.0f}s, {int((scores['status'] != 'ok').sum())} failed", flush=True)
            tables[label] = scores.set_index("secret")[MEASURES[1:]]
        rows = []
        for secret in continuous:
            for label, table in tables.items():
                row = table.loc[secret]
                rows.append({"secret": short(secret), "scored": label, **{m: (round(v, 3) if isinstance(v, float) else v) for m, v in row.items()}})
        print(markdown_table(pd.DataFrame(rows)), flush=True)
        if not args.skip_stress:
            started = time.perf_counter()
            spec = JobSpec.model_validate(job(list(release.columns), None, args.out / "stress"))
            report = stress_job(spec, Release.load(original, [pd.read_parquet(DATA / "weak.parquet")]), client)
            print(f"stress test in {time.perf_counter() - started:.0f}s; near duplicates: {report.near.suspicious} of {report.near.sampled}", flush=True)
            cells, moved = stress_summary(report.results)
            print(markdown_table(cells), flush=True)
            print("\nsecrets whose precision moved by more than 0.1:", flush=True)
            for model, text in moved.items():
                print(f"- {model}: {text}", flush=True)
            write_stress(report, str(args.out / "stress"), spec.name)


if __name__ == "__main__":
    main()
