"""Where a job runs: a running Dask cluster, or a local one sized to the machine.

The local default is one single-threaded worker process per core: scenarios are CPU-bound Python
and Numba, so processes (not threads) give the parallelism, and one thread each keeps BLAS and
scikit-learn from oversubscribing the cores.
"""

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from distributed import Client, LocalCluster

CONNECT_TIMEOUT = "10s"
WORKERS_TIMEOUT = 120


class EngineError(RuntimeError):
    """The cluster cannot be reached or used."""


def local_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@contextmanager
def connect(scheduler: str | None = None, workers: int | None = None) -> Iterator[Client]:
    """A client of ``scheduler`` (an address or a scheduler file), else of a new ``LocalCluster``.

    With a scheduler, ``workers`` is how many workers to wait for before starting; locally it is
    how many worker processes to start (default: one per core).
    """
    if scheduler is None:
        with LocalCluster(
            n_workers=workers or local_workers(),
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        ) as cluster, Client(cluster, set_as_default=False) as client:
            yield client
        return
    target = {"scheduler_file": scheduler} if Path(scheduler).is_file() else {"address": scheduler}
    try:
        client = Client(**target, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        raise EngineError(f"cannot reach the Dask scheduler at {scheduler!r}: {error}") from None
    with client:
        try:
            client.wait_for_workers(workers or 1, timeout=WORKERS_TIMEOUT)
        except TimeoutError:
            raise EngineError(f"the scheduler at {scheduler!r} has fewer than {workers or 1} workers after {WORKERS_TIMEOUT}s") from None
        yield client
