"""The batch engine: a job's scenarios fanned out on a Dask cluster, results written as they finish.

Names are imported on first use (PEP 562), and distributed only when a cluster is connected: `plan`
reads a job and its release without it.
"""

from alc_dask.plugins import lazy_exports

_EXPORTS = {
    "EngineError": "alc_dask.engine.addresses",
    "OnDemandClient": "alc_dask.engine.cluster",
    "connect": "alc_dask.engine.cluster",
    "local_workers": "alc_dask.engine.cluster",
    "fan_out": "alc_dask.engine.runner",
    "job_context": "alc_dask.engine.runner",
    "manifest": "alc_dask.engine.runner",
    "prepare_release": "alc_dask.engine.prepare",
    "run_job": "alc_dask.engine.runner",
    "JobContext": "alc_dask.engine.task",
    "ScenarioOutcome": "alc_dask.engine.task",
    "run_scenario": "alc_dask.engine.task",
    "run_scenarios": "alc_dask.engine.task",
}

__all__ = list(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
