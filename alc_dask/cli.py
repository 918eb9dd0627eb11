"""The ``alc-dask`` command: thin, it parses, calls the layers and prints.

The core commands are here: ``run``, ``plan``, ``summarize`` and ``audit``. The applications on top
(``score``, ``stress``, ``demo``, ``paper``) each own their command in ``alc_dask.apps``, which names
them in ``APP_COMMANDS``; ``main`` imports one when it is called or listed (``--help``), so a core
command imports none of them. Every command ends through ``Commands`` (``alc_dask.cli_exit_codes``)
with one of the exit codes re-exported here.

Start-up is kept short: each command imports what it needs when it runs (``alc-dask --help`` and
``alc-dask plan`` need neither Dask, scikit-learn nor Numba; ``tests/test_package_imports.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from alc_dask.apps import APP_COMMANDS
from alc_dask.cli_exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_CLUSTER_UNAVAILABLE,
    EXIT_CODES_HELP,
    EXIT_INTERNAL_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_RELEASE_FLAGGED,
    EXIT_SCENARIOS_FAILED,
    Commands,
)
from alc_dask.cli_options import WAIT_OPTION, dashboard_option, scheduler_option, scores_of, workers_option
from alc_dask.plugins import load_object

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_CLUSTER_UNAVAILABLE",
    "EXIT_INTERNAL_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_RELEASE_FLAGGED",
    "EXIT_SCENARIOS_FAILED",
    "main",
]


class _CoreAndApps(Commands):
    """The core commands, defined below, and the applications' (``APP_COMMANDS``), each imported
    when it is first called or listed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *APP_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in APP_COMMANDS and cmd_name not in self.commands:
            self.add_command(load_object(APP_COMMANDS[cmd_name]), cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(cls=_CoreAndApps, context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_CODES_HELP)
@click.option("--traceback", "show_traceback", is_flag=True, help="On an error, also print its Python traceback (for bug reports).")
@click.version_option(package_name="alc-dask")
def main(show_traceback: bool) -> None:
    """Measure how much a released table exposes the people in it, each attack compared with what it
    learns of people not in it: attribute inference (the ALC), singling out, linkability and
    inference (Anonymeter), membership inference, identification, attacks on k-anonymous tables,
    and more; one verdict per release, with what the release keeps of the data beside it.

    Start with `alc-dask check ORIGINAL RELEASE [--control OTHERS]`."""


@main.command()
@click.argument("job", type=click.Path(path_type=Path))
@scheduler_option()
@workers_option()
@dashboard_option()
@click.option("--out", help="Output directory or fsspec URL such as s3://bucket/prefix (default: the job's output).")
@click.option("-v", "--verbose", is_flag=True, help="Print a line per finished scenario.")
@WAIT_OPTION
def run(job: Path, scheduler: str | None, workers: int | None, dashboard: bool | str, out: str | None, verbose: bool, wait: bool) -> None:
    """Run every scenario of JOB not already finished in its output directory.

    Exit code 3 when scenarios failed (re-running retries them), 0 when none did; 2 when another
    run is writing the output directory (unless --wait).
    """
    from alc_dask.engine.cluster import start_worker_server_for

    start_worker_server_for(scheduler, workers)  # first: a local cluster's workers import while the job and its release are read
    from alc_dask.engine import run_job
    from alc_dask.verdict import read_verdict, verdict_lines

    scores = run_job(job, scheduler=scheduler, workers=workers, out=out, verbose=verbose, dashboard=dashboard, wait=wait)
    failed, skipped = int((scores["status"] == "failed").sum()), int((scores["status"] == "skipped").sum())
    folder = out or _output_of(job)
    click.echo(f"{len(scores)} scenarios, {failed} failed, {skipped} skipped; results in {folder}")
    if (verdict := read_verdict(folder)) is not None:
        click.echo("\n".join(verdict_lines(verdict)))
    click.echo(f"Report: alc-dask summarize {folder}  (writes {folder}/report/report.html)")
    if failed:
        sys.exit(EXIT_SCENARIOS_FAILED)


@main.command()
@click.argument("job", type=click.Path(path_type=Path))
def plan(job: Path) -> None:
    """List the scenarios JOB expands to, without running them; the last column says "to run" or why it is skipped.

    A release too large to copy is read on a local cluster, as `run` would read it.
    """
    from alc_dask.engine import OnDemandClient, prepare_release
    from alc_dask.jobs import check_files, expand, load_job

    with OnDemandClient() as cluster:
        spec = load_job(job)
        check_files(spec, str(job))
        scenarios = expand(spec, prepare_release(spec, cluster), str(job))
    for s in scenarios:
        status = f"skipped: {s.skipped}" if s.skipped else "to run"
        click.echo(f"{s.id}\t{s.family.name}\t{s.family.describe()}\t{s.identity_json}\t{s.origin}\t{status}")
    skipped = sum(1 for s in scenarios if s.skipped)
    click.echo(f"{len(scenarios)} scenarios ({skipped} skipped)", err=True)


@main.command()
@click.argument("out", nargs=-1, required=True)
@click.option("--report", "report_dir", help="Report folder or fsspec URL (default: OUT/report of the first OUT).")
def summarize(out: tuple[str, ...], report_dir: str | None) -> None:
    """Summarize the results in one or more output directories or fsspec URLs; write text, Markdown and HTML reports."""
    from alc_dask.report import as_text, write_report
    from alc_dask.report import summarize as summary_of
    from alc_dask.results import ResultsError
    from alc_dask.results.files import is_url, join

    if missing := [folder for folder in out if not is_url(folder) and not Path(folder).is_dir()]:
        raise ResultsError(f"{', '.join(missing)}: no such output directory")
    scores = scores_of(out)
    if scores.empty:
        raise ResultsError(f"{', '.join(map(str, out))}: no scores found (expected Parquet parts under scores/<family>/)")
    from alc_dask.report.exposure import exposure_of_results

    summary = summary_of(scores)
    paths = write_report(summary, report_dir or join(out[0], "report"), exposure=exposure_of_results(*out))
    click.echo(as_text(summary))
    click.echo(f"Report: {paths['html']} (to publish with the release: {paths['external']}; Markdown: {paths['markdown']}; verdict: {paths['verdict']})")


@main.command()
@click.argument("job", type=click.Path(path_type=Path))
@scheduler_option()
@workers_option()
@dashboard_option()
@click.option("--out", help="Output directory or fsspec URL (default: the job's output).")
@WAIT_OPTION
def audit(job: Path, scheduler: str | None, workers: int | None, dashboard: bool | str, out: str | None, wait: bool) -> None:
    """Run JOB as a dated audit and compare with the previous one.

    Exit code 4 when the release is flagged (an evaluation is flagged on its family's scale, or its
    headline's interval lies wholly above the previous audit's), else 3 when scenarios failed, else 0.
    """
    from alc_dask.engine.cluster import start_worker_server_for

    start_worker_server_for(scheduler, workers)  # first: a local cluster's workers import while the job and its release are read
    from alc_dask.report.nightly import run_audit
    from alc_dask.verdict import verdict_lines

    outcome = run_audit(job, scheduler=scheduler, workers=workers, out=out, dashboard=dashboard, wait=wait)
    click.echo(outcome.markdown)
    click.echo("\n".join(verdict_lines(outcome.verdict)))
    click.echo(f"Audit report: {outcome.report}")
    sys.exit(EXIT_RELEASE_FLAGGED if outcome.verdict.verdict == "flagged" else _audit_exit_code(outcome.diff.flagged))


def _audit_exit_code(flagged: pd.DataFrame) -> int:
    """A leaking release outranks failed scenarios: flagged rows that did not fail are flagged on their scale or worse."""
    if (flagged["status"] == "ok").any():
        return EXIT_RELEASE_FLAGGED
    return EXIT_SCENARIOS_FAILED if len(flagged) else EXIT_OK


def _output_of(job: Path) -> str:
    from alc_dask.jobs import load_job

    return load_job(job).output


if __name__ == "__main__":
    main()
