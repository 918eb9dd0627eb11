"""The CLI against a real Dask scheduler and worker processes on loopback: run, summarize,
a worker killed mid-run, resumption, Ctrl-C, bad input and bad scheduler addresses."""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from distributed import Client

from alc_dask.apps.synthetic import make_demo_release
from alc_dask.cli import EXIT_BAD_INPUT, EXIT_CLUSTER_UNAVAILABLE, EXIT_INTERRUPTED, main
from alc_dask.engine.addresses import CONNECT_TIMEOUT
from alc_dask.results import read_scores

BIN = Path(sys.executable).parent
FAST = {"candidates": ["majority", "logistic_regression"], "trees": 10}


class Cluster:
    """A `dask scheduler` and single-threaded `dask worker` processes, each in its own process group."""

    def __init__(self, folder: Path, workers: int):
        self.file = folder / "scheduler.json"
        self.processes = [self._start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(self.file))]
        self._wait(lambda: self.file.is_file(), "the scheduler file")
        self.workers = [
            self._start("worker", "--scheduler-file", str(self.file), "--nthreads", "1", "--nworkers", "1", "--no-dashboard") for _ in range(workers)
        ]
        self.processes += self.workers

    def kill_worker(self) -> None:
        os.killpg(self.workers[0].pid, signal.SIGKILL)

    def stop(self) -> None:
        for process in reversed(self.processes):
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)

    @staticmethod
    def _start(*args) -> subprocess.Popen:
        return subprocess.Popen([str(BIN / "dask"), *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    @staticmethod
    def _wait(condition, what: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{what} did not appear within {timeout}s")
            time.sleep(0.2)


@pytest.fixture
def cluster(tmp_path):
    running = Cluster(tmp_path, workers=2)
    yield running
    running.stop()


def write_job(folder: Path, secrets: list[str], rows: int = 1500, per_secret: int = 2, row_group_size: int | None = None, release: dict | None = None) -> Path:
    """A job of `1 + per_secret` scenarios per secret; `release` settings are added to the release's."""
    for name, table in make_demo_release(rows, seed=5).items():
        table.to_parquet(folder / f"{name}.parquet", row_group_size=row_group_size)
    job = {
        "name": "cli-test",
        "release": {"original": "original.parquet", "anonymized": ["weak.parquet"], **(release or {})},
        "scenarios": [
            {"generate": "each_column", "secrets": secrets},
            {"generate": "sampled_known", "per_secret": per_secret, "size": 3, "secrets": secrets},
        ],
        "baseline_settings": FAST,
        "output": "out",
    }
    path = folder / "job.yaml"
    path.write_text(yaml.safe_dump(job))
    return path


def alc_dask(*args, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "alc-dask"), *map(str, args)], capture_output=True, text=True, timeout=timeout, check=False)


def planned_ids(job: Path) -> list[str]:
    result = alc_dask("plan", job)
    assert result.returncode == 0, result.stderr
    return [line.split("\t")[0] for line in result.stdout.splitlines()]


@pytest.mark.long  # 30 s on 2 cores: out of the default run, in make test's second step
def test_run_on_a_cluster_then_summarize_and_resume(cluster, tmp_path):
    job = write_job(tmp_path, ["income", "region"])
    ids = planned_ids(job)
    assert len(ids) == 6
    first = alc_dask("run", job, "--scheduler", cluster.file, "--workers", "2", "--verbose")
    assert first.returncode == 0, first.stderr
    scores = pd.read_parquet(tmp_path / "out" / "scores" / "alc")
    assert sorted(scores["scenario_id"]) == sorted(ids) and (scores["status"] == "ok").all()
    # Scenarios ran on the cluster's workers (which of the two takes them is the scheduler's choice).
    assert scores["worker"].str.startswith("tcp://127.0.0.1:").all()
    predictions = pd.read_parquet(tmp_path / "out" / "predictions")
    assert set(predictions["scenario_id"]) == set(ids) and predictions["predicted"].isna().all()

    summary = alc_dask("summarize", tmp_path / "out")
    assert summary.returncode == 0, summary.stderr
    assert "Evaluations per verdict label" in summary.stdout and "Report:" in summary.stdout and "VERDICT: " in summary.stdout
    assert (tmp_path / "out" / "report" / "verdict.json").is_file() and (tmp_path / "out" / "report" / "report-external.html").is_file()
    html = (tmp_path / "out" / "report" / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 2

    parts = {p: p.stat().st_mtime_ns for p in (tmp_path / "out" / "scores").glob("*/*.parquet")}
    again = alc_dask("run", job, "--scheduler", cluster.file)
    assert again.returncode == 0 and "6 scenarios, 0 failed" in again.stdout
    assert "VERDICT: " in again.stdout and (tmp_path / "out" / "verdict.json").is_file()
    assert {p: p.stat().st_mtime_ns for p in parts} == parts  # nothing rerun or rewritten


def run_killing_a_worker(cluster: Cluster, job: Path, after_parts: int) -> None:
    """`alc-dask run JOB` on `cluster`, one of its workers killed once `after_parts` scores parts are written; the run must succeed."""
    run = subprocess.Popen(
        [str(BIN / "alc-dask"), "run", str(job), "--scheduler", str(cluster.file), "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        scores_dir = job.parent / "out" / "scores"
        Cluster._wait(lambda: len(list(scores_dir.glob("*/*.parquet"))) >= after_parts, f"{after_parts} finished scenario(s)", timeout=120)
        assert run.poll() is None, "the run finished before a worker could be killed"
        cluster.kill_worker()
        _, err = run.communicate(timeout=300)
    finally:
        run.kill()
    assert run.returncode == 0, err


@pytest.mark.long
def test_a_worker_killed_mid_run_loses_no_scenario(cluster, tmp_path, monkeypatch):
    monkeypatch.setenv("ALC_DASK_PART_SCENARIOS", "1")  # a part per scenario: the test sees each one finish
    job = write_job(tmp_path, ["income", "region", "education", "occupation", "age", "hours_per_week"], rows=2500)
    ids = planned_ids(job)
    run_killing_a_worker(cluster, job, after_parts=2)
    scores = pd.read_parquet(tmp_path / "out" / "scores" / "alc")
    assert sorted(scores["scenario_id"]) == sorted(ids)  # every scenario, each once
    assert (scores["status"] == "ok").all()
    predictions = pd.read_parquet(tmp_path / "out" / "predictions")
    pairs = predictions[predictions["side"] == "attack"].groupby("scenario_id").size()
    assert (pairs.reindex(scores["scenario_id"]).to_numpy() == scores["pairs"].to_numpy()).all()


TIMINGS = ["elapsed_seconds", "seconds", "worker", "finished_at"]


@pytest.mark.long  # minutes: workers killed, four workers on two cores
def test_a_worker_killed_mid_run_of_a_release_kept_on_the_workers_loses_no_scenario(cluster, tmp_path, monkeypatch):
    """The release's parts held by the killed worker are read and encoded again (Dask's lineage): all 30
    scenarios done, with the scores of an undisturbed run. (Quicker, in the default run:
    tests/test_partitioned_release.py.)"""
    secrets = ["income", "region", "education", "occupation", "age", "hours_per_week"]
    monkeypatch.setenv("ALC_DASK_PART_SCENARIOS", "1")
    job = write_job(tmp_path, secrets, rows=800, per_secret=4, row_group_size=200, release={"broadcast_limit": 0, "rows_per_part": 200})
    undisturbed = alc_dask("run", job, "--scheduler", cluster.file, "--workers", "2", "--out", tmp_path / "undisturbed")
    assert undisturbed.returncode == 0, undisturbed.stderr
    run_killing_a_worker(cluster, job, after_parts=1)
    scores, expected = (read_scores(tmp_path / out).sort_values("scenario_id", ignore_index=True) for out in ("out", "undisturbed"))
    assert len(scores) == 30 and (scores["status"] == "ok").all(), scores["error"].dropna().tolist()
    pd.testing.assert_frame_equal(scores.drop(columns=TIMINGS), expected.drop(columns=TIMINGS))


@pytest.mark.long
def test_the_only_worker_restarted_by_its_nanny_mid_run_loses_no_scenario(tmp_path, monkeypatch):
    """The release sent to the worker dies with it; the run must send it again, not fail the rest."""
    monkeypatch.setenv("ALC_DASK_PART_SCENARIOS", "1")
    cluster = Cluster(tmp_path, workers=1)
    try:
        job = write_job(tmp_path, ["income", "region", "education", "occupation"], rows=2500)
        ids = planned_ids(job)
        run = subprocess.Popen(
            [str(BIN / "alc-dask"), "run", str(job), "--scheduler", str(cluster.file)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            scores_dir = tmp_path / "out" / "scores"
            Cluster._wait(lambda: len(list(scores_dir.glob("*/*.parquet"))) >= 1, "a finished scenario", timeout=120)
            with Client(scheduler_file=str(cluster.file), timeout="10s", set_as_default=False) as client:
                (pid,) = client.run(os.getpid).values()
            assert run.poll() is None, "the run finished before its worker could be killed"
            os.kill(pid, signal.SIGKILL)  # the worker process, not its nanny: the nanny starts a new one
            _, err = run.communicate(timeout=300)
        finally:
            run.kill()
    finally:
        cluster.stop()
    assert run.returncode == 0, err
    scores = pd.read_parquet(scores_dir / "alc")
    assert sorted(scores["scenario_id"]) == sorted(ids) and (scores["status"] == "ok").all()
    assert scores["worker"].nunique() == 2  # scenarios ran on the worker before and after its restart


def stderr_lines(text: str) -> list[str]:
    """The lines of a captured stderr without the progress bar's redraws."""
    return [line for line in re.split(r"[\r\n]+", text) if line.strip() and not re.search(r"\| *\d+/\d+ \[", line)]


@pytest.mark.long
def test_ctrl_c_stops_a_local_run_cleanly_and_it_resumes(tmp_path, monkeypatch):
    monkeypatch.setenv("ALC_DASK_FLUSH_SECONDS", "0.5")  # a first part soon; the rest is saved on Ctrl-C
    # 64 scenarios, about 5 s of work on 2 workers: the Ctrl-C must arrive while they run. With 12
    # (1 s), the run once ended between the first part's flush and the Ctrl-C, and exited 0.
    job = write_job(tmp_path, ["income", "region", "education", "occupation"], rows=2500, per_secret=15)
    scores_dir = tmp_path / "out" / "scores"
    # A terminal's Ctrl-C reaches the whole foreground process group: the runner and its local workers.
    run = subprocess.Popen(
        [str(BIN / "alc-dask"), "run", str(job), "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        Cluster._wait(lambda: len(list(scores_dir.glob("*/*.parquet"))) >= 1, "a finished scenario", timeout=120)
        assert run.poll() is None, "the run finished before it could be interrupted"
        os.killpg(run.pid, signal.SIGINT)
        _, err = run.communicate(timeout=120)
    finally:
        run.kill()
    assert run.returncode == EXIT_INTERRUPTED, err
    assert "Traceback" not in err and "Error" not in err and "Aborted" not in err, err
    (line,) = stderr_lines(err)
    done = len(read_scores(tmp_path / "out"))
    assert done < 64, "every scenario finished before the Ctrl-C: the test's job is too small"
    assert line == f"interrupted; {done} of 64 scenarios done, re-run to resume"
    Cluster._wait(lambda: not _group_alive(run.pid), "the end of the local workers", timeout=30)

    again = alc_dask("run", job, "--workers", "2")
    assert again.returncode == 0 and "64 scenarios, 0 failed" in again.stdout, again.stderr


def test_a_result_cut_off_by_ctrl_c_logs_nothing_other_errors_still_do():
    """Under load, Ctrl-C once closed a connection while a finished batch's result was being
    fetched, and tornado logged a CommClosedError traceback after the one-line message."""
    import logging

    from distributed.comm import CommClosedError

    from alc_dask.engine.runner import _results_cut_off

    def record(error):
        return logging.LogRecord("tornado.application", logging.ERROR, __file__, 1, "Exception in callback", None, (type(error), error, None))

    assert not _results_cut_off(record(CommClosedError("in <TCP (closed) ConnectionPool.gather>: Stream is closed")))
    assert _results_cut_off(record(ValueError("a real bug")))
    assert _results_cut_off(logging.LogRecord("tornado.application", logging.ERROR, __file__, 1, "no exception", None, None))


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.long  # 14 s on 2 cores: out of the default run, in make test's second step
def test_no_dashboard_port_warning_when_8787_is_taken(tmp_path):
    job = write_job(tmp_path, ["income"], rows=300)
    with socket.socket() as blocker:
        try:
            blocker.bind(("127.0.0.1", 8787))
            blocker.listen()
        except OSError:
            pass  # another process holds the port: the same situation
        result = alc_dask("run", job, "--workers", "1")
    assert result.returncode == 0, result.stderr
    assert "already in use" not in result.stderr and "8787" not in result.stderr


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.long
def test_unreachable_scheduler(tmp_path):
    job = write_job(tmp_path, ["income"], rows=300)
    result = invoke("run", job, "--scheduler", "tcp://127.0.0.1:9")
    assert result.exit_code == EXIT_CLUSTER_UNAVAILABLE and "cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'" in result.output
    assert not list((tmp_path / "out" / "scores").glob("**/*.parquet"))


@pytest.mark.parametrize("address", ["tcp://nohost:notaport", "nonsense", "tcp://127.0.0.1:99999", "ftp://127.0.0.1:21", "tcp://127.0.0.1", "scheduler.json"])
def test_a_malformed_scheduler_address_is_refused_at_once(tmp_path, address):
    job = write_job(tmp_path, ["income"], rows=300)
    for command in (["run", job], ["audit", job], ["paper", "run", job]):
        result = invoke(*command, "--scheduler", address)
        assert result.exit_code == EXIT_BAD_INPUT, result.output
        assert f"scheduler {address!r}: not a scheduler address nor an existing scheduler file" in result.output
        assert "expected PROTOCOL://HOST:PORT" in result.output


def test_a_scheduler_file_without_an_address(tmp_path):
    job = write_job(tmp_path, ["income"], rows=300)
    file = tmp_path / "scheduler.json"
    file.write_text("{not json")
    result = invoke("run", job, "--scheduler", file)
    assert result.exit_code == EXIT_BAD_INPUT and f"scheduler file {file}: " in result.output


class NotAScheduler:
    """A TCP server on loopback that answers every connection like a web server."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.address = f"tcp://127.0.0.1:{self.server.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            with connection:
                connection.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 4)
                time.sleep(0.5)


@pytest.mark.parametrize("kind", ["malformed", pytest.param("refused", marks=pytest.mark.long), "not a scheduler"])  # refused: waits the connect timeout
def test_bad_schedulers_fail_in_one_line_without_traceback(tmp_path, kind):
    job = write_job(tmp_path, ["income"], rows=300)
    server = NotAScheduler() if kind == "not a scheduler" else None
    address = {"malformed": "tcp://nohost:notaport", "refused": "tcp://127.0.0.1:9"}.get(kind) or server.address
    started = time.monotonic()
    result = alc_dask("run", job, "--scheduler", address, timeout=120)
    elapsed = time.monotonic() - started
    if server:
        server.server.close()
    assert result.returncode == (EXIT_BAD_INPUT if kind == "malformed" else EXIT_CLUSTER_UNAVAILABLE)
    assert "Traceback" not in result.stderr
    (line,) = stderr_lines(result.stderr)
    assert line.startswith("Error: ") and repr(address) in line
    limit = float(CONNECT_TIMEOUT.rstrip("s")) + 20  # the connect timeout, plus starting Python and reading the job on a busy machine
    assert elapsed < (10 if kind == "malformed" else limit), elapsed


@pytest.mark.parametrize(
    "content, message",
    [
        ("name: x\nrelease: [unclosed\n", "malformed YAML"),
        (
            "name: x\nrelease: {original: o.csv, anonymized: [a.csv]}\nscenarios: [{generate: each_column}]\nsed: 3\n",
            "sed: Extra inputs are not permitted; got 3",
        ),
        ("name: x\nrelease: {original: o.csv, anonymized: [a.csv]}\nscenarios: [{generate: each_column}]\n", "o.csv': no such file or directory"),
    ],
)
def test_bad_job_files(tmp_path, content, message):
    job = tmp_path / "job.yaml"
    job.write_text(content)
    for command in ("run", "plan"):
        result = invoke(command, job)
        assert result.exit_code == EXIT_BAD_INPUT and str(job) in result.output and message in result.output


def test_unwritable_output_directory(tmp_path):
    job = write_job(tmp_path, ["income"], rows=300)
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = invoke("run", job, "--out", blocker / "out")
    assert result.exit_code == EXIT_BAD_INPUT and f"output directory {blocker / 'out'} is not writable" in result.output


def test_summarize_an_empty_directory(tmp_path):
    result = invoke("summarize", tmp_path)
    assert result.exit_code == EXIT_BAD_INPUT and "no scores found" in result.output


def test_job_file_json_equivalent(tmp_path):
    job = write_job(tmp_path, ["income"], rows=300)
    as_json = tmp_path / "job.json"
    as_json.write_text(json.dumps(yaml.safe_load(job.read_text())))
    assert planned_ids(as_json) == planned_ids(job)


@pytest.mark.long
def test_demo_reports_the_weak_release_leaking_more_than_the_strong(tmp_path):
    result = alc_dask("demo", "--rows", "1500", "--out", tmp_path / "demo", "--workers", "2")
    assert result.returncode == 0, result.stderr
    assert f"Report: {tmp_path / 'demo' / 'report' / 'report.html'}" in result.stdout
    lines = result.stdout.splitlines()
    assert len(lines) < 30 and lines[-1].startswith("Report: ")  # was ~220 lines of wide tables, the report's path last
    assert [line.split(":")[0].strip() for line in lines if line.startswith("  release ")] == ["release k5", "release strong", "release weak"]
    weak, strong = (read_scores(tmp_path / "demo" / "results" / level) for level in ("weak", "strong"))
    assert (weak["status"] == "ok").all() and (strong["status"] == "ok").all()
    assert weak["alc"].median() > strong["alc"].median() + 0.2
    assert alc_dask("plan", tmp_path / "demo" / "jobs" / "demo-weak.yaml").returncode == 0  # the written job reruns
    k5 = read_scores(tmp_path / "demo" / "results" / "k5")
    assert (k5["status"] == "ok").all() and set(k5["family"]) == {"relative_threat", "alc"}
    assert "Relative threat of group-anonymized releases" in (tmp_path / "demo" / "report" / "report.html").read_text()
    assert "== Relative threat" in (tmp_path / "demo" / "report" / "summary.txt").read_text() and "VERDICT: " in result.stdout  # the full summary is a file


@pytest.mark.parametrize(
    "command",
    [
        ["run", "job.yaml", "--workers", "0"],
        ["audit", "job.yaml", "--workers", "-1"],
        ["paper", "run", "job.yaml", "--workers", "0"],
        ["paper", "run", "job.yaml", "--sample", "0"],
        ["demo", "--workers", "0"],
        ["demo", "--rows", "0"],
        ["demo", "--rows", "nan"],
        ["demo", "--rows", "10"],
        ["demo", "--seed", "-1"],
    ],
)
def test_numeric_options_are_checked(tmp_path, monkeypatch, command):
    (tmp_path / "job.yaml").write_text("")
    monkeypatch.chdir(tmp_path)
    result = invoke(*command)
    assert result.exit_code == EXIT_BAD_INPUT and f"Invalid value for '{command[-2]}'" in result.output, result.output
    assert not (tmp_path / "alc-out").exists()  # refused before any work
