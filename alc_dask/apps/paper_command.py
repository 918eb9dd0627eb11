"""``alc-dask paper run|compare``: the paper's experiment run, and compared with the reference's results (``alc_dask.apps.reproduction``)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from alc_dask.cli_exit_codes import EXIT_SCENARIOS_FAILED
from alc_dask.cli_options import dashboard_option, scheduler_option, scores_of, workers_option


@click.group()
def paper() -> None:
    """Reproduce the ALC paper's experiment and compare it with the reference implementation."""


@paper.command("run")
@click.argument("jobs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--sample", type=click.IntRange(min=1), help="Attacks drawn at random per job (default: the jobs' own sample).")
@click.option("--all", "everything", is_flag=True, help="Every attack of the paper's jobs.json, no sampling.")
@scheduler_option()
@workers_option()
@dashboard_option()
def paper_run(jobs: tuple[Path, ...], sample: int | None, everything: bool, scheduler: str | None, workers: int | None, dashboard: bool | str) -> None:
    """Run the paper's job files (jobs/paper/*.yaml), one after the other, on one cluster."""
    from alc_dask.apps.reproduction import with_paper_sample
    from alc_dask.engine import run_job
    from alc_dask.engine.cluster import connect
    from alc_dask.jobs import load_job

    failed = 0
    with connect(scheduler, workers, dashboard) as client:
        for job in jobs:
            spec = load_job(job)
            if sample or everything:
                spec = with_paper_sample(spec, None if everything else sample)
            scores = run_job(spec, client=client)
            failed += int((scores["status"] == "failed").sum())
            click.echo(f"{job}: {len(scores)} scenarios; results in {spec.output}")
    if failed:
        click.echo(f"{failed} scenarios failed")
        sys.exit(EXIT_SCENARIOS_FAILED)


@paper.command("compare")
@click.argument("out", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--reference",
    "reference_dir",
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The reference's results (alc-paper/reference-results).",
)
@click.option("--report", "report_dir", type=click.Path(path_type=Path), default=Path("alc-out/paper/report"), show_default=True)
def paper_compare(out: tuple[Path, ...], reference_dir: Path, report_dir: Path) -> None:
    """Table 2 and Figure 7 of the paper from the results in OUT..., beside the reference's."""
    from alc_dask.apps.reproduction import compare_with_reference
    from alc_dask.results.files import write_file

    scores = scores_of(out)
    markdown = compare_with_reference(scores, reference_dir, report_dir)
    write_file(report_dir / "paper.md", markdown.encode())
    click.echo(markdown)
    click.echo(f"Report: {report_dir / 'paper.md'}")
