"""Job specs: what to attack (a release, scenarios or their generators) and how to measure it."""

from alc_dask.families.alc.paper import paper_entries, paper_secrets
from alc_dask.jobs.errors import JobSpecError
from alc_dask.jobs.load import check_files, load_job, resolve_paths, validate_job
from alc_dask.jobs.scenarios import Scenario, expand, scenario_id, scenario_seed, unique_share
from alc_dask.jobs.spec import JobSpec

__all__ = [
    "JobSpec",
    "JobSpecError",
    "Scenario",
    "check_files",
    "expand",
    "load_job",
    "paper_entries",
    "paper_secrets",
    "resolve_paths",
    "scenario_id",
    "scenario_seed",
    "unique_share",
    "validate_job",
]
