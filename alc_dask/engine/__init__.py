"""The batch engine: a job's scenarios fanned out on a Dask cluster, results written as they finish."""

from alc_dask.engine.cluster import EngineError, connect, local_workers
from alc_dask.engine.runner import fan_out, manifest, prepare_release, run_job, scenario_settings
from alc_dask.engine.task import ScenarioOutcome, ScenarioSettings, run_scenario

__all__ = [
    "EngineError",
    "ScenarioOutcome",
    "ScenarioSettings",
    "connect",
    "fan_out",
    "local_workers",
    "manifest",
    "prepare_release",
    "run_job",
    "run_scenario",
    "scenario_settings",
]
