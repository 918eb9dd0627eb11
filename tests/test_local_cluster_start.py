"""Starting the local cluster on a busy machine: a slow start is tried again with a line saying so,
and one that cannot start is one line and exit 5, never an internal error (a check on a machine at
load 17 crashed with "internal error: TimeoutError")."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from alc_dask.apps.synthetic import make_demo_release
from alc_dask.cli import main
from alc_dask.cli_exit_codes import EXIT_CLUSTER_UNAVAILABLE
from alc_dask.engine import clients
from alc_dask.engine.addresses import EngineError


class FlakyCluster:
    """A LocalCluster that times out on its first ``failures`` starts."""

    def __init__(self, failures: int):
        self.failures, self.starts = failures, 0

    def __call__(self, **options):
        self.starts += 1
        if self.starts <= self.failures:
            raise TimeoutError("Nanny failed to start in 60s")
        return "cluster"


def test_a_slow_start_is_tried_again_and_said(monkeypatch, capsys):
    flaky = FlakyCluster(failures=2)
    monkeypatch.setattr(clients, "LocalCluster", flaky)
    assert clients._started_local_cluster(2, None) == "cluster" and flaky.starts == 3
    said = capsys.readouterr().err.splitlines()
    assert said == [
        "the local Dask cluster was slow to start (TimeoutError: Nanny failed to start in 60s; a busy machine?): trying again (2 of 3)",
        "the local Dask cluster was slow to start (TimeoutError: Nanny failed to start in 60s; a busy machine?): trying again (3 of 3)",
    ]


def test_a_start_that_cannot_succeed_exits_5_in_one_line(monkeypatch, tmp_path):
    monkeypatch.setattr(clients, "LocalCluster", FlakyCluster(failures=99))
    with pytest.raises(
        EngineError, match=r"the local Dask cluster of 2 worker\(s\) did not start in 3 attempts \(TimeoutError: Nanny failed to start in 60s\)"
    ):
        clients._started_local_cluster(2, None)
    tables = make_demo_release(300, 0)
    for name in ("original", "weak"):
        tables[name].to_parquet(tmp_path / f"{name}.parquet", index=False)
    result = CliRunner().invoke(main, ["check", str(tmp_path / "original.parquet"), str(tmp_path / "weak.parquet"), "--output", str(tmp_path / "out")])
    assert result.exit_code == EXIT_CLUSTER_UNAVAILABLE, result.output
    assert "internal error" not in result.output and "did not start in 3 attempts" in result.output


@pytest.mark.timing  # the machine's cores kept busy by two other processes for the whole check
def test_a_check_completes_while_two_processes_keep_both_cores_busy(tmp_path):
    tables = make_demo_release(600, 0)
    for name in ("original", "weak"):
        tables[name].to_parquet(tmp_path / f"{name}.parquet", index=False)
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(max(2, os.cpu_count() or 2))]
    try:
        time.sleep(1)
        done = subprocess.run(
            [str(Path(sys.executable).with_name("alc-dask")), "check", "original.parquet", "weak.parquet", "--output", "out", "--workers", "2"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=900,
        )
    finally:
        for process in busy:
            process.kill()
            process.wait()
    assert done.returncode in (0, 4), done.stderr[-3000:]
    assert "VERDICT: " in done.stdout and (tmp_path / "out" / "verdict.json").exists()
