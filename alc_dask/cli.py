"""The ``alc-dask`` command: thin, it parses, calls the layers and prints.

Every command ends with one of the exit codes below, so that cron, systemd or Kubernetes can tell
a leaking release (4) from failed scenarios (3), bad input (2), an unreachable cluster (5) and a
bug (1). ``EXIT_CODES_HELP`` lists them in ``alc-dask --help``; the README has the same table.
``KIND_EXIT_CODES`` is the one place where the kinds of error (``alc_dask.errors``) get theirs.
"""

from __future__ import annotations

import math
import sys
import traceback
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from alc_dask.apps.score import PredictionsError, Score, score_predictions
from alc_dask.errors import ClusterError, InputError, OptionError

if TYPE_CHECKING:
    import pandas as pd

EXIT_OK = 0
EXIT_INTERNAL_ERROR = 1  # an unexpected error: a bug (also what Python exits with on an uncaught exception)
EXIT_BAD_INPUT = 2  # a bad option (click's usage errors) or bad input: job file, release, predictions, output folder
EXIT_SCENARIOS_FAILED = 3  # the run ended but scenarios failed; a re-run retries just those
EXIT_RELEASE_FLAGGED = 4  # audit: a scenario is at risk or serious, or worse than at the previous audit
EXIT_CLUSTER_UNAVAILABLE = 5  # the Dask scheduler cannot be reached or used; try again later
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as shells report it)

KIND_EXIT_CODES = ((InputError, EXIT_BAD_INPUT), (ClusterError, EXIT_CLUSTER_UNAVAILABLE))
"""The exit code of each kind of error; any other error, ``InternalError`` included, is a bug (1)."""

DEMO_MIN_ROWS = 500  # fewer leave too few targets and training rows for the demo's scenarios

EXIT_CODES_HELP = f"""\b
Exit codes:
  {EXIT_OK:<4} done; audit: the release passed
  {EXIT_INTERNAL_ERROR:<4} internal error (a bug); --traceback shows where
  {EXIT_BAD_INPUT:<4} bad usage or input: options, job file, release, predictions, output folder
  {EXIT_SCENARIOS_FAILED:<4} some scenarios failed (audit: and none is flagged); re-running retries them
  {EXIT_RELEASE_FLAGGED:<4} audit: the release is flagged, a scenario at risk or serious or worse than before
  {EXIT_CLUSTER_UNAVAILABLE:<4} the Dask cluster cannot be reached, has too few workers or lost them all
  {EXIT_INTERRUPTED:<4} interrupted (Ctrl-C); finished scenarios are kept
"""


class Failure(click.ClickException):
    """An error explained in one line, with its exit code."""

    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.exit_code = exit_code


class FiniteFloatRange(click.FloatRange):
    """``click.FloatRange`` that also refuses NaN, which passes every comparison of a range check."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(f"{value!r} is not a number; expected {self._describe_range()}.", param, ctx)
        return number


class Commands(click.Group):
    """Ends every command with its exit code: an error of a kind in ``KIND_EXIT_CODES`` in one line
    and that kind's code, Ctrl-C in one line and 130, any other error (a bug) in one line naming its
    type and 1 (with ``--traceback``: its traceback too)."""

    def invoke(self, ctx: click.Context):
        try:
            with _release_warnings_in_one_line():
                return super().invoke(ctx)
        except KeyboardInterrupt as interrupt:
            click.echo(_interrupted(interrupt, ctx.invoked_subcommand), err=True)
            ctx.exit(EXIT_INTERRUPTED)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as error:  # noqa: BLE001 - every error ends in one line and its exit code
            _show_traceback(error)
            raise _failure(error, ctx.invoked_subcommand) from error


def _failure(error: Exception, command: str | None) -> Failure:
    """The line and exit code ``error`` ends ``command`` with: its message and its kind's code; for
    a bug, its type, its message and where to look."""
    code = next((code for kind, code in KIND_EXIT_CODES if isinstance(error, kind)), EXIT_INTERNAL_ERROR)
    if code != EXIT_INTERNAL_ERROR:
        return Failure(str(error), code)
    hint = "" if _traceback_wanted() else f" (run `alc-dask --traceback {command} ...` to see where)"
    return Failure(f"internal error: {type(error).__name__}: {error}{hint}", EXIT_INTERNAL_ERROR)


@contextmanager
def _release_warnings_in_one_line() -> Iterator[None]:
    """Each warning about the release (``ReleaseWarning``, e.g. a column extreme values dominate) or
    its output folder (``LeaseWarning``, e.g. a lease taken over) as one line on stderr, every time:
    Python's format would add a line of our source code."""
    from alc_dask.data import ReleaseWarning
    from alc_dask.results.lease import LeaseWarning

    ours = (ReleaseWarning, LeaseWarning)
    with warnings.catch_warnings():
        for category in ours:
            warnings.simplefilter("always", category)
        show_others = warnings.showwarning

        def show(message, category, *where, **more):
            if issubclass(category, ours):
                click.echo(f"warning: {message}", err=True)
            else:
                show_others(message, category, *where, **more)

        warnings.showwarning = show
        yield


