"""Where a job runs: a running Dask cluster, or a local one sized to the machine.

The local default is one single-threaded worker process per core: scenarios are CPU-bound Python
and Numba, so processes (not threads) give the parallelism, and one thread each keeps BLAS and
scikit-learn from oversubscribing the cores.
"""

import asyncio
import json
import logging
import os
import re
import signal
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

from dask.utils import parse_timedelta
from distributed import Client, LocalCluster, WorkerPlugin
from distributed.comm import CommClosedError
from distributed.comm import connect as open_comm
from distributed.security import Security

from alc_dask.engine.progress import say
from alc_dask.errors import ClusterError, OptionError

CONNECT_TIMEOUT = "10s"
WORKERS_TIMEOUT = 120
PROTOCOLS = ("tcp", "tls", "ws", "wss", "ucx")
ADDRESS = re.compile(r"(?:(?P<protocol>[a-z]+)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(?P<port>\d{1,5})")
EXPECTED_ADDRESS = f"expected PROTOCOL://HOST:PORT with PROTOCOL one of {', '.join(PROTOCOLS)} (e.g. tcp://10.0.0.5:8786), or the path of a scheduler file"
DEFAULT_DASHBOARD = "127.0.0.1:8787"
"""Where a local cluster's dashboard binds without an address: this machine only, Dask's usual port
(if it is taken, distributed warns and binds a free one; the link printed is the real one)."""
DASHBOARD_ADDRESS = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)?:(?P<port>\d{1,5})")


class EngineError(ClusterError, RuntimeError):
    """The cluster cannot be reached or used."""


def local_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def scheduler_address(scheduler: str) -> str:
    """The address of ``scheduler``, an address or a scheduler file; ``OptionError`` when it is neither.

    Checked before connecting: distributed turns a malformed address into a traceback after a
    long wait.
    """
    path = Path(scheduler)
    if path.is_file():
        return _address_in_file(path)
    if not _is_address(scheduler):
        raise OptionError(f"scheduler {scheduler!r}: not a scheduler address nor an existing scheduler file; {EXPECTED_ADDRESS}")
    return scheduler


def check_dashboard(dashboard: bool | str, scheduler: str | None = None) -> None:
    """``OptionError`` unless ``dashboard`` is a bool, or an address (HOST:PORT, or :PORT for every interface) for a local cluster."""
    if not isinstance(dashboard, str):
        return
    if not is_dashboard_address(dashboard):
        raise OptionError(f"dashboard address {dashboard!r}: expected HOST:PORT or :PORT (e.g. 127.0.0.1:8790)")
    if scheduler is not None:
        raise OptionError(
            f"dashboard address {dashboard!r}: an address binds a local cluster's dashboard; a running cluster's is where its scheduler serves it "
            "(--dashboard without an address prints its link)"
        )


def is_dashboard_address(text: str) -> bool:
    match = DASHBOARD_ADDRESS.fullmatch(text)
    return bool(match) and int(match["port"]) < 65536


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
    if scheduler is None:
        clients = _local_client(workers or local_workers(), DEFAULT_DASHBOARD if dashboard is True else dashboard or None)
    else:
        clients = _scheduler_client(scheduler, workers or 1)
    with clients as client:
        if dashboard:
            say(f"Dask dashboard: {client.dashboard_link}" if scheduler is None else _cluster_dashboard(client, scheduler))
        try:
            yield client
        except CommClosedError as error:
            raise EngineError(f"lost the connection to the Dask cluster: {error}") from error


@contextmanager
def _scheduler_client(scheduler: str, workers: int) -> Iterator[Client]:
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


class OnDemandClient:
    """A cluster connected when first needed: a job whose scenarios are all finished starts none.

    Given ``client``, that one is used and left open; otherwise ``connect(scheduler, workers)``.
    """

    def __init__(self, client=None, scheduler: str | None = None, workers: int | None = None, dashboard: bool | str = False):
        self._given, self._scheduler, self._workers, self._dashboard = client, scheduler, workers, dashboard
        self._stack = ExitStack()

    def get(self) -> Client:
        if self._given is None:
            self._given = self._stack.enter_context(connect(self._scheduler, self._workers, self._dashboard))
        return self._given

    def __enter__(self) -> "OnDemandClient":
        return self

    def __exit__(self, *exc) -> bool:
        return self._stack.__exit__(*exc)  # the error too: ``connect`` makes a lost connection an ``EngineError``


def _cluster_dashboard(client: Client, scheduler: str) -> str:
    """The link of a running cluster's dashboard. Its scheduler reports an HTTP server even without
    one (for health checks and metrics): whether the dashboard's Bokeh application is mounted on it says."""
    link = client.dashboard_link
    if link and client.run_on_scheduler(_serves_dashboard):
        return f"Dask dashboard of the cluster: {link}"
    return f"the Dask cluster at {scheduler!r} serves no dashboard (its scheduler runs with --no-dashboard, or without bokeh installed)"


def _serves_dashboard(dask_scheduler) -> bool:
    return bool(dask_scheduler.http_application.applications)


class IgnoreInterrupts(WorkerPlugin):
    """Local workers share the terminal's process group: Ctrl-C reaches them too, and each would print
    a traceback. They ignore it; the runner stops them when it is interrupted."""

    name = "alc-dask-ignore-interrupts"

    def setup(self, worker) -> None:
        if threading.current_thread() is threading.main_thread():  # only there can signals be handled
            signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def _local_client(workers: int, dashboard: str | None) -> Iterator[Client]:
    with (
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=dashboard,
            # Without a dashboard the scheduler still serves HTTP (health, metrics), by default on 8787:
            # a random local port never collides with another cluster's dashboard.
            scheduler_kwargs={} if dashboard else {"dashboard_address": "127.0.0.1:0"},
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        client.register_plugin(IgnoreInterrupts())
        yield client


def _is_address(text: str) -> bool:
    match = ADDRESS.fullmatch(text)
    return bool(match) and (match["protocol"] or "tcp") in PROTOCOLS and 0 < int(match["port"]) < 65536


def _address_in_file(path: Path) -> str:
    try:
        address = json.loads(path.read_text()).get("address")
    except (OSError, UnicodeDecodeError, ValueError, AttributeError) as error:
        raise OptionError(f"scheduler file {path}: cannot be read as a Dask scheduler file (JSON with an 'address'): {error}") from None
    if not isinstance(address, str) or not _is_address(address):
        raise OptionError(f"scheduler file {path}: 'address' is {address!r}; {EXPECTED_ADDRESS}")
    return address


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
