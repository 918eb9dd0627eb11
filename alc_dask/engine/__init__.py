"""The batch engine: a job's scenarios fanned out on a Dask cluster, results written as they finish."""

from alc_dask.engine.cluster import EngineError, OnDemandClient, connect, local_workers
from alc_dask.engine.runner import fan_out, job_context, manifest, prepare_release, run_job
from alc_dask.engine.task import JobContext, ScenarioOutcome, run_scenario, run_scenarios

__all__ = [
    "EngineError",
    "JobContext",
    "OnDemandClient",
    "ScenarioOutcome",
    "connect",
    "fan_out",
    "job_context",
    "local_workers",
    "manifest",
    "prepare_release",
    "run_job",
    "run_scenario",
    "run_scenarios",
]
