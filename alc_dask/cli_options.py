"""What the core commands and the applications' commands take alike: the cluster options, a number
range without NaN, and the output folders they read scores from.

Light on purpose: ``alc-dask --help`` imports it, so whatever a check needs is imported in the check.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import click

from alc_dask.errors import OptionError

if TYPE_CHECKING:
    import pandas as pd

SCHEDULER_HELP = "Address (or scheduler file) of a running Dask cluster; default: a local cluster."
WORKERS_HELP = "Local worker processes (default: one per core); with --scheduler, workers to wait for."
DASHBOARD_HELP = "Start the local cluster's Dask dashboard at ADDRESS (HOST:PORT or :PORT; default 127.0.0.1:8787) and print its link on stderr"
CLUSTER_DASHBOARD_HELP = DASHBOARD_HELP + "; with --scheduler, print the link of the cluster's dashboard."

WAIT_OPTION = click.option("--wait", is_flag=True, help="If another run is writing the output directory, wait for it to end (default: exit 2 naming it).")


class FiniteFloatRange(click.FloatRange):
    """``click.FloatRange`` that also refuses NaN, which passes every comparison of a range check."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(f"{value!r} is not a number; expected {self._describe_range()}.", param, ctx)
        return number


def _check_scheduler(ctx: click.Context, param: click.Parameter, scheduler: str | None) -> str | None:
    from alc_dask.engine.addresses import scheduler_address

    if scheduler is not None:
        scheduler_address(scheduler)
    return scheduler


def scheduler_option(text: str = SCHEDULER_HELP):
    return click.option("--scheduler", callback=_check_scheduler, help=text)


def workers_option(text: str = WORKERS_HELP):
    return click.option("--workers", type=click.IntRange(min=1), help=text)


def _check_dashboard(ctx: click.Context, param: click.Parameter, address: str | None) -> bool | str:
    """False without the option, True without an address, else the address once checked."""
    from alc_dask.engine.addresses import DEFAULT_DASHBOARD, is_dashboard_address

    if address is None or address == "":
        return address == ""
    if not is_dashboard_address(address):
        raise OptionError(
            f"--dashboard {address!r}: expected HOST:PORT or :PORT (e.g. 127.0.0.1:8790); without an address (after the command's arguments) it binds {DEFAULT_DASHBOARD}"
        )
    return address


def dashboard_option(text: str = CLUSTER_DASHBOARD_HELP):
    return click.option("--dashboard", is_flag=False, flag_value="", default=None, metavar="[ADDRESS]", callback=_check_dashboard, help=text)


def scores_of(folders) -> pd.DataFrame:
    """The scores of every output folder (or URL) in ``folders``, in one table."""
    import pandas as pd  # here, not at the top: ``--help`` starts without it

    from alc_dask.results import read_scores

    return pd.concat([read_scores(folder) for folder in folders], ignore_index=True)
