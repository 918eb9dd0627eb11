"""``--dashboard [ADDRESS]``: the local cluster's Dask dashboard where asked, its link on stderr; with
``--scheduler``, the running cluster's link; without it, no dashboard at all."""

import importlib
import inspect
import logging
import socket
import urllib.error
import urllib.request
from contextlib import contextmanager

import pytest
from click.testing import CliRunner
from distributed import LocalCluster
from test_cli_engine import alc_dask, write_job

from alc_dask.cli import EXIT_BAD_INPUT, main
from alc_dask.engine.cluster import connect


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_connect_serves_the_dashboard_at_the_address_given(capsys):
    port = free_port()
    link = f"http://127.0.0.1:{port}/status"
    with connect(workers=1, dashboard=f"127.0.0.1:{port}") as client:
        assert client.dashboard_link == link
        with urllib.request.urlopen(link, timeout=30) as page:
            assert page.status == 200 and "<title>Dask Diagnostic UI</title>" in page.read().decode()
    assert f"Dask dashboard: {link}\n" in capsys.readouterr().err


def test_without_a_dashboard_the_scheduler_serves_no_status_page_and_leaves_8787_alone(capsys):
    with connect(workers=1) as client:
        link = client.dashboard_link  # the scheduler's HTTP server (health, metrics), on a random port
        assert link.startswith("http://127.0.0.1:") and ":8787/" not in link
        with pytest.raises(urllib.error.HTTPError, match="404"):
            urllib.request.urlopen(link, timeout=30)
    assert "dashboard" not in capsys.readouterr().err


@pytest.mark.long  # 13 s on 2 cores: out of the default run, in make test's second step
def test_run_with_a_dashboard_prints_its_link_as_it_starts(tmp_path):
    job = write_job(tmp_path, ["income"], rows=300)
    port = free_port()
    result = alc_dask("run", job, "--workers", "1", "--dashboard", f"127.0.0.1:{port}")
    assert result.returncode == 0, result.stderr
    assert f"Dask dashboard: http://127.0.0.1:{port}/status\n" in result.stderr


@contextmanager
def scheduler(dashboard: bool):
    """A running cluster in this process, its scheduler serving a dashboard or not."""
    address = {"dashboard_address": "127.0.0.1:0"} if dashboard else {"dashboard_address": None, "scheduler_kwargs": {"dashboard_address": "127.0.0.1:0"}}
    with LocalCluster(n_workers=1, processes=False, protocol="tcp", host="127.0.0.1", threads_per_worker=1, silence_logs=logging.ERROR, **address) as cluster:
        yield cluster


def test_with_a_scheduler_its_dashboard_link_is_printed(capsys):
    with scheduler(dashboard=True) as cluster, connect(cluster.scheduler_address, dashboard=True):
        pass
    assert f"Dask dashboard of the cluster: {cluster.dashboard_link}\n" in capsys.readouterr().err


def test_with_a_scheduler_without_a_dashboard_it_says_so(capsys):
    with scheduler(dashboard=False) as cluster, connect(cluster.scheduler_address, dashboard=True):
        pass
    assert f"the Dask cluster at {cluster.scheduler_address!r} serves no dashboard" in capsys.readouterr().err


def test_a_dashboard_address_with_a_scheduler_is_refused_before_any_work(tmp_path):
    job = write_job(tmp_path, ["income"], rows=300)
    result = invoke("run", job, "--scheduler", "tcp://127.0.0.1:9", "--dashboard", ":8790")
    assert result.exit_code == EXIT_BAD_INPUT and "dashboard address ':8790': an address binds a local cluster's dashboard" in result.output, result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("address", ["job.yaml", "8790", "127.0.0.1:", "127.0.0.1:99999", "tcp://127.0.0.1:8790"])
def test_a_malformed_dashboard_address_is_refused(tmp_path, monkeypatch, address):
    (tmp_path / "job.yaml").write_text("")
    monkeypatch.chdir(tmp_path)
    result = invoke("run", "--dashboard", address, "job.yaml")
    assert result.exit_code == EXIT_BAD_INPUT and f"--dashboard {address!r}: expected HOST:PORT or :PORT" in result.output, result.output


CLUSTER_COMMANDS = [
    (["run", "job.yaml"], "alc_dask.engine.run_job"),
    (["audit", "job.yaml"], "alc_dask.report.nightly.run_audit"),
    (["demo"], "alc_dask.apps.demo.run_demo"),
    (["paper", "run", "job.yaml"], "alc_dask.engine.cluster.connect"),
]


@pytest.mark.parametrize(("command", "target"), CLUSTER_COMMANDS)
@pytest.mark.parametrize(("given", "passed"), [([], False), (["--dashboard"], True), (["--dashboard", ":8790"], ":8790")])
def test_every_command_that_starts_a_cluster_takes_the_dashboard(tmp_path, monkeypatch, command, target, given, passed):
    """Without ADDRESS the engine binds its default, 127.0.0.1:8787 (see the connect tests)."""
    (tmp_path / "job.yaml").write_text("")
    monkeypatch.chdir(tmp_path)
    module, name = target.rsplit(".", 1)
    signature, seen = inspect.signature(getattr(importlib.import_module(module), name)), {}

    def stop(*args, **kwargs):
        seen.update(signature.bind(*args, **kwargs).arguments)
        raise KeyboardInterrupt

    monkeypatch.setattr(target, stop)
    invoke(*command, *given)
    assert seen.get("dashboard", False) == passed
