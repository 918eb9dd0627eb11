"""Where a job runs: a running Dask cluster, or a local one sized to the machine.

The local default is one single-threaded worker process per core: scenarios are CPU-bound Python
and Numba, so processes (not threads) give the parallelism, and one thread each keeps BLAS and
scikit-learn from oversubscribing the cores. The Dask clients themselves are made in ``clients``,
imported (with distributed) when a cluster is connected: checking options and jobs needs neither.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING

from alc_dask.engine.addresses import DEFAULT_DASHBOARD, EngineError, check_dashboard
from alc_dask.engine.progress import say

if TYPE_CHECKING:
    from distributed import Client


def local_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@contextmanager
def connect(scheduler: str | None = None, workers: int | None = None, dashboard: bool | str = False) -> Iterator[Client]:
    """A client of ``scheduler`` (an address or a scheduler file), else of a new ``LocalCluster``.

    With a scheduler, ``workers`` is how many workers to wait for before starting; locally it is
    how many worker processes to start (default: one per core). ``dashboard``: True starts the
    local cluster's Dask dashboard on ``DEFAULT_DASHBOARD``, an address binds it there; its link
    is printed on stderr. With a scheduler, True prints the link of the dashboard it serves, if any.
    A connection lost while the client is in use is an ``EngineError``, as one that cannot be made.
    """
    check_dashboard(dashboard, scheduler)
    from distributed.comm import CommClosedError  # distributed is imported when a cluster is needed

    from alc_dask.engine.clients import cluster_dashboard, local_client, scheduler_client

    if scheduler is None:
        clients = local_client(workers or local_workers(), DEFAULT_DASHBOARD if dashboard is True else dashboard or None)
    else:
        clients = scheduler_client(scheduler, workers or 1)
    with clients as client:
        if dashboard:
            say(f"Dask dashboard: {client.dashboard_link}" if scheduler is None else cluster_dashboard(client, scheduler))
        try:
            yield client
        except CommClosedError as error:
            raise EngineError(f"lost the connection to the Dask cluster: {error}") from error


def current_client() -> Client | None:
    """The Dask client the caller made current (a ``Client`` sets itself as Dask's default unless
    told not to), or None. Looked for only when distributed is already imported: a run that never
    made a client does not import it."""
    if "distributed" not in sys.modules:
        return None
    from distributed import default_client

    try:
        return default_client()
    except ValueError:  # no client made, or every one closed
        return None


def starts_local_cluster(scheduler: str | None, workers: int | None) -> bool:
    """Whether ``OnDemandClient(None, scheduler, workers)`` would start a local cluster (rather than
    connect to a scheduler or use the caller's current client): what a command asks to start the
    local workers' server early (``worker_server.start``)."""
    return scheduler is None and (workers is not None or current_client() is None)


def start_worker_server_for(scheduler: str | None, workers: int | None) -> None:
    """The local workers' server started (``worker_server.start``) when a command given these
    options starts a local cluster: a command calls it first, so that the server imports while the
    command reads its job or its inputs (for a job whose scenarios are all finished, a server it
    will not use: its imports run in the background)."""
    if starts_local_cluster(scheduler, workers):
        from alc_dask.engine.worker_server import start

        start()


class OnDemandClient:
    """A cluster connected when first needed: a job whose scenarios are all finished starts none.

    Given ``client``, that one is used and left open; so is the caller's current Dask client
    (``current_client``) when neither a scheduler nor a number of workers is given; otherwise
    ``connect(scheduler, workers)``.
    """

    def __init__(self, client=None, scheduler: str | None = None, workers: int | None = None, dashboard: bool | str = False):
        if client is None and scheduler is None and workers is None:
            client = current_client()
        self._given, self._scheduler, self._workers, self._dashboard = client, scheduler, workers, dashboard
        self._elsewhere = client is not None or scheduler is not None
        self._stack = ExitStack()

    @property
    def elsewhere(self) -> bool:
        """Whether the workers may run on other machines (a scheduler or a client was given): files
        written for them must then stay where they can read them."""
        return self._elsewhere

    def get(self) -> Client:
        if self._given is None:
            self._given = self._stack.enter_context(connect(self._scheduler, self._workers, self._dashboard))
        return self._given

    def __enter__(self) -> OnDemandClient:
        return self

    def __exit__(self, *exc) -> bool:
        return self._stack.__exit__(*exc)  # the error too: ``connect`` makes a lost connection an ``EngineError``
