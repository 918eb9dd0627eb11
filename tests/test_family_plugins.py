"""Families and attacks from outside alc_dask, on real scheduler and worker processes: packages
installed with entry points (the plugin family example, and a toy attack), and an attack registered
with ``register_attack`` in the client."""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
import yaml
from test_cli_engine import Cluster, alc_dask

from alc_dask.apps.synthetic import make_demo_release

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_FAMILY = ROOT / "examples" / "plugin-family"
TOY_ATTACK = Path(__file__).with_name("toy_attacks")


def install(target: Path, *packages: Path) -> Path:
    """``packages`` installed with pip (their entry points too) into ``target``, a folder to put on
    the path of every process; each is built from a copy, so that no build files are left beside its source."""
    sources = target.with_name(f"{target.name}-sources")
    copies = [shutil.copytree(package, sources / package.name, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")) for package in packages]
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--target", str(target), *map(str, copies)], check=True
    )
    return target


def on_path(folder: Path) -> str:
    """PYTHONPATH with ``folder`` first."""
    return os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))


@pytest.fixture(scope="module")
def plugins_installed(tmp_path_factory) -> Path:
    return install(tmp_path_factory.mktemp("site"), PLUGIN_FAMILY, TOY_ATTACK)


@pytest.fixture
def cluster_with_plugins(plugins_installed, tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", on_path(plugins_installed))
    running = Cluster(tmp_path, workers=2)
    yield running
    running.stop()


def write_release(folder: Path) -> None:
    tables = make_demo_release(800, seed=2)
    tables["original"].iloc[:600].to_parquet(folder / "original.parquet")
    tables["original"].iloc[:600].to_parquet(folder / "leaky.parquet")
    tables["original"].iloc[600:].to_parquet(folder / "control.parquet")


@pytest.mark.long
def test_an_installed_family_and_attack_run_on_a_cluster_with_summary_and_audit(cluster_with_plugins, tmp_path):
    write_release(tmp_path)
    job = {
        "name": "toy",
        "release": {"original": "original.parquet", "anonymized": ["leaky.parquet"], "control": "control.parquet"},
        "scenarios": [
            {"family": "exact_copies"},
            {"secret": "region", "known": ["age", "sex"], "attack": {"name": "first_row"}},
            {"family": "singling_out", "mode": "univariate", "n_attacks": 50},
            {"family": "membership", "attack": "copies_found"},
        ],
        "baseline_settings": {"candidates": ["majority"], "trees": 10},
        "output": "out",
    }
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
    plan = alc_dask("plan", tmp_path / "job.yaml")
    assert plan.returncode == 0, plan.stderr
    assert [line.split("\t")[1] for line in plan.stdout.splitlines()] == ["exact_copies", "alc", "singling_out", "membership"]

    run = alc_dask("run", tmp_path / "job.yaml", "--scheduler", cluster_with_plugins.file, "--workers", "2")
    assert run.returncode == 0, run.stderr
    assert sorted(path.name for path in (tmp_path / "out" / "scores").iterdir()) == ["alc", "exact_copies", "membership", "singling_out"]
    copies = pd.read_parquet(tmp_path / "out" / "scores" / "exact_copies")  # the plugin's own table, in the columns it declares
    assert copies.columns[-2:].tolist() == ["copy_risk", "confidence_level"]
    assert copies["copy_share"].tolist() == [1.0] and copies["copy_risk"].tolist() == [1.0]
    scores = pd.concat([pd.read_parquet(folder) for folder in (tmp_path / "out" / "scores").iterdir()]).set_index("family")
    assert (scores["status"] == "ok").all() and scores["worker"].str.startswith("tcp://127.0.0.1:").all()
    assert scores.loc["alc", "attack"] == "first_row"
    assert scores.loc["membership", "attack"] == "copies_found" and scores.loc["membership", "auc"] == 1.0  # every member copied, no one else

    summary = alc_dask("summarize", tmp_path / "out")
    assert summary.returncode == 0, summary.stderr
    assert "== Exact copies ==" in summary.stdout and "Exact copies by risk:" in summary.stdout

    audit = alc_dask("audit", tmp_path / "job.yaml", "--scheduler", cluster_with_plugins.file)
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
        "scenarios[0].family: unknown family 'singling_outt'; known families: alc, disclosure, identification, inference, linkability, membership, near_copies, privacy_models, relative_threat, singling_out"
        in plan.stderr
    )
    assert "scenarios[1]: Value error, aux_cols: the two halves must be disjoint; both hold ['age']" in plan.stderr


CLIENT_SCRIPT = """
import sys
import numpy as np
from alc_dask import register_attack, run_job
from alc_dask.attacks.base import AttributeAttack, Predictions


class Majority(AttributeAttack):
    def prepare(self, release, task):
        return np.bincount(release.true_codes(task.secret, release.anonymized[0])).argmax()

    def predict(self, prepared, targets):
        n = len(targets.rows)
        return Predictions(np.full(n, prepared, dtype=np.int32), np.ones(n), np.zeros(n, dtype=bool))


register_attack("client_majority", Majority)
scores = run_job(sys.argv[1], scheduler=sys.argv[2], progress=False)
print(scores[["status", "attack", "worker", "error"]].to_string())
"""


@pytest.mark.long  # a cluster of its own: 10-25 s
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
        scores = pd.read_parquet(tmp_path / "out" / "scores" / "alc")
        assert (scores["status"] == "ok").all(), scores["error"].tolist()
        assert (scores["attack"] == "client_majority").all() and scores["worker"].str.startswith("tcp://127.0.0.1:").all()
    finally:
        cluster.stop()