def _check_scheduler(ctx: click.Context, param: click.Parameter, scheduler: str | None) -> str | None:
    from alc_dask.engine.cluster import scheduler_address

    if scheduler is not None:
        scheduler_address(scheduler)
    return scheduler


def scheduler_option(text: str):
    return click.option("--scheduler", callback=_check_scheduler, help=text)


def workers_option(text: str):
    return click.option("--workers", type=click.IntRange(min=1), help=text)


def _check_dashboard(ctx: click.Context, param: click.Parameter, address: str | None) -> bool | str:
    """False without the option, True without an address, else the address once checked."""
    from alc_dask.engine.cluster import DEFAULT_DASHBOARD, is_dashboard_address

    if address is None or address == "":
        return address == ""
    if not is_dashboard_address(address):
        raise OptionError(
            f"--dashboard {address!r}: expected HOST:PORT or :PORT (e.g. 127.0.0.1:8790); without an address (after the command's arguments) it binds {DEFAULT_DASHBOARD}"
        )
    return address


def dashboard_option(text: str):
    return click.option("--dashboard", is_flag=False, flag_value="", default=None, metavar="[ADDRESS]", callback=_check_dashboard, help=text)


WAIT_OPTION = click.option("--wait", is_flag=True, help="If another run is writing the output directory, wait for it to end (default: exit 2 naming it).")
DASHBOARD_HELP = "Start the local cluster's Dask dashboard at ADDRESS (HOST:PORT or :PORT; default 127.0.0.1:8787) and print its link on stderr"


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_CODES_HELP)
@click.option("--traceback", "show_traceback", is_flag=True, help="On an error, also print its Python traceback (for bug reports).")
@click.version_option(package_name="alc-dask")
def main(show_traceback: bool) -> None:
    """Measure the anonymity a data release loses to attribute-inference attacks (the ALC)."""


@main.command()
@click.argument("predictions", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--max-interval",
    type=FiniteFloatRange(min=0, max=1, min_open=True),
    default=0.1,
    show_default=True,
    help="Widest admissible Wilson interval of a cut, above 0 and at most 1.",
)
def score(predictions: Path, max_interval: float) -> None:
    """Score a CSV or Parquet file of predictions with columns kind (base|attack), correct, confidence."""
    frame = _read_table(predictions)
    result = score_predictions(frame, max_interval=max_interval, source=str(predictions))
    _print_score(result)


