"""The workers of the local cluster alc_dask starts keep glibc's adaptive malloc thresholds: distributed's
nanny would set MALLOC_TRIM_THRESHOLD_, which made the pandas work of the disclosure and SUDA searches
2-3 times slower in a worker than in one process (benchmarks/RESULTS-suda.md). Without a dashboard
they do not run distributed's profiler, which samples their stacks for the dashboard alone."""

import os

import dask
import distributed  # noqa: F401 - loads distributed's configuration


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
