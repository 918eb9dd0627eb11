"""The workers of the local cluster alc_dask starts keep glibc's adaptive malloc thresholds: distributed's
nanny would set MALLOC_TRIM_THRESHOLD_, which made the pandas work of the disclosure and SUDA searches
2-3 times slower in a worker than in one process (benchmarks/RESULTS-suda.md). Without a dashboard
they do not run distributed's profiler, which samples their stacks for the dashboard alone. Where
on Linux, they are forked from a server that imported what they run, in the
environment a spawned worker would have."""

import gc
import json
import os
import subprocess
import sys

import dask
import distributed  # noqa: F401 - loads distributed's configuration
import pytest


def _trim_threshold():
    return os.environ.get("MALLOC_TRIM_THRESHOLD_")


def test_local_workers_have_no_malloc_trim_threshold(monkeypatch):
    from alc_dask.engine.cluster import connect

    assert dask.config.get("distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_") is not None  # distributed's default sets it
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)  # an earlier cluster of this process left it in the environment
    with connect(workers=2) as client:
        seen = client.run(_trim_threshold)
    assert list(seen.values()) == [None, None]
    assert dask.config.get("distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_") is not None  # the setting is the cluster's, not this process's


def _profiling():
    return dask.config.get("distributed.worker.profile.enabled")


def test_local_workers_profile_only_for_a_dashboard():
    from alc_dask.engine.cluster import connect

    with connect(workers=2) as client:
        assert list(client.run(_profiling).values()) == [False, False]
    with connect(workers=1, dashboard="127.0.0.1:0") as client:
        assert list(client.run(_profiling).values()) == [True]
    assert dask.config.get("distributed.worker.profile.enabled") is True  # the setting is the cluster's, not this process's


def _worker_state():
    return {
        "parent": os.getppid(),
        "imported": "sklearn.ensemble" in sys.modules and "alc_dask.families.alc.family" in sys.modules,
        "threads": os.environ.get("OMP_NUM_THREADS"),
        "hash": hash("alc_dask"),
        "marker": os.environ.get("ALC_DASK_TEST_MARKER"),
        "frozen": gc.get_freeze_count(),
        "collecting": gc.isenabled(),
    }


def test_local_workers_are_forked_from_a_server_that_imported_what_they_run(monkeypatch):
    """A spawned worker imported scikit-learn and the families at its first scenario (1.5 s of CPU
    each); a forked one has them before any task. It sees the variables this process set after the
    server started (an object store's address, say), and the nanny's own (one OpenMP thread, its
    hash seed) from the server. The objects it was forked with are frozen: its garbage collections
    leave their pages shared with the server; and it collects garbage (the server paused collection
    while it imported)."""
    from alc_dask.engine import worker_server
    from alc_dask.engine.cluster import connect

    if not worker_server.start():
        pytest.skip("workers are forked on Linux only: spawned here")
    monkeypatch.setenv("ALC_DASK_TEST_MARKER", "set after the server started")
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)  # one set here would win, as for a spawned worker
    with connect(workers=2) as client:
        seen = list(client.run(_worker_state).values())
    nanny_hash = subprocess.run(
        [sys.executable, "-c", "print(hash('alc_dask'))"], env={**os.environ, "PYTHONHASHSEED": worker_server.HASH_SEED}, capture_output=True, text=True
    )
    assert all(state["parent"] != os.getpid() for state in seen)  # not children of this process: forks of the server
    assert all(state["imported"] for state in seen)
    assert [state["threads"] for state in seen] == ["1", "1"]
    assert [state["hash"] for state in seen] == [int(nanny_hash.stdout)] * 2
    assert [state["marker"] for state in seen] == ["set after the server started"] * 2
    assert all(state["frozen"] > 100_000 for state in seen)  # the imported modules' objects
    assert [state["collecting"] for state in seen] == [True, True]


SERVER_IMPORTS = """
import gc, importlib
from alc_dask.engine.worker_server import WORKER_MODULES
for module in WORKER_MODULES:
    importlib.import_module(module)
print(gc.get_stats()[2]["collections"], gc.isenabled())
"""


def test_the_server_imports_without_a_full_collection_and_collects_after():
    """The server imports what the workers run as a fork server's preload does, one module after
    another: five full collections walked every object imported so far (0.4 s of the 2.0 s a check
    of 2 000 rows waited for its workers); now none until the last module resumes collection."""
    run = subprocess.run([sys.executable, "-c", SERVER_IMPORTS], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["0", "True"]


WORKERS_OF_A_COMMAND = """
import json, sys
from alc_dask.engine import worker_server
assert "distributed" not in sys.modules
worker_server.start()  # as check, evaluate and demo start it: before distributed is imported
from alc_dask.engine.cluster import connect

def threads():
    from threadpoolctl import threadpool_info
    return sorted({(pool["user_api"], pool["num_threads"]) for pool in threadpool_info()})

with connect(workers=1) as client:
    print(json.dumps(list(client.run(threads).values())))
"""


def test_workers_of_a_server_started_before_distributed_run_one_thread():
    """A command starts the server before it imports distributed, whose defaults hold the nanny's
    variables (one OpenMP and BLAS thread): they were missing, every worker ran two, and two boosting
    models on two workers spun on the same cores (an ALC scenario of a check 0.2 s alone, 1.8 s)."""
    from alc_dask.engine import worker_server

    if not worker_server.start():
        pytest.skip("workers are forked on Linux only: spawned here")
    environment = {name: value for name, value in os.environ.items() if not name.endswith("_NUM_THREADS")}
    run = subprocess.run([sys.executable, "-c", WORKERS_OF_A_COMMAND], env=environment, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen == [[["blas", 1], ["openmp", 1]]]  # the libraries read the variables as they load: in the server


FIRST_WORK = {
    "run": ("alc_dask.engine", "run_job"),
    "audit": ("alc_dask.report.nightly", "run_audit"),
    "check": ("alc_dask.apps.check", "read_inputs"),
    "worst-columns": ("alc_dask.apps.check", "read_inputs"),
}
"""What each command does first once started: reading its job and release, or its inputs."""


@pytest.mark.parametrize("command", sorted(FIRST_WORK))
@pytest.mark.parametrize("scheduler", [None, "tcp://127.0.0.1:1"])
def test_commands_start_the_server_before_they_read_unless_a_scheduler_is_named(monkeypatch, command, scheduler):
    """``run``, ``audit`` and ``worst-columns`` started the server only with their local cluster,
    after reading the job and its release or the inputs (0.8 s of a demo job's 7.4 s the workers
    waited for their imports); like ``check``, they now start it first. With a scheduler there is
    no local worker to start."""
    import importlib

    import click
    from click.testing import CliRunner

    from alc_dask.cli import main
    from alc_dask.engine import worker_server

    calls = []

    def first_work(*args, **kwargs):
        calls.append("read")
        raise click.exceptions.Exit(0)

    monkeypatch.setattr(worker_server, "start", lambda: calls.append("server"))
    module, name = FIRST_WORK[command]
    monkeypatch.setattr(importlib.import_module(module), name, first_work)
    arguments = ["job.yaml"] if command in ("run", "audit") else ["original.csv", "release.csv"]
    result = CliRunner().invoke(main, [command, *arguments, *(["--scheduler", scheduler] if scheduler else [])])
    assert result.exit_code == 0, result.output
    assert calls == (["read"] if scheduler else ["server", "read"])
