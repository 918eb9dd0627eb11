"""Families and attacks from outside alc_dask, on real scheduler and worker processes: a package
installed with entry points, and an attack registered with ``register_attack`` in the client."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
import yaml
from test_cli_engine import Cluster, alc_dask

from alc_dask.apps.synthetic import make_demo_release

TOY = Path(__file__).with_name("toy_family")


@pytest.fixture(scope="module")
def toy_installed(tmp_path_factory) -> Path:
    """The toy package installed (pip, with its entry points) into a folder put on the path of every process."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--target", str(target), str(TOY)], check=True)
    return target


@pytest.fixture
def cluster_with_toy(toy_installed, tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(toy_installed), os.environ.get("PYTHONPATH")])))
    running = Cluster(tmp_path, workers=2)
    yield running
    running.stop()


def write_release(folder: Path) -> None:
    tables = make_demo_release(800, seed=2)
    tables["original"].iloc[:600].to_parquet(folder / "original.parquet")
    tables["original"].iloc[:600].to_parquet(folder / "leaky.parquet")
    tables["original"].iloc[600:].to_parquet(folder / "control.parquet")


@pytest.mark.long
def test_an_installed_family_and_attack_run_on_a_cluster_with_summary_and_audit(cluster_with_toy, tmp_path):
    write_release(tmp_path)
    job = {
        "name": "toy",
        "release": {"original": "original.parquet", "anonymized": ["leaky.parquet"], "control": "control.parquet"},
        "scenarios": [
            {"family": "exact_copies"},
            {"secret": "region", "known": ["age", "sex"], "attack": {"name": "first_row"}},
            {"family": "singling_out", "mode": "univariate", "n_attacks": 50},
        ],
        "baseline_settings": {"candidates": ["majority"], "trees": 10},
        "output": "out",
    }
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
    plan = alc_dask("plan", tmp_path / "job.yaml")
    assert plan.returncode == 0, plan.stderr
    assert [line.split("\t")[1] for line in plan.stdout.splitlines()] == ["exact_copies", "alc", "singling_out"]

    run = alc_dask("run", tmp_path / "job.yaml", "--scheduler", cluster_with_toy.file, "--workers", "2")
    assert run.returncode == 0, run.stderr
    scores = pd.read_parquet(tmp_path / "out" / "scores").set_index("family")
    assert (scores["status"] == "ok").all() and scores["worker"].str.startswith("tcp://127.0.0.1:").all()
    assert scores.loc["exact_copies", "copy_share"] == 1.0 and scores.loc["exact_copies", "risk"] == "serious"
    assert scores.loc["alc", "attack"] == "first_row"

    summary = alc_dask("summarize", tmp_path / "out")
    assert summary.returncode == 0, summary.stderr
    assert "== exact_copies ==" in summary.stdout and "Evaluations by copy_share" in summary.stdout

    audit = alc_dask("audit", tmp_path / "job.yaml", "--scheduler", cluster_with_toy.file)
    assert audit.returncode != 0 and "FLAGGED" in audit.stdout and "exact_copies" in audit.stdout


def test_unknown_families_and_attacks_are_refused_when_the_job_is_loaded(tmp_path):
    write_release(tmp_path)
    job = {
        "name": "typos",
        "release": {"original": "original.parquet", "anonymized": ["leaky.parquet"], "control": "control.parquet"},
        "scenarios": [{"family": "singling_outt"}, {"family": "linkability", "aux_cols": [["age"], ["age", "sex"]]}],
        "output": "out",
    }
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
    plan = alc_dask("plan", tmp_path / "job.yaml")
    assert plan.returncode != 0
    assert (
        "scenarios[0].family: unknown family 'singling_outt'; known families: alc, identification, inference, linkability, membership, relative_threat, singling_out"
        in plan.stderr
    )
    assert "scenarios[1]: Value error, aux_cols: the two halves must be disjoint; both hold ['age']" in plan.stderr


CLIENT_SCRIPT = """
import sys
import numpy as np
from alc_dask import register_attack, run_job
from alc_dask.attacks import Predictions


class Majority:
    def predict(self, release, secret, known, target_rows, source="original", client=None):
        codes = release.true_codes(secret, release.anonymized[0])
        n = len(target_rows)
        return Predictions(np.full(n, np.bincount(codes).argmax(), dtype=np.int32), np.ones(n), np.zeros(n, dtype=bool))


register_attack("client_majority", Majority)
scores = run_job(sys.argv[1], scheduler=sys.argv[2], progress=False)
print(scores[["status", "attack", "worker", "error"]].to_string())
"""


def test_an_attack_registered_in_the_client_runs_on_the_workers(tmp_path):
    cluster = Cluster(tmp_path, workers=2)
    try:
        write_release(tmp_path)
        job = {
            "name": "client-attack",
            "release": {"original": "original.parquet", "anonymized": ["leaky.parquet"]},
            "scenarios": [{"secret": s, "known": ["age", "sex"], "attack": {"name": "client_majority"}} for s in ("region", "education")],
            "baseline_settings": {"candidates": ["majority"], "trees": 10},
            "output": "out",
        }
        (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
        script = tmp_path / "client.py"
        script.write_text(textwrap.dedent(CLIENT_SCRIPT))
        run = subprocess.run([sys.executable, str(script), str(tmp_path / "job.yaml"), str(cluster.file)], capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        scores = pd.read_parquet(tmp_path / "out" / "scores")
        assert (scores["status"] == "ok").all(), scores["error"].tolist()
        assert (scores["attack"] == "client_majority").all() and scores["worker"].str.startswith("tcp://127.0.0.1:").all()
    finally:
        cluster.stop()
