"""How every ``alc-dask`` command ends: with one of the exit codes below, its error in one line.

Cron, systemd or Kubernetes can then tell a leaking release (4) from failed scenarios (3), bad
input (2), an unreachable cluster (5) and a bug (1). ``EXIT_CODES_HELP`` lists them in
``alc-dask --help``; the command line reference (``docs/reference/cli.md``) has the same table. ``KIND_EXIT_CODES`` is the one place where the
kinds of error (``alc_dask.errors``) get theirs; the core commands and the applications' commands
(``alc_dask.apps``) all end through ``Commands``.
"""

from __future__ import annotations

import atexit
import gc
import traceback
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

import click

from alc_dask.errors import ClusterError, InputError, LeaseWarning, ReleaseWarning

EXIT_OK = 0
EXIT_INTERNAL_ERROR = 1  # an unexpected error: a bug (also what Python exits with on an uncaught exception)
EXIT_BAD_INPUT = 2  # a bad option (click's usage errors) or bad input: job file, release, predictions, output folder
EXIT_SCENARIOS_FAILED = 3  # the run ended but scenarios failed; a re-run retries just those
EXIT_RELEASE_FLAGGED = 4  # audit: an evaluation is flagged on its family's scale, or worse than at the previous audit
EXIT_CLUSTER_UNAVAILABLE = 5  # the Dask scheduler cannot be reached or used; try again later
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as shells report it)

KIND_EXIT_CODES = ((InputError, EXIT_BAD_INPUT), (ClusterError, EXIT_CLUSTER_UNAVAILABLE))
"""The exit code of each kind of error; any other error, ``InternalError`` included, is a bug (1)."""

RESUMABLE_COMMANDS = ("run", "paper", "demo")
"""Commands that keep the scenarios they finished, so that running them again resumes."""

EXIT_CODES_HELP = f"""\b
Exit codes:
  {EXIT_OK:<4} done; audit: the release passed
  {EXIT_INTERNAL_ERROR:<4} internal error (a bug); --traceback shows where
  {EXIT_BAD_INPUT:<4} bad usage or input: options, job file, release, predictions, output folder
  {EXIT_SCENARIOS_FAILED:<4} some scenarios failed (audit: and none is flagged); re-running retries them
  {EXIT_RELEASE_FLAGGED:<4} audit: the release is flagged, an evaluation flagged or worse than before
  {EXIT_CLUSTER_UNAVAILABLE:<4} the Dask cluster cannot be reached, has too few workers or lost them all
  {EXIT_INTERRUPTED:<4} interrupted (Ctrl-C); finished scenarios are kept
"""


class Failure(click.ClickException):
    """An error explained in one line, with its exit code."""

    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.exit_code = exit_code


class Commands(click.Group):
    """Ends every command with its exit code: an error of a kind in ``KIND_EXIT_CODES`` in one line
    and that kind's code, Ctrl-C in one line and 130, any other error (a bug) in one line naming its
    type and 1 (with ``--traceback``: its traceback too)."""

    def invoke(self, ctx: click.Context):
        _exit_without_a_last_collection()
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


@cache
def _exit_without_a_last_collection() -> None:
    """Freeze every object as the process exits, after every other exit handler (registered before a
    command registers its own, and run last), so that the interpreter's final garbage collections
    skip them: a command that imported scikit-learn, SciPy and matplotlib spent 0.3 s collecting as
    it exited (0.04 s frozen), memory the operating system frees anyway. Every file is closed by
    then: results and reports are written in ``with`` blocks."""
    atexit.register(gc.freeze)


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
    if command in RESUMABLE_COMMANDS:
        return f"interrupted; {done}, re-run to resume"
    return "interrupted"
