"""Local worker processes forked from a server that has already imported what they run.

A worker process spawned afresh starts Python, imports distributed, and at its first scenario
scikit-learn, Numba and the families: in a check of 2 000 rows on 2 cores half of each worker's
samples were imports (py-spy), about 1.5 s of CPU a worker. On Linux, multiprocessing's fork
server imports them once, in a process of its own started by ``start``; every local worker is then
a fork of it, ready at once (a worker restarted by its nanny is spawned, as before). A command
calls ``start`` as soon as it knows it will start a local cluster
(``cluster.start_worker_server_for``), so that the server imports while the command reads its job
(``run``, ``audit``) or its inputs (``check``, ``evaluate``, ``worst-columns``), or makes them
(``demo``).

The server is started with the environment distributed's nanny would give a spawned worker
(``distributed.nanny.pre-spawn-environ``: one BLAS and OpenMP thread, and ``WORKER_ENVIRONMENT``),
since a forked worker inherits the server's, not the one the nanny sets in this process. It is this
process's multiprocessing fork server: a program that also starts processes by the "forkserver"
method (Python's default on Linux from 3.14) gets this one, these modules and this environment.
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import os
import sys
import threading
from pathlib import Path

import dask
import yaml

WORKER_ENVIRONMENT = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
"""Workers keep glibc's own malloc thresholds: distributed's nanny sets ``MALLOC_TRIM_THRESHOLD_``
(65536) in each worker's environment, which also fixes glibc's otherwise adaptive mmap threshold,
so that every array beyond 128 KiB is mapped and unmapped afresh; pandas and NumPy work of many
mid-sized arrays (group-by counts, SUDA's searches) then ran 2-3 times slower in a worker than in
one process (docs/concepts/disclosure-at-scale.md). None removes the variable from the workers'."""

WORKER_MODULES = (
    "alc_dask.engine.server_imports",
    "distributed",
    "numba.typed",
    "numba.core.typing.cffi_utils",
    "sklearn.ensemble",
    "sklearn.linear_model",
    "sklearn.model_selection",
    "alc_dask.engine.task",
    "alc_dask.baseline.sources",
    "alc_dask.families.alc.family",
    "alc_dask.families.alc.loop.scenario_run",
    "alc_dask.families.disclosure.family",
    "alc_dask.families.membership.family",
    "alc_dask.families.near_copies.family",
    "alc_dask.families.wp29.inference",
    "alc_dask.families.wp29.linkability",
    "alc_dask.families.wp29.singling_out",
    "alc_dask.neighbors.best_match",
    "alc_dask.neighbors.nearest",
    "alc_dask.neighbors.weighted",
    "alc_dask.utility.fidelity",
    "alc_dask.engine.worker_warmup",
)
"""What a worker of ``check`` imports to evaluate (a module missing here is imported by the worker
that needs it, as before; one that cannot be imported is skipped by the server), between the two
modules that pause the server's garbage collection and resume it."""

PRE_SPAWN = "distributed.nanny.pre-spawn-environ"
HASH_SEED = "6640"
"""The nanny's ``PYTHONHASHSEED`` for its workers when none is set: the same string hashes on every worker."""

_started: bool | None = None
_lock = threading.Lock()


def start() -> bool:
    """Start this process's fork server of local workers, once; False but on Linux, where workers
    are spawned (macOS's system libraries are not safe in a process forked without exec). Returns
    at once: the server imports ``WORKER_MODULES`` in the background; the first fork waits for it."""
    global _started
    with _lock:
        if _started is None:
            _started = sys.platform.startswith("linux") and "forkserver" in multiprocessing.get_all_start_methods()
            if _started:
                _start_server()
        return _started


def worker_settings() -> dict:
    """The Dask settings under which a local cluster's nannies start their workers."""
    return {**WORKER_ENVIRONMENT, "distributed.worker.multiprocessing-method": "forkserver" if start() else "spawn"}


def worker_environment() -> dict[str, str]:
    """This process's environment variables as a new worker should see them (the nanny's ``env``,
    set in the worker as it starts): a forked worker inherits the server's, from when it started,
    so a variable set since (an object store's address, say) would not reach it. The variables
    the nanny sets before a start (``PRE_SPAWN``) are the server's own, left out."""
    before_start = set(_pre_spawn()) | {"PYTHONHASHSEED"}
    return {name: value for name, value in os.environ.items() if name not in before_start}


def _start_server() -> None:
    from multiprocessing import forkserver

    # As the nanny reads them: a variable already set here wins; None removes one.
    changes = {name: None if value is None else os.environ.get(name, str(value)) for name, value in _pre_spawn().items()}
    if os.environ.get("PYTHONHASHSEED") in (None, "0"):
        changes["PYTHONHASHSEED"] = HASH_SEED
    saved = {name: os.environ.get(name) for name in changes}
    try:
        _set(changes)
        multiprocessing.set_forkserver_preload(list(WORKER_MODULES))
        forkserver.ensure_running()  # the server inherits this environment
    finally:
        _set(saved)


def _pre_spawn() -> dict:
    """The variables the nanny sets before starting a worker (``PRE_SPAWN``, with ``WORKER_ENVIRONMENT``)."""
    _distributed_defaults()
    with dask.config.set(WORKER_ENVIRONMENT):
        return dict(dask.config.get(PRE_SPAWN))  # a copy: the dict itself is restored as the settings end


def _distributed_defaults() -> None:
    """distributed's default settings, read as importing distributed adds them. A command starts the
    server before it imports distributed (0.3 s): the nanny's variables were then missing, and every
    worker ran two OpenMP and BLAS threads, so that a boosting model predicting in one worker while
    the other fitted spun on the same two cores (an ALC scenario 0.2 s alone, 1.8 s in a check)."""
    if "distributed" not in sys.modules:
        defaults = Path(importlib.util.find_spec("distributed").origin).with_name("distributed.yaml")
        dask.config.update_defaults(yaml.safe_load(defaults.read_text()))


def _set(variables: dict[str, str | None]) -> None:
    """Set these environment variables of this process; None removes one."""
    for name, value in variables.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
