"""Run a job on a Dask cluster that the Dask Kubernetes operator starts (``pip install alc-dask[kubernetes]``).

This script is the runner, on any machine with kubectl access to a namespace where the operator
runs: it creates the cluster of ``kubernetes/dask-cluster.yaml`` (``--workers`` workers), reaches
its scheduler (forwarding the port when outside Kubernetes), runs the job with
``run_job(..., client=...)``, writes the results here and deletes the cluster:

    python deploy/kubernetes_operator.py jobs/paper-adult.yaml --workers 8 --out alc-out/paper-adult

The prepared release travels from this machine to the workers through the scheduler: run it close
to the cluster (or as a pod) for large releases. It exits as ``alc-dask run`` does: 0, or 3 when
scenarios failed.
"""

import argparse
import sys
from pathlib import Path

import yaml
from distributed import Client

from alc_dask.cli import EXIT_SCENARIOS_FAILED
from alc_dask.engine import run_job

CLUSTER = Path(__file__).with_name("kubernetes") / "dask-cluster.yaml"


def cluster_spec(workers: int, image: str | None = None) -> dict:
    """The DaskCluster resource of ``CLUSTER`` with ``workers`` workers, and ``image`` in every container if given."""
    spec = yaml.safe_load(CLUSTER.read_text())
    spec["spec"]["worker"]["replicas"] = workers
    if image:
        for role in ("scheduler", "worker"):
            for container in spec["spec"][role]["spec"]["containers"]:
                container["image"] = image
    return spec


def main() -> None:
    from dask_kubernetes.operator import KubeCluster

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("job", help="the job file")
    parser.add_argument("--workers", type=int, default=8, help="worker pods of one CPU each (default: 8)")
    parser.add_argument("--image", help="the image of deploy/Dockerfile in your registry (default: the one in dask-cluster.yaml)")
    parser.add_argument("--namespace", help="Kubernetes namespace (default: the current one)")
    parser.add_argument("--out", help="output directory (default: the job's output)")
    args = parser.parse_args()
    with KubeCluster(custom_cluster_spec=cluster_spec(args.workers, args.image), namespace=args.namespace) as cluster, Client(cluster) as client:
        print(f"Dask dashboard: {client.dashboard_link}", file=sys.stderr)
        client.wait_for_workers(1)
        scores = run_job(args.job, client=client, out=args.out)
    failed = int((scores["status"] == "failed").sum())
    print(f"{len(scores)} scenarios, {failed} failed")
    raise SystemExit(EXIT_SCENARIOS_FAILED if failed else 0)


if __name__ == "__main__":
    main()
