"""``alc-dask check``: the default battery on one release, no job file; its verdict printed.

Exit codes: 0 pass, 4 flagged, 2 bad input (before any cluster starts). An **inconclusive**
verdict exits 0 with a warning line on stderr naming the open evaluations: nothing was shown to
leak, so a gate on 4 does not stop the release, but the line is there for a human (and the verdict
in ``verdict.json``) to decide; ``--strict`` makes it exit 4 as flagged does. Without a control
table a line says which families did not run; lines name the columns the release lacks and the
share of its rows that are rows of the original.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from alc_dask.cli_exit_codes import EXIT_RELEASE_FLAGGED
from alc_dask.cli_options import WAIT_OPTION, scheduler_option, workers_option
from alc_dask.errors import JobSpecError, OptionError

TOP_EVIDENCE = 5
DEFAULT_OUTPUT = Path("alc-out/check")


@click.command()
@click.argument("original", type=click.Path(path_type=Path))
@click.argument("release", type=click.Path(path_type=Path))
@click.option(
    "--control", type=click.Path(path_type=Path), help="Other people of the same population, never released (enables the WP29 families and membership)."
)
@click.option(
    "--out",
    "--output",
    "output",
    type=click.Path(path_type=Path),
    help="Folder for results, verdict.json and the report  [default: alc-out/check/RELEASE, after the release's file name].",
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of every evaluation.")
@click.option(
    "--secret",
    "secrets",
    multiple=True,
    metavar="COLUMN",
    help="A column an attacker wants to learn (repeat, or comma-separate); default: the battery's choice.",
)
@click.option(
    "--known", multiple=True, metavar="COLUMN", help="A column an attacker knows of a person (repeat, or comma-separate); default: the battery's choice."
)
@click.option(
    "--types",
    multiple=True,
    metavar="COLUMN=KIND|FILE",
    help="A column's kind, categorical or continuous (repeat, or comma-separate), or a YAML/JSON file mapping columns to kinds; "
    "default: inferred (numbers with more than 20 values are continuous).",
)
@click.option("--sep", help="The CSV files' separator; default: the one their header holds (comma, semicolon, tab or bar).")
@scheduler_option()
@workers_option()
@WAIT_OPTION
@click.option("--strict", is_flag=True, help="Exit 4 on an inconclusive verdict too.")
@click.option(
    "--worst-columns",
    is_flag=True,
    help="Also search the subsets of known columns for the strongest attack on each secret (and membership, with --control); "
    "up to 50 evaluations each, so many times the battery's time (see `alc-dask worst-columns`).",
)
def check(
    original: Path,
    release: Path,
    control: Path | None,
    output: Path | None,
    seed: int,
    secrets: tuple[str, ...],
    known: tuple[str, ...],
    types: tuple[str, ...],
    sep: str | None,
    scheduler: str | None,
    workers: int | None,
    wait: bool,
    strict: bool,
    worst_columns: bool,
) -> None:
    """Run the default battery (every family the inputs allow) on RELEASE of ORIGINAL; print the verdict.

    ORIGINAL and RELEASE are Parquet or CSV files, or folders of Parquet parts. Exits 0 on pass, 4
    on flagged; inconclusive exits 0 with a warning line (4 with --strict). With --worst-columns, a
    subset of known columns whose held-out measure is flagged exits 4 too."""
    from alc_dask.engine.cluster import start_worker_server_for

    start_worker_server_for(scheduler, workers)  # first: the local workers' imports are made while this command imports and reads its inputs
    from alc_dask.apps.battery import chosen_columns
    from alc_dask.apps.check import read_inputs, release_label, run_check
    from alc_dask.verdict import verdict_lines

    inputs = read_inputs(original, release, control, kinds=parsed_types(types), sep=sep)
    columns = list(inputs.original.columns)
    named_secrets, named_known = (listed(values, columns) for values in (secrets, known))
    chosen_columns(inputs.original, inputs.release, named_secrets, named_known)
    output = output or DEFAULT_OUTPUT / release_label(inputs)  # a folder per release: a second release checked is not "a changed job"
    run = run_check(inputs, output, seed=seed, secrets=named_secrets, known=named_known, scheduler=scheduler, workers=workers, wait=wait)
    verdict, path = run.verdict, (output / "verdict.json").resolve()
    click.echo("\n".join(verdict_lines(verdict, most=TOP_EVIDENCE)))
    for line in input_notes(inputs):
        click.echo(line)
    if verdict.fidelity is not None:
        click.echo(f"utility: {verdict.fidelity.summary}")
    click.echo(f"Verdict: {path}\nReport: {(output / 'report' / 'report.html').resolve()}")
    if verdict.verdict == "inconclusive":
        click.echo(f"warning: the verdict is inconclusive: {settle_hint(verdict)}", err=True)
    worst_flagged = worst_columns and searched_worst_columns(inputs, output / "worst-columns", seed)
    if verdict.verdict == "flagged" or worst_flagged or (strict and verdict.verdict == "inconclusive"):
        sys.exit(EXIT_RELEASE_FLAGGED)


def listed(values: tuple[str, ...], columns: list[str]) -> list[str] | None:
    """Repeated options and comma-separated lists as one list of names (a value that is a column's
    whole name is kept whole, commas and all); None when none was given."""
    if not values:
        return None
    return [name.strip() for value in values for name in ([value] if value in columns else value.split(",")) if name.strip()]


SIDECARS = (".yaml", ".yml", ".json")


def parsed_types(values: tuple[str, ...]) -> dict[str, str]:
    """``COLUMN=KIND`` options (repeated or comma-separated), and sidecar files (YAML or JSON, as a
    job's ``release.columns`` may name), as one mapping, a later option winning; a malformed one named."""
    from alc_dask.jobs.files import read_kinds

    kinds = {}
    for value in values:
        if "=" not in value and value.lower().endswith(SIDECARS):
            try:
                kinds |= read_kinds(value, "types (--types)")
            except JobSpecError as error:
                raise OptionError(str(error)) from None
            continue
        for item in (part for part in value.split(",") if part.strip()):
            name, equals, kind = item.partition("=")
            if not equals or not name.strip():
                raise OptionError(f"types (--types): {item!r} is not COLUMN=KIND (e.g. age=continuous)")
            kinds[name.strip()] = kind.strip()
    return kinds


def input_notes(inputs) -> list[str]:
    """What a person should know of what was evaluated: the families that did not run and why,
    the columns the release lacks, the share of its rows that are rows of the original."""
    from alc_dask.apps.battery import skipped_without_control
    from alc_dask.families.battery import copied_share

    notes = []
    if inputs.control is None and (skipped := skipped_without_control(inputs.typed["original"], inputs.typed["release"])):
        notes.append(f"not run: {', '.join(skipped)}: they compare the original's people with other people; give --control to run them")
    if missing := inputs.missing_from_release:
        notes.append(
            f"the release lacks {len(missing)} column(s) of the original ({', '.join(map(repr, missing[:5]))}{', ...' if len(missing) > 5 else ''}): evaluated on the {len(inputs.release.columns)} it has"
        )
    if copied := copied_share(inputs.typed["original"], inputs.typed["release"]):
        notes.append(f"{copied:.0%} of the release's rows are rows of the original, value for value")
    return notes


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