@main.command()
@click.argument("job", type=click.Path(path_type=Path))
@scheduler_option("Address (or scheduler file) of a running Dask cluster; default: a local cluster.")
@workers_option("Local worker processes (default: one per core); with --scheduler, workers to wait for.")
@dashboard_option(DASHBOARD_HELP + "; with --scheduler, print the link of the cluster's dashboard.")
@click.option("--out", help="Output directory or fsspec URL such as s3://bucket/prefix (default: the job's output).")
@click.option("-v", "--verbose", is_flag=True, help="Print a line per finished scenario.")
@WAIT_OPTION
def run(job: Path, scheduler: str | None, workers: int | None, dashboard: bool | str, out: str | None, verbose: bool, wait: bool) -> None:
    """Run every scenario of JOB not already finished in its output directory.

    Exit code 3 when scenarios failed (re-running retries them), 0 when none did; 2 when another
    run is writing the output directory (unless --wait).
    """
    from alc_dask.engine import run_job

    scores = run_job(job, scheduler=scheduler, workers=workers, out=out, verbose=verbose, dashboard=dashboard, wait=wait)
    failed, skipped = int((scores["status"] == "failed").sum()), int((scores["status"] == "skipped").sum())
    click.echo(f"{len(scores)} scenarios, {failed} failed, {skipped} skipped; results in {out or _output_of(job)}")
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
@click.argument("job", type=click.Path(path_type=Path))
@click.option(
    "--share", "shares", type=FiniteFloatRange(0, 1, min_open=True), multiple=True, help="A share of the original's rows to copy (repeat; default 0.1, 0.5, 1)."
)
@click.option("--copies", type=click.IntRange(min=1), multiple=True, help="Copies made of each (repeat; default 1, 2, 5, 10; at most 100).")
@click.option("--targets", type=click.IntRange(min=10), default=1000, show_default=True, help="Held-out targets per measurement.")
@scheduler_option("Address (or scheduler file) of a running Dask cluster; default: a local cluster.")
@workers_option("Local worker processes (default: one per core); with --scheduler, workers to wait for.")
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
    scores = _scores_of(out)
    if scores.empty:
        raise ResultsError(f"{', '.join(map(str, out))}: no scores found (expected Parquet parts under scores/<family>/)")
    summary = summary_of(scores)
    paths = write_report(summary, report_dir or join(out[0], "report"))
    click.echo(as_text(summary))
    click.echo(f"Report: {paths['html']} (Markdown: {paths['markdown']})")


@main.command()
@click.argument("job", type=click.Path(path_type=Path))
@scheduler_option("Address (or scheduler file) of a running Dask cluster; default: a local cluster.")
@workers_option("Local worker processes (default: one per core); with --scheduler, workers to wait for.")
@dashboard_option(DASHBOARD_HELP + "; with --scheduler, print the link of the cluster's dashboard.")
@click.option("--out", help="Output directory or fsspec URL (default: the job's output).")
@WAIT_OPTION
def audit(job: Path, scheduler: str | None, workers: int | None, dashboard: bool | str, out: str | None, wait: bool) -> None:
    """Run JOB as a dated audit and compare with the previous one.

    Exit code 4 when the release is flagged (a scenario at risk or serious, or worse than at the
    previous audit), else 3 when scenarios failed, else 0.
    """
    from alc_dask.report.nightly import run_audit

    outcome = run_audit(job, scheduler=scheduler, workers=workers, out=out, dashboard=dashboard, wait=wait)
    click.echo(outcome.markdown)
    click.echo(f"Audit report: {outcome.report}")
    sys.exit(_audit_exit_code(outcome.diff.flagged))


@main.command()
@click.option(
    "--out", type=click.Path(path_type=Path), default=Path("alc-out/demo"), show_default=True, help="Folder for the release, jobs, results and report."
)
@click.option("--rows", type=click.IntRange(min=DEMO_MIN_ROWS), default=5000, show_default=True, help="Rows of the synthetic population.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of the population and its releases.")
@workers_option("Local worker processes (default: one per core).")
@dashboard_option(DASHBOARD_HELP + ".")
def demo(out: Path, rows: int, seed: int, workers: int | None, dashboard: bool | str) -> None:
    """Attack a weakly and a strongly anonymized synthetic release on a local cluster and report."""
    from alc_dask.apps.demo import run_demo
    from alc_dask.report import as_text
    from alc_dask.report import summarize as summary_of

    click.echo(f"Demo: a synthetic population of {rows} people, released weakly (10% swapped) and strongly (60% swapped) anonymized.")
    paths = run_demo(out, rows=rows, seed=seed, workers=workers, dashboard=dashboard)
    scores = _scores_of(out / "results" / level for level in ("weak", "strong"))
    click.echo(as_text(summary_of(scores)))
    click.echo(f"Report: {paths['html'].resolve()}")
    if (scores["status"] != "ok").any():
        sys.exit(EXIT_SCENARIOS_FAILED)


