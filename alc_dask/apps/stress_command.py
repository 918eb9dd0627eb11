"""``alc-dask stress JOB``: the stress test of ``alc_dask.apps.stress`` from the command line."""

from __future__ import annotations

from pathlib import Path

import click

from alc_dask.cli_options import FiniteFloatRange, scheduler_option, workers_option


@click.command()
@click.argument("job", type=click.Path(path_type=Path))
@click.option(
    "--share", "shares", type=FiniteFloatRange(0, 1, min_open=True), multiple=True, help="A share of the original's rows to copy (repeat; default 0.1, 0.5, 1)."
)
@click.option("--copies", type=click.IntRange(min=1), multiple=True, help="Copies made of each (repeat; default 1, 2, 5, 10; at most 100).")
@click.option("--targets", type=click.IntRange(min=10), default=1000, show_default=True, help="Held-out targets per measurement.")
@scheduler_option()
@workers_option()
@click.option("--out", help="Folder or fsspec URL for stress.parquet and stress.md (default: the job's output/stress).")
def stress(job: Path, shares: tuple[float, ...], copies: tuple[int, ...], targets: int, scheduler: str | None, workers: int | None, out: str | None) -> None:
    """How much JOB's baselines gain from dependent records: copies of the original's rows, and near duplicates."""
    from alc_dask.apps.stress import stress_job, write_stress
    from alc_dask.baseline.dependence import COPIES, SHARES, check_replications
    from alc_dask.engine import connect, prepare_release
    from alc_dask.jobs import check_files, load_job
    from alc_dask.results.files import join

    shares, copies = shares or SHARES, copies or COPIES
    check_replications(shares, copies)
    spec = load_job(job)
    check_files(spec, str(job))
    release = prepare_release(spec)
    with connect(scheduler, workers, False) as client:
        report = stress_job(spec, release, client, shares, copies, targets)
    paths = write_stress(report, out or join(spec.output, "stress"), spec.name)
    click.echo(report.markdown(spec.name))
    click.echo(f"Written: {paths['results']}, {paths['markdown']}", err=True)
