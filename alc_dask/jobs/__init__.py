"""Job specs: what to evaluate (a release, scenarios or their generators) and where results go."""

from alc_dask.errors import JobSpecError
from alc_dask.jobs.load import check_files, load_job, resolve_paths, validate_job
from alc_dask.jobs.scenarios import Scenario, expand, scenario_id, scenario_seed
from alc_dask.jobs.spec import JobSpec, job_model

__all__ = [
    "JobSpec",
    "JobSpecError",
    "Scenario",
    "check_files",
    "expand",
    "job_model",
    "load_job",
    "resolve_paths",
    "scenario_id",
    "scenario_seed",
    "validate_job",
]