@main.group()
def paper() -> None:
    """Reproduce the ALC paper's experiment and compare it with the reference implementation."""


@paper.command("run")
@click.argument("jobs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--sample", type=click.IntRange(min=1), help="Attacks drawn at random per job (default: the jobs' own sample).")
@click.option("--all", "everything", is_flag=True, help="Every attack of the paper's jobs.json, no sampling.")
@scheduler_option("Address (or scheduler file) of a running Dask cluster; default: a local cluster.")
@workers_option("Local worker processes (default: one per core); with --scheduler, workers to wait for.")
@dashboard_option(DASHBOARD_HELP + "; with --scheduler, print the link of the cluster's dashboard.")
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

    scores = _scores_of(out)
    markdown = compare_with_reference(scores, reference_dir, report_dir)
    write_file(report_dir / "paper.md", markdown.encode())
    click.echo(markdown)
    click.echo(f"Report: {report_dir / 'paper.md'}")


def _traceback_wanted() -> bool:
    context = click.get_current_context(silent=True)
    return bool(context and context.find_root().params.get("show_traceback"))


def _show_traceback(error: BaseException) -> None:
    if _traceback_wanted():
        click.echo("".join(traceback.format_exception(error)).rstrip(), err=True)


def _interrupted(interrupt: KeyboardInterrupt, command: str | None) -> str:
    from alc_dask.engine.progress import Interrupted

    done = f"{interrupt.done} of {interrupt.total} scenarios done" if isinstance(interrupt, Interrupted) else "no scenario done"
    if command == "audit":
        return f"interrupted; {done}, the audit is incomplete: run it again"
    if command in ("run", "paper", "demo"):
        return f"interrupted; {done}, re-run to resume"
    return "interrupted"


def _audit_exit_code(flagged: pd.DataFrame) -> int:
    """A release at risk outranks failed scenarios: flagged rows that did not fail are at risk, serious or worse."""
    if (flagged["status"] == "ok").any():
        return EXIT_RELEASE_FLAGGED
    return EXIT_SCENARIOS_FAILED if len(flagged) else EXIT_OK


def _output_of(job: Path) -> str:
    from alc_dask.jobs import load_job

    return load_job(job).output


def _scores_of(folders) -> pd.DataFrame:
    """The scores of every output folder (or URL) in ``folders``, in one table."""
    import pandas as pd  # here, not at the top: ``--help`` starts without it

    from alc_dask.results import read_scores

    return pd.concat([read_scores(folder) for folder in folders], ignore_index=True)


def _read_table(path: Path) -> pd.DataFrame:
    import pandas as pd

    readers = {".csv": pd.read_csv, ".parquet": pd.read_parquet}
    reader = readers.get(path.suffix.lower())
    if reader is None:
        raise PredictionsError(f"{path}: unknown format '{path.suffix}'; expected .csv or .parquet")
    try:
        return reader(path)
    except Exception as error:  # any parser failure becomes one clear message naming the file
        raise PredictionsError(f"{path}: cannot be read: {error}") from error


def _print_score(result: Score) -> None:
    import pandas as pd

    measures = {
        "base (best cut)": result.base,
        "attack (best cut)": result.attack,
        "base (recall 1)": result.base_full_recall,
        "attack (recall 1)": result.attack_full_recall,
    }
    rows = {"n": "{:d}", "recall": "{:.4f}", "precision": "{:.4f}", "interval_low": "{:.4f}", "interval_high": "{:.4f}", "prc": "{:.4f}"}
    table = pd.DataFrame({name: {row: fmt.format(getattr(measure, row)) for row, fmt in rows.items()} for name, measure in measures.items()})
    click.echo(table.to_string())
    click.echo(f"\nALC {result.alc:.4f} ({result.risk}); at recall 1: {result.alc_full_recall:.4f}")
