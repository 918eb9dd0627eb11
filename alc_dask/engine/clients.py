"""Dask clients: of a new local cluster, or of a running one once it answers. Here distributed is
imported, when ``alc_dask.engine.cluster.connect`` needs a cluster, and not before.
"""

import asyncio
import logging
import signal
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import dask
from dask.utils import parse_timedelta
from distributed import Client, LocalCluster, WorkerPlugin
from distributed.comm import connect as open_comm
from distributed.security import Security

from alc_dask.engine.addresses import CONNECT_TIMEOUT, WORKERS_TIMEOUT, EngineError, scheduler_address
from alc_dask.engine.progress import say
from alc_dask.engine.worker_server import worker_environment, worker_settings

UNPROFILED = {"distributed.worker.profile.enabled": False}
"""Workers of a local cluster without a dashboard do not sample their own stacks: distributed's
profiler, there for the dashboard's profile page, reads a task's stack every 10 ms and its source
lines, on the event loop's thread (0.94 s of py-spy's samples in a check of 2 000 rows; the
command's time changed within its runs' spread, benchmarks/RESULTS-performance.md)."""


@contextmanager
def local_client(workers: int, dashboard: str | None) -> Iterator[Client]:
    """A client of a new cluster of ``workers`` single-threaded worker processes on this machine, its dashboard at ``dashboard`` (None: none)."""
    with main_module_not_reimported():
        cluster = _started_local_cluster(workers, dashboard)
        with cluster, Client(cluster, set_as_default=False) as client:
            client.register_plugin(IgnoreInterrupts())
            yield client


START_ATTEMPTS = 3
"""Starts of the local cluster tried before giving up: on a busy machine (a load of 17 on 2
cores) a worker process can miss distributed's start timeout once and start the next time."""


def _started_local_cluster(workers: int, dashboard: str | None) -> LocalCluster:
    """A new local cluster, its start retried (``START_ATTEMPTS``) with a line saying so; one that
    cannot start is an ``EngineError`` (exit 5) naming why, never an internal error."""
    for attempt in range(1, START_ATTEMPTS + 1):
        try:
            settings = worker_settings() if dashboard else {**worker_settings(), **UNPROFILED}
            with dask.config.set(settings):  # read as each nanny is made: a worker it restarts keeps the environment, and is spawned
                return LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=dashboard,
                    # Without a dashboard the scheduler still serves HTTP (health, metrics), by default on 8787:
                    # a random local port never collides with another cluster's dashboard.
                    scheduler_kwargs={} if dashboard else {"dashboard_address": "127.0.0.1:0"},
                    silence_logs=logging.ERROR,
                    env=worker_environment(),
                )
        except (TimeoutError, RuntimeError, OSError) as error:
            reason = f"{type(error).__name__}: {error}".rstrip(": ")
            if attempt == START_ATTEMPTS:
                raise EngineError(
                    f"the local Dask cluster of {workers} worker(s) did not start in {START_ATTEMPTS} attempts ({reason}); is the machine short of memory or processes?"
                ) from None
            say(f"the local Dask cluster was slow to start ({reason}; a busy machine?): trying again ({attempt + 1} of {START_ATTEMPTS})")


@contextmanager
def main_module_not_reimported() -> Iterator[None]:
    """While the local cluster lives, worker processes do not import the caller's main module.

    A new worker process (multiprocessing's spawn, and forkserver's children) imports the parent's
    ``__main__`` from its file or module name, which runs a script's top-level code again: an
    ``alc_dask.evaluate`` there, outside an ``if __name__ == "__main__":`` block, started a cluster
    inside the worker, which failed, and the call hung. The workers need nothing of it (tasks carry
    their own code), so the main module's file and spec are hidden while workers may start."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved = {name: vars(main)[name] for name in ("__file__", "__spec__") if name in vars(main)}
    vars(main).pop("__file__", None)
    main.__spec__ = None
    try:
        yield
    finally:
        vars(main).pop("__spec__", None)
        vars(main).update(saved)


class IgnoreInterrupts(WorkerPlugin):
    """Local workers share the terminal's process group: Ctrl-C reaches them too, and each would print
    a traceback. They ignore it; the runner stops them when it is interrupted."""

    name = "alc-dask-ignore-interrupts"

    def setup(self, worker) -> None:
        if threading.current_thread() is threading.main_thread():  # only there can signals be handled
            signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def scheduler_client(scheduler: str, workers: int) -> Iterator[Client]:
    """A client of the running cluster at ``scheduler`` once it has ``workers`` workers."""
    address = scheduler_address(scheduler)
    _check_scheduler_answers(address, scheduler)
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        raise EngineError(f"cannot reach the Dask scheduler at {scheduler!r}: {error}") from None
    with client:
        try:
            client.wait_for_workers(workers, timeout=WORKERS_TIMEOUT)
        except TimeoutError:
            raise EngineError(f"the scheduler at {scheduler!r} has fewer than {workers} workers after {WORKERS_TIMEOUT}s") from None
        yield client


def cluster_dashboard(client: Client, scheduler: str) -> str:
    """The link of a running cluster's dashboard. Its scheduler reports an HTTP server even without
    one (for health checks and metrics): whether the dashboard's Bokeh application is mounted on it says."""
    link = client.dashboard_link
    if link and client.run_on_scheduler(_serves_dashboard):
        return f"Dask dashboard of the cluster: {link}"
    return f"the Dask cluster at {scheduler!r} serves no dashboard (its scheduler runs with --no-dashboard, or without bokeh installed)"


def _serves_dashboard(dask_scheduler) -> bool:
    return bool(dask_scheduler.http_application.applications)


def _check_scheduler_answers(address: str, shown: str) -> None:
    """EngineError, at once and in one line, unless a Dask scheduler answers at ``address``.

    A ``Client`` that fails to start can print a traceback on exit after waiting 20 s more, and
    a service that is not Dask (a web server, say) makes it try to allocate exabytes.
    """
    with ThreadPoolExecutor(1) as thread:  # its own event loop, also when the caller runs one (Jupyter)
        try:
            identity = thread.submit(asyncio.run, _identity(address)).result()
        except OSError as error:  # refused, timed out, unknown host, closed
            raise EngineError(f"cannot reach the Dask scheduler at {shown!r}: {error}") from None
        except MemoryError:  # another service's reply read as the length of a Dask message
            identity = None
        except Exception as error:  # noqa: BLE001 - e.g. tls:// without TLS configured
            raise EngineError(f"cannot connect to the Dask scheduler at {shown!r}: {type(error).__name__}: {error}") from None
    if not isinstance(identity, dict) or identity.get("type") != "Scheduler":
        raise EngineError(f"cannot use {shown!r}: something answered, but not a Dask scheduler (another service, or a TLS scheduler addressed without tls://?)")


async def _identity(address: str):
    timeout = parse_timedelta(CONNECT_TIMEOUT)
    comm = await open_comm(address, timeout=timeout, **Security().get_connection_args("client"))
    try:
        await asyncio.wait_for(comm.write({"op": "identity", "reply": True}), timeout)
        return await asyncio.wait_for(comm.read(), timeout)
    finally:
        comm.abort()
