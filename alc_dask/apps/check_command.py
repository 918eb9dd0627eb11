"""``alc-dask check``: the default battery on one release, no job file; its verdict printed.

Exit codes: 0 pass, 4 flagged, 2 bad input (before any cluster starts). An **inconclusive**
verdict exits 0 with a warning line on stderr naming the open evaluations: nothing was shown to
leak, so a gate on 4 does not stop the release, but the line is there for a human (and the verdict
in ``verdict.json``) to decide; ``--strict`` makes it exit 4 as flagged does. Without a control
table a line says which families did not run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from alc_dask.cli_exit_codes import EXIT_RELEASE_FLAGGED

TOP_EVIDENCE = 5


@click.command()
@click.argument("original", type=click.Path(path_type=Path))
@click.argument("release", type=click.Path(path_type=Path))
@click.option(
    "--control", type=click.Path(path_type=Path), help="Other people of the same population, never released (enables the WP29 families and membership)."
)
@click.option(
    "--output", type=click.Path(path_type=Path), default=Path("alc-out/check"), show_default=True, help="Folder for results, verdict.json and the report."
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of every evaluation.")
@click.option("--strict", is_flag=True, help="Exit 4 on an inconclusive verdict too.")
@click.option(
    "--worst-columns",
    is_flag=True,
    help="Also search the subsets of known columns for the strongest attack on each secret (and membership, with --control); "
    "up to 50 evaluations each, so many times the battery's time (see `alc-dask worst-columns`).",
)
def check(original: Path, release: Path, control: Path | None, output: Path, seed: int, strict: bool, worst_columns: bool) -> None:
    """Run the default battery (every family the inputs allow) on RELEASE of ORIGINAL; print the verdict.

    Exits 0 on pass, 4 on flagged; inconclusive exits 0 with a warning line (4 with --strict). With
    --worst-columns, a subset of known columns whose held-out measure is flagged exits 4 too."""
    from alc_dask.apps.battery import skipped_without_control
    from alc_dask.apps.check import read_inputs, run_check
    from alc_dask.report.verdict import verdict_lines

    inputs = read_inputs(original, release, control)
    run = run_check(inputs, output, seed=seed)
    verdict, path = run.verdict, (output / "verdict.json").resolve()
    click.echo("\n".join(verdict_lines(verdict, most=TOP_EVIDENCE)))
    if inputs.control is None and (skipped := skipped_without_control(inputs.original, inputs.release)):
        click.echo(f"not run: {', '.join(skipped)}: they compare the original's people with other people; give --control to run them")
    click.echo(f"Verdict: {path}\nReport: {(output / 'report' / 'report.html').resolve()}")
    if verdict.verdict == "inconclusive":
        click.echo(f"warning: the verdict is inconclusive: {settle_hint(verdict)}", err=True)
    worst_flagged = worst_columns and searched_worst_columns(inputs, output / "worst-columns", seed)
    if verdict.verdict == "flagged" or worst_flagged or (strict and verdict.verdict == "inconclusive"):
        sys.exit(EXIT_RELEASE_FLAGGED)


def searched_worst_columns(inputs, folder: Path, seed: int) -> bool:
    """Run and print the worst-columns searches of ``--worst-columns``; whether one is flagged."""
    from alc_dask.apps.worst_columns import battery_searches

    results = battery_searches(inputs, folder, seed)
    for result in results:
        click.echo("\n".join(result.lines()))
    click.echo(f"Worst columns: {folder.resolve()}")
    return any(result.label == "flagged" for result in results)


def settle_hint(verdict) -> str:
    """The evaluations that straddle their threshold, each by family and id."""
    open_ones = [f"{item.family} {item.id}" for item in verdict.evaluations if item.label == "inconclusive"]
    return f"{len(open_ones)} evaluation(s) straddle their threshold ({', '.join(open_ones[:TOP_EVIDENCE])}{', ...' if len(open_ones) > TOP_EVIDENCE else ''}); their evidence says what these tables could have flagged"
