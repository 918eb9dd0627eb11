"""alc_dask: the Anonymity Loss Coefficient of anonymized data releases, computed on Dask."""

from alc_dask.data import Release
from alc_dask.engine import run_job
from alc_dask.loop import AttackLoop, AttackResult, run_attack

__version__ = "0.1.0"

__all__ = ["AttackLoop", "AttackResult", "Release", "__version__", "run_attack", "run_job"]
