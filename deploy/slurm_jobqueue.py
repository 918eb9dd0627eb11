"""Run a job on a SLURM cluster with dask-jobqueue (``pip install alc-dask[slurm]``).

This script is the runner: on a login node it starts the Dask scheduler, asks SLURM for batch jobs
of single-threaded workers (one per core), runs the job on them with ``run_job(..., client=...)``
and writes the results; the workers start this same Python (a shared file system holds the
environment), so they import the same alc_dask:

    python deploy/slurm_jobqueue.py jobs/paper-adult.yaml --jobs 4 --cores 8 --out /scratch/$USER/paper-adult

It exits as ``alc-dask run`` does: 0, or 3 when scenarios failed (re-running resumes and retries them).
"""

import argparse
import sys

from dask_jobqueue import SLURMCluster
from distributed import Client

from alc_dask.cli import EXIT_SCENARIOS_FAILED
from alc_dask.engine import run_job

SINGLE_THREADED = "export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1"
"""Scenarios run scikit-learn and Numba: one thread per worker process, as on a local cluster."""


def slurm_cluster(
    cores: int, gib_per_worker: float = 4, walltime: str = "04:00:00", queue: str | None = None, account: str | None = None, **options
) -> SLURMCluster:
    """A SLURM cluster whose batch jobs each hold ``cores`` single-threaded workers of ``gib_per_worker`` GiB.

    ``options`` go to ``SLURMCluster`` (e.g. ``interface="ib0"``, ``local_directory="$TMPDIR"``,
    ``scheduler_options``). Building one submits nothing: ``scale`` does.
    """
    return SLURMCluster(
        queue=queue,
        account=account,
        cores=cores,
        processes=cores,  # one worker process per core, one thread each
        memory=f"{gib_per_worker * cores:g}GiB",
        walltime=walltime,
        python=sys.executable,
        job_script_prologue=[SINGLE_THREADED],
        **options,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("job", help="the job file")
    parser.add_argument("--jobs", type=int, default=4, help="SLURM jobs to start (default: 4)")
    parser.add_argument("--cores", type=int, default=8, help="cores, hence worker processes, per SLURM job (default: 8)")
    parser.add_argument("--gib-per-worker", type=float, default=4, help="memory of each worker in GiB (default: 4)")
    parser.add_argument("--walltime", default="04:00:00")
    parser.add_argument("--queue", help="the SLURM partition")
    parser.add_argument("--account", help="the SLURM account to charge")
    parser.add_argument("--interface", help="network interface the workers reach the scheduler on (e.g. ib0)")
    parser.add_argument("--out", help="output directory (default: the job's output)")
    args = parser.parse_args()
    options = {"interface": args.interface} if args.interface else {}
    with slurm_cluster(args.cores, args.gib_per_worker, args.walltime, args.queue, args.account, **options) as cluster, Client(cluster) as client:
        cluster.scale(jobs=args.jobs)
        print(f"Dask dashboard: {client.dashboard_link}", file=sys.stderr)
        client.wait_for_workers(args.cores)  # the first SLURM job: the others join as SLURM starts them
        scores = run_job(args.job, client=client, out=args.out)
    failed = int((scores["status"] == "failed").sum())
    print(f"{len(scores)} scenarios, {failed} failed")
    raise SystemExit(EXIT_SCENARIOS_FAILED if failed else 0)


if __name__ == "__main__":
    main()
