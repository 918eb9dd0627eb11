"""``alc-dask demo``: the demo of ``alc_dask.apps.demo``, its verdict per release printed and its report linked."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from alc_dask.cli_exit_codes import EXIT_SCENARIOS_FAILED
from alc_dask.cli_options import DASHBOARD_HELP, dashboard_option, scores_of, workers_option

DEMO_MIN_ROWS = 500  # fewer leave too few targets and training rows for the demo's scenarios
TOP_EVIDENCE = 3
"""Evidence lines the demo prints: the verdict per release and the report's path fit one screen."""


@click.command()
@click.option(
    "--out", type=click.Path(path_type=Path), default=Path("alc-out/demo"), show_default=True, help="Folder for the release, jobs, results and report."
)
@click.option("--rows", type=click.IntRange(min=DEMO_MIN_ROWS), default=5000, show_default=True, help="Rows of the synthetic population.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of the population and its releases.")
@workers_option("Local worker processes (default: one per core).")
@dashboard_option(DASHBOARD_HELP + ".")
def demo(out: Path, rows: int, seed: int, workers: int | None, dashboard: bool | str) -> None:
    """Attack a weakly and a strongly anonymized synthetic release, and a 5-anonymous one, on a local cluster and report."""
    from alc_dask.engine.worker_server import start as start_worker_server

    start_worker_server()  # first: the local workers' imports are made while the demo makes its releases
    from alc_dask.apps.demo import run_demo
    from alc_dask.verdict import read_verdict, verdict_lines

    click.echo(f"Demo: a synthetic population of {rows} people, released weakly (10% swapped), strongly (60% swapped) and 5-anonymous.")
    paths = run_demo(out, rows=rows, seed=seed, workers=workers, dashboard=dashboard)
    scores = scores_of(out / "results" / release for release in ("weak", "strong", "k5"))  # what the report holds
    click.echo("\n".join(verdict_lines(read_verdict(paths["html"].parent), most=TOP_EVIDENCE)))
    click.echo(f"Every evaluation: {paths['text'].resolve()}\nReport: {paths['html'].resolve()}")
    if (scores["status"] != "ok").any():
        sys.exit(EXIT_SCENARIOS_FAILED)
