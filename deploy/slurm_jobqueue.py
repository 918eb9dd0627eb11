"""Run a job on a SLURM cluster with dask-jobqueue (pip install dask-jobqueue).

Each SLURM job holds workers of one thread each; the runner (this script, on a login node)
submits the scenarios and writes the results to a shared file system:

    python deploy/slurm_jobqueue.py jobs/paper-adult.yaml --jobs 4 --cores 8
"""

import argparse

from dask_jobqueue import SLURMCluster
from distributed import Client

from alc_dask import run_job


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("job")
    parser.add_argument("--jobs", type=int, default=4, help="SLURM jobs to start")
    parser.add_argument("--cores", type=int, default=8, help="cores (= worker processes) per SLURM job")
    parser.add_argument("--queue", default="compute")
    parser.add_argument("--out")
    args = parser.parse_args()
    cluster = SLURMCluster(
        queue=args.queue,
        cores=args.cores,
        processes=args.cores,  # one single-threaded worker per core
        memory=f"{4 * args.cores}GiB",
        walltime="04:00:00",
        job_script_prologue=["export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1", "source .venv/bin/activate"],
    )
    cluster.scale(jobs=args.jobs)
    with Client(cluster) as client:
        client.wait_for_workers(args.cores)
        scores = run_job(args.job, client=client, out=args.out)
    failed = int((scores["status"] != "ok").sum())
    print(f"{len(scores)} scenarios, {failed} failed")
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
