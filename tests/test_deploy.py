"""The deployment examples in deploy/: the SLURM job script dask-jobqueue writes, and Kubernetes
files that parse and run the image deploy/Dockerfile builds, with its commands."""

import importlib.util
import re
import shlex
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
IMAGE = f"registry.example.org/alc-dask:{PROJECT['version']}"


def example(name: str):
    """A deploy/ script imported as a module (its main() is not run)."""
    spec = importlib.util.spec_from_file_location(name, DEPLOY / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_slurm_job_script_starts_single_threaded_workers_with_the_resources_asked():
    pytest.importorskip("dask_jobqueue")
    slurm = example("slurm_jobqueue")
    local = {"host": "127.0.0.1", "dashboard_address": "127.0.0.1:0"}  # its scheduler runs here; no SLURM is needed to write the script
    with slurm.slurm_cluster(6, gib_per_worker=3, walltime="02:00:00", queue="compute", account="privacy", scheduler_options=local) as cluster:
        script = cluster.job_script()
        address = cluster.scheduler_address
    directives = [line for line in script.splitlines() if line.startswith("#SBATCH")]
    assert directives == [
        "#SBATCH -J dask-worker",
        "#SBATCH -p compute",
        "#SBATCH -A privacy",
        "#SBATCH -n 1",
        "#SBATCH --cpus-per-task=6",
        "#SBATCH --mem=18G",
        "#SBATCH -t 02:00:00",
    ]
    assert slurm.SINGLE_THREADED in script.splitlines()
    command = shlex.split(script.strip().splitlines()[-1])
    assert command[:4] == [sys.executable, "-m", "distributed.cli.dask_worker", address]
    options = dict(zip(command[4::2], command[5::2]))
    assert options["--nworkers"] == "6" and options["--nthreads"] == "1" and options["--memory-limit"] == "3.00GiB"


def test_the_extras_install_the_deployment_tools_in_ranges_that_hold_the_installed_ones():
    extras = {name: [Requirement(r) for r in requirements] for name, requirements in PROJECT["optional-dependencies"].items()}
    assert [r.name for r in extras["slurm"]] == ["dask-jobqueue"] and [r.name for r in extras["kubernetes"]] == ["dask-kubernetes"]
    assert "dask-jobqueue" in [r.name for r in extras["test"]]  # the SLURM test runs in CI
    for requirement in extras["slurm"] + extras["kubernetes"]:
        try:
            installed = version(requirement.name)
        except ImportError:
            continue
        assert requirement.specifier.contains(installed), (requirement, installed)


def containers(resource: dict) -> dict[str, dict]:
    return {role: resource["spec"][role]["spec"]["containers"][0] for role in ("scheduler", "worker")}


def test_the_operator_cluster_runs_the_dockerfile_image_with_single_threaded_workers():
    cluster = yaml.safe_load((DEPLOY / "kubernetes" / "dask-cluster.yaml").read_text())
    assert (cluster["apiVersion"], cluster["kind"], cluster["metadata"]["name"]) == ("kubernetes.dask.org/v1", "DaskCluster", "alc")
    scheduler, worker = containers(cluster).values()
    assert scheduler["image"] == worker["image"] == IMAGE
    assert scheduler["args"][:2] == ["dask", "scheduler"] and worker["args"][:2] == ["dask", "worker"]
    arguments = dict(zip(worker["args"][2::2], worker["args"][3::2]))
    assert arguments["--nthreads"] == "1" and arguments["--name"] == "$(DASK_WORKER_NAME)"
    assert worker["resources"]["limits"]["cpu"] == "1"
    assert cluster["spec"]["scheduler"]["service"]["selector"]["dask.org/cluster-name"] == "alc"


def test_the_operator_runner_sets_the_workers_and_image_of_the_cluster_spec():
    spec = example("kubernetes_operator").cluster_spec(3, image="registry.example.org/alc-dask:test")
    assert spec["spec"]["worker"]["replicas"] == 3
    assert {c["image"] for c in containers(spec).values()} == {"registry.example.org/alc-dask:test"}


def test_the_helm_values_and_the_audit_cronjob_run_the_same_image_and_commands():
    values = yaml.safe_load((DEPLOY / "helm-values.yaml").read_text())
    for role in ("scheduler", "worker"):
        assert f"{values[role]['image']['repository']}:{values[role]['image']['tag']}" == IMAGE
    assert values["worker"]["threads_per_worker"] == 1
    cronjob = yaml.safe_load((DEPLOY / "kubernetes" / "audit-cronjob.yaml").read_text())
    (audit,) = cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"]
    assert audit["image"] == IMAGE and audit["command"][:2] == ["alc-dask", "audit"]


def test_the_dockerfile_builds_the_image_named_with_the_commands_used():
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert re.search(rf"docker build -f deploy/Dockerfile -t {re.escape(IMAGE)} \.", dockerfile)
    assert "RUN pip install ." in dockerfile  # the project: its alc-dask script, and distributed's dask command
    assert PROJECT["scripts"]["alc-dask"] == "alc_dask.cli:main"
    assert any(Requirement(r).name == "distributed" for r in PROJECT["dependencies"])
    assert any(Requirement(r).name == "bokeh" for r in PROJECT["dependencies"])  # the scheduler's dashboard
