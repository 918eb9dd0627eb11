"""``alc-dask worst-columns``: the strongest attack over the known-column subsets, chosen on one half
of the targets and measured on the other (``alc_dask.apps.worst_columns``); its table printed.

Exit codes as ``check``'s: 0 when the chosen subset's held-out measure passes or is inconclusive,
4 when it is flagged, 2 on bad input (before any cluster starts).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from alc_dask.cli_exit_codes import EXIT_RELEASE_FLAGGED
from alc_dask.cli_options import scheduler_option, workers_option

FAMILY_CHOICES = ("alc", "inference", "membership")
"""The families the search runs (``worst_columns_measures.FAMILIES``, named here so that ``--help`` imports no NumPy)."""


@click.command("worst-columns")
@click.argument("original", type=click.Path(path_type=Path))
@click.argument("release", type=click.Path(path_type=Path))
@click.option("--secret", help="The column inferred (families alc and inference); leave it out for membership.")
@click.option("--control", type=click.Path(path_type=Path), help="Other people of the same population, never released (inference and membership need it).")
@click.option("--family", type=click.Choice(FAMILY_CHOICES), help="The family searched: default alc with --secret, membership without.")
@click.option("--attack", help="The family's attack (default its own: best_row_match, nearest, distance_ratio), e.g. ml_on_release or density_ratio.")
@click.option("--column", "columns", multiple=True, help="A column the attacker may know (repeat it); default: every column of the release but the secret.")
@click.option("--max-size", type=int, default=2, show_default=True, help="Every subset of up to this many columns is tried, then greedy forward selection.")
@click.option("--budget", type=int, default=50, show_default=True, help="Subsets evaluated at most, in all.")
@click.option("--targets", type=int, default=2000, show_default=True, help="Targets per evaluation, half to choose the subset, half to measure it.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the split into halves and of every evaluation.")
@click.option(
    "--output",
    type=click.Path(path_type=Path),
    default=Path("alc-out/worst-columns"),
    show_default=True,
    help="Folder for worst_columns.json, subsets.parquet, runs/.",
)
@scheduler_option()
@workers_option()
def worst_columns(
    original: Path,
    release: Path,
    secret: str | None,
    control: Path | None,
    family: str | None,
    attack: str | None,
    columns: tuple[str, ...],
    max_size: int,
    budget: int,
    targets: int,
    seed: int,
    output: Path,
    scheduler: str | None,
    workers: int | None,
) -> None:
    """Search the subsets of columns an attacker may know of RELEASE of ORIGINAL for the strongest attack;
    print the subsets tried and the chosen one's measure on held-out targets.

    Exits 0 when that measure passes or is inconclusive, 4 when it is flagged."""
    from alc_dask.engine.cluster import start_worker_server_for

    start_worker_server_for(scheduler, workers)  # first: a local cluster's workers import while the inputs are read
    from alc_dask.apps.check import read_inputs
    from alc_dask.apps.worst_columns import request_of, run_search
    from alc_dask.engine import OnDemandClient

    inputs = read_inputs(original, release, control)
    request = request_of(inputs, secret, family, list(columns) if columns else None, max_size, budget, targets, seed, attack)
    with OnDemandClient(None, scheduler, workers) as cluster:
        result = run_search(request, inputs, output, cluster, progress=True)
    click.echo("\n".join(result.lines()))
    click.echo(f"Results: {(output / 'worst_columns.json').resolve()}, {(output / 'subsets.parquet').resolve()}")
    if result.label == "flagged":
        sys.exit(EXIT_RELEASE_FLAGGED)
