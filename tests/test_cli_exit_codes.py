"""Exit codes of alc-dask, one per kind of outcome, so that cron, systemd and Kubernetes can tell a
leaking release from a failed run, a bad job file or a cluster that is down; and how internal
errors and Ctrl-C end a command."""

import os
import re
import resource
import subprocess
import sys
from contextlib import nullcontext
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from test_cli_score import example_predictions

from alc_dask.apps.score import PredictionsError
from alc_dask.cli import (
    EXIT_BAD_INPUT,
    EXIT_CLUSTER_UNAVAILABLE,
    EXIT_INTERNAL_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_RELEASE_FLAGGED,
    EXIT_SCENARIOS_FAILED,
    main,
)
from alc_dask.data import Release, ReleaseError, ScenarioError
from alc_dask.engine import EngineError
from alc_dask.engine.progress import Interrupted
from alc_dask.errors import AlcDaskError, InputError, InternalError, OptionError, PathError
from alc_dask.jobs import JobSpecError
from alc_dask.measure import SettingError
from alc_dask.measure.verdict import worst
from alc_dask.report import compare
from alc_dask.report.nightly import AuditOutcome
from alc_dask.results import ResultsError
from alc_dask.results.lease import FolderBusy
from alc_dask.verdict import EvaluationVerdict, Headline, Verdict


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def predictions(tmp_path) -> Path:
    path = tmp_path / "predictions.csv"
    example_predictions(targets=300).to_csv(path, index=False)
    return path


def scores(*statuses: str) -> pd.DataFrame:
    return pd.DataFrame({"scenario_id": [f"s{i}" for i in range(len(statuses))], "status": list(statuses)})


def test_the_codes_are_distinct():
    codes = [EXIT_OK, EXIT_INTERNAL_ERROR, EXIT_BAD_INPUT, EXIT_SCENARIOS_FAILED, EXIT_RELEASE_FLAGGED, EXIT_CLUSTER_UNAVAILABLE, EXIT_INTERRUPTED]
    assert len(set(codes)) == len(codes) and EXIT_OK == 0 and EXIT_INTERRUPTED == 130


def test_help_documents_every_code():
    result = invoke("--help")
    assert result.exit_code == EXIT_OK
    assert "Exit codes:" in result.output
    for code in (0, 1, 2, 3, 4, 5, 130):
        assert re.search(rf"^ +{code} +\w", result.output, re.MULTILINE), result.output


def test_success_is_0(predictions):
    assert invoke("score", predictions).exit_code == EXIT_OK


def test_usage_errors_are_2(tmp_path):
    assert invoke("run").exit_code == EXIT_BAD_INPUT  # missing JOB
    assert invoke("run", tmp_path / "job.yaml", "--workers", "0").exit_code == EXIT_BAD_INPUT
    assert invoke("nonsense").exit_code == EXIT_BAD_INPUT


def test_bad_input_is_2(tmp_path):
    job = tmp_path / "job.yaml"
    job.write_text("name: x\nrelease: [unclosed\n")
    for command in ("run", "plan", "audit"):
        result = invoke(command, job)
        assert result.exit_code == EXIT_BAD_INPUT and str(job) in result.output
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"kind": ["base"], "correct": [True]}).to_csv(bad, index=False)
    assert invoke("score", bad).exit_code == EXIT_BAD_INPUT


def test_failed_scenarios_are_3(monkeypatch, tmp_path):
    monkeypatch.setattr("alc_dask.engine.run_job", lambda *args, **kwargs: scores("ok", "failed"))
    result = invoke("run", tmp_path / "job.yaml", "--out", tmp_path / "out")
    assert result.exit_code == EXIT_SCENARIOS_FAILED and "2 scenarios, 1 failed" in result.output
    monkeypatch.setattr("alc_dask.engine.run_job", lambda *args, **kwargs: scores("ok", "ok"))
    assert invoke("run", tmp_path / "job.yaml", "--out", tmp_path / "out").exit_code == EXIT_OK


def test_failed_scenarios_of_paper_run_are_3(monkeypatch, tmp_path):
    job = tmp_path / "adult-weak.yaml"
    job.write_text("")
    monkeypatch.setattr("alc_dask.engine.cluster.connect", lambda *args: nullcontext(None))
    monkeypatch.setattr("alc_dask.jobs.load_job", lambda path: SimpleNamespace(output="out"))
    monkeypatch.setattr("alc_dask.engine.run_job", lambda *args, **kwargs: scores("ok", "failed", "failed"))
    result = invoke("paper", "run", job)
    assert result.exit_code == EXIT_SCENARIOS_FAILED and "2 scenarios failed" in result.output


def test_failed_scenarios_of_the_demo_are_3(monkeypatch, tmp_path):
    monkeypatch.setattr("alc_dask.apps.demo.run_demo", lambda *args, **kwargs: {"html": tmp_path / "report.html", "text": tmp_path / "summary.txt"})
    monkeypatch.setattr("alc_dask.results.read_scores", lambda folder: scores("ok", "failed"))
    monkeypatch.setattr("alc_dask.verdict.read_verdict", lambda folder: Verdict(verdict="pass", evaluations=[], thresholds={}))
    result = invoke("demo", "--out", tmp_path)
    assert result.exit_code == EXIT_SCENARIOS_FAILED, result.output


def audit_outcome(tmp_path, *rows, verdict: str | None = None) -> AuditOutcome:
    """An audit of (id, status, label) rows, its verdict theirs unless ``verdict`` says otherwise."""
    frame = pd.DataFrame(rows, columns=["scenario_id", "status", "label"]).assign(family="singling_out", params="{}", error=None)
    judged = [
        EvaluationVerdict(
            family="singling_out",
            id=row.scenario_id,
            release="r",
            params={},
            label=row.label,
            headline=Headline(name="privacy_risk", value=0.1, low=0.05, high=0.15, threshold=0.09, threshold_source="a test"),
            evidence="",
            measures={},
        )
        for row in frame[frame["status"] == "ok"].itertuples()
    ]
    judgement = Verdict(verdict=verdict or worst(e.label for e in judged).value, evaluations=judged, thresholds={})
    report = tmp_path / "audit.md"
    report.write_text("audit report\n")
    return AuditOutcome(compare(frame, judgement, None), report, None, judgement)


@pytest.mark.parametrize(
    "rows, code",
    [
        ([("a", "ok", "pass"), ("b", "ok", "inconclusive")], EXIT_OK),
        ([("a", "ok", "pass"), ("b", "failed", None)], EXIT_SCENARIOS_FAILED),
        ([("a", "ok", "flagged"), ("b", "ok", "pass")], EXIT_RELEASE_FLAGGED),
        ([("a", "ok", "flagged"), ("b", "failed", None)], EXIT_RELEASE_FLAGGED),  # a leak outranks a failure
    ],
)
def test_audit_codes(monkeypatch, tmp_path, rows, code):
    monkeypatch.setattr("alc_dask.report.nightly.run_audit", lambda *args, **kwargs: audit_outcome(tmp_path, *rows))
    result = invoke("audit", tmp_path / "job.yaml")
    assert result.exit_code == code, result.output
    assert "Audit report:" in result.output


def test_a_flagged_verdict_fails_the_audit_whatever_the_comparison(monkeypatch, tmp_path):
    """A release flagged on its families' own scales (say Anonymeter's risk past 0.09, labelled "safe"
    on the ALC's scale) stops the audit even when no label got worse."""
    outcome = audit_outcome(tmp_path, ("a", "ok", "pass"), verdict="flagged")
    monkeypatch.setattr("alc_dask.report.nightly.run_audit", lambda *args, **kwargs: outcome)
    result = invoke("audit", tmp_path / "job.yaml")
    assert result.exit_code == EXIT_RELEASE_FLAGGED and "VERDICT: FLAGGED" in result.output, result.output


def test_an_unavailable_cluster_is_5(monkeypatch, tmp_path):
    def unreachable(*args, **kwargs):
        raise EngineError("cannot reach the Dask scheduler at 'tcp://10.0.0.5:8786': timed out")

    monkeypatch.setattr("alc_dask.engine.run_job", unreachable)
    result = invoke("run", tmp_path / "job.yaml", "--scheduler", "tcp://10.0.0.5:8786")
    assert result.exit_code == EXIT_CLUSTER_UNAVAILABLE and "cannot reach the Dask scheduler" in result.output


@pytest.mark.parametrize(
    "interrupt, message",
    [
        (Interrupted(done=3, total=10), "interrupted; 3 of 10 scenarios done, re-run to resume"),
        (KeyboardInterrupt(), "interrupted; no scenario done, re-run to resume"),
    ],
)
def test_ctrl_c_is_130_with_one_line(monkeypatch, tmp_path, interrupt, message):
    def interrupted(*args, **kwargs):
        raise interrupt

    monkeypatch.setattr("alc_dask.engine.run_job", interrupted)
    result = invoke("run", tmp_path / "job.yaml")
    assert result.exit_code == EXIT_INTERRUPTED and result.output.strip() == message


def test_an_interrupted_audit_is_not_resumed(monkeypatch, tmp_path):
    def interrupted(*args, **kwargs):
        raise Interrupted(done=1, total=4)

    monkeypatch.setattr("alc_dask.report.nightly.run_audit", interrupted)
    result = invoke("audit", tmp_path / "job.yaml")
    assert result.exit_code == EXIT_INTERRUPTED and result.output.strip() == "interrupted; 1 of 4 scenarios done, the audit is incomplete: run it again"


def test_an_internal_error_is_1_in_one_line(monkeypatch, predictions):
    def broken(*args, **kwargs):
        raise TypeError("unsupported operand")

    monkeypatch.setattr("alc_dask.apps.score.score_predictions", broken)
    result = invoke("score", predictions)
    assert result.exit_code == EXIT_INTERNAL_ERROR
    assert result.output.strip() == "Error: internal error: TypeError: unsupported operand (run `alc-dask --traceback score ...` to see where)"


BROKEN_SCORE = """
import sys
from alc_dask import cli
from alc_dask.apps import score
def broken(*args, **kwargs):
    raise TypeError("unsupported operand")
score.score_predictions = broken
sys.argv[0] = "alc-dask"
cli.main()
"""


@pytest.mark.parametrize("flag", [[], ["--traceback"]])
def test_traceback_flag_shows_internal_errors_in_full(predictions, flag):
    result = subprocess.run([sys.executable, "-c", BROKEN_SCORE, *flag, "score", str(predictions)], capture_output=True, text=True, check=False)
    assert result.returncode == EXIT_INTERNAL_ERROR
    assert ("Traceback (most recent call last)" in result.stderr) == bool(flag)
    assert "TypeError: unsupported operand" in result.stderr
    if flag:
        assert "in broken" in result.stderr  # the frame that raised


def test_traceback_flag_shows_the_cause_of_bad_input(tmp_path):
    job = tmp_path / "job.yaml"
    job.write_text("name: x\nrelease: [unclosed\n")
    result = subprocess.run([str(Path(sys.executable).with_name("alc-dask")), "--traceback", "plan", str(job)], capture_output=True, text=True, check=False)
    assert result.returncode == EXIT_BAD_INPUT
    assert "Traceback (most recent call last)" in result.stderr and "malformed YAML" in result.stderr


def on_a_full_disk(*args) -> subprocess.CompletedProcess:
    """``alc-dask ARGS`` where no file may grow past 1000 bytes: every larger write fails as on a
    full disk, with an errno and no file name (EFBIG here, ENOSPC there)."""
    limit = lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))  # noqa: E731
    command = [str(Path(sys.executable).with_name("alc-dask")), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, check=False, preexec_fn=limit, timeout=300)


def one_scenario_job(folder: Path, statuses) -> Path:
    """A job of one scenario, secret ``status`` known from ``age``: skipped without a cluster when ``status`` is one value."""
    frame = pd.DataFrame({"age": range(300), "status": statuses})
    frame.to_parquet(folder / "original.parquet")
    frame.to_parquet(folder / "weak.parquet")
    job = {
        "name": "t",
        "release": {"original": "original.parquet", "anonymized": "weak.parquet"},
        "scenarios": [{"generate": "each_column", "secrets": ["status"]}],
        "output": "out",
    }
    (folder / "job.yaml").write_text(yaml.safe_dump(job))
    return folder / "job.yaml"


@pytest.mark.parametrize(
    "error, code",
    [
        (JobSpecError("job.yaml: invalid job spec"), EXIT_BAD_INPUT),
        (ReleaseError("original: the table is empty"), EXIT_BAD_INPUT),
        (ScenarioError("secret 'status' is not a column"), EXIT_BAD_INPUT),
        (SettingError("halting.max_pairs", 0, "at least 1"), EXIT_BAD_INPUT),
        (ResultsError("output directory out holds results of another job"), EXIT_BAD_INPUT),
        (FolderBusy("out is being written by a run on host h"), EXIT_BAD_INPUT),
        (PredictionsError("p.csv: no rows with kind 'base'"), EXIT_BAD_INPUT),
        (OptionError("scheduler 'x': not a scheduler address"), EXIT_BAD_INPUT),
        (PathError(28, "No space left on device", "out/scores/part-0.parquet"), EXIT_BAD_INPUT),
        (EngineError("cannot reach the Dask scheduler at 'tcp://10.0.0.5:8786'"), EXIT_CLUSTER_UNAVAILABLE),
        (InternalError("family 'x' writes column 'alc' as string, another family as double"), EXIT_INTERNAL_ERROR),
    ],
)
def test_each_kind_of_error_ends_with_its_code_in_one_line(monkeypatch, tmp_path, error, code):
    def failing(*args, **kwargs):
        raise error

    monkeypatch.setattr("alc_dask.engine.run_job", failing)
    result = invoke("run", tmp_path / "job.yaml")
    assert result.exit_code == code
    assert result.output.strip().startswith("Error: ") and str(error) in result.output and len(result.output.strip().splitlines()) == 1
    assert isinstance(error, AlcDaskError)


def test_errors_that_were_value_errors_still_are():
    """Code catching ValueError (the Python API's users) still catches the input errors it caught."""
    for kind in (JobSpecError, ReleaseError, ScenarioError, SettingError, ResultsError, FolderBusy, PredictionsError, OptionError):
        assert issubclass(kind, InputError) and issubclass(kind, ValueError), kind
    assert issubclass(PathError, OSError) and issubclass(EngineError, RuntimeError)


@pytest.mark.parametrize("bug", [ValueError("cannot convert float NaN to integer"), KeyError("age"), OSError(9, "Bad file descriptor")])
def test_a_bug_inside_a_run_is_1_with_the_hint_not_bad_input(monkeypatch, tmp_path, bug):
    """A ValueError, KeyError or OSError that no layer raised on purpose is a bug, not bad input
    (a ValueError or OSError used to end in 2, sending the user to fix an input that is fine)."""

    def broken(*args, **kwargs):
        raise bug

    monkeypatch.setattr(Release, "load", broken)
    result = invoke("run", one_scenario_job(tmp_path, "active"))
    assert result.exit_code == EXIT_INTERNAL_ERROR, result.output
    assert result.output.strip() == f"Error: internal error: {type(bug).__name__}: {bug} (run `alc-dask --traceback run ...` to see where)"


def test_an_unreadable_job_file_is_2_and_named(monkeypatch, tmp_path):
    job = one_scenario_job(tmp_path, "active")

    def unreadable(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(Path, "read_bytes", unreadable)
    result = invoke("plan", job)
    assert result.exit_code == EXIT_BAD_INPUT and result.output.strip() == f"Error: {job}: cannot be read (Permission denied)"


def test_a_cluster_lost_during_a_run_is_5(monkeypatch, tmp_path):
    """The connection to the cluster closing under a run (``CommClosedError``) is the cluster's fault, not the input's."""
    from distributed.comm import CommClosedError

    def lost(*args, **kwargs):
        raise CommClosedError("in <TCP (closed) ConnectionPool.gather>: Stream is closed")

    monkeypatch.setattr("alc_dask.engine.clients.local_client", lambda *args: nullcontext(SimpleNamespace()))  # no cluster to start
    monkeypatch.setattr("alc_dask.engine.runner.fan_out", lost)
    result = invoke("run", one_scenario_job(tmp_path, ["a", "b", "c"] * 100))
    assert result.exit_code == EXIT_CLUSTER_UNAVAILABLE, result.output
    assert result.output.strip() == "Error: lost the connection to the Dask cluster: in <TCP (closed) ConnectionPool.gather>: Stream is closed"


@pytest.mark.skipif(sys.platform == "win32", reason="file size limits are POSIX")
def test_a_full_disk_names_the_file_that_could_not_be_written(tmp_path):
    one_scenario_job(tmp_path, "active")  # its one scenario is skipped: no cluster starts
    result = on_a_full_disk("run", tmp_path / "job.yaml")
    assert result.returncode == EXIT_BAD_INPUT, result.stderr
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert re.fullmatch(rf"Error: \[Errno \d+\] .*: '{re.escape(str(tmp_path / 'out'))}/[^']+'", line), line
    assert invoke("run", tmp_path / "job.yaml").exit_code == EXIT_OK
    result = on_a_full_disk("summarize", tmp_path / "out", "--report", tmp_path / "report")
    assert result.returncode == EXIT_BAD_INPUT, result.stderr
    assert f"'{tmp_path / 'report'}/" in result.stderr.splitlines()[-1], result.stderr
    assert not [path for path in tmp_path.rglob(".*") if ".tmp-" in path.name], "a failed write leaves no temporary file"


DEPLOY = Path(__file__).resolve().parents[1] / "deploy"


def nightly_audit(tmp_path, codes: list[int]) -> tuple[subprocess.CompletedProcess, int]:
    """deploy/nightly-audit.sh against a stand-in alc-dask that exits with ``codes`` in turn."""
    (tmp_path / "codes").write_text("".join(f"{code}\n" for code in codes))
    fake = tmp_path / "alc-dask"
    fake.write_text(f'#!/bin/sh\necho "$*" >> {tmp_path}/calls\ncode=$(head -n 1 {tmp_path}/codes)\nsed -i 1d {tmp_path}/codes\nexit "$code"\n')
    fake.chmod(0o755)
    environment = {**os.environ, "ALC_DASK": str(fake), "RETRIES": "2", "RETRY_AFTER": "0"}
    result = subprocess.run(
        [str(DEPLOY / "nightly-audit.sh"), "jobs/nightly.yaml", "--workers", "2"], capture_output=True, text=True, env=environment, check=False
    )
    calls = (tmp_path / "calls").read_text().splitlines()
    assert set(calls) == {"audit jobs/nightly.yaml --workers 2"}
    return result, len(calls)


@pytest.mark.parametrize(
    "codes, final, calls, message",
    [
        ([0], EXIT_OK, 1, None),
        ([5, 3, 0], EXIT_OK, 3, "retry 2 of 2"),
        ([5, 4], EXIT_RELEASE_FLAGGED, 2, "ALERT: the audit flagged the release"),
        ([3, 3, 3], EXIT_SCENARIOS_FAILED, 3, "still failing after 2 retries"),
        ([2], EXIT_BAD_INPUT, 1, "could not run (exit 2"),
        ([4], EXIT_RELEASE_FLAGGED, 1, "ALERT"),
    ],
)
def test_the_nightly_audit_script_retries_3_and_5_and_alerts_on_4(tmp_path, codes, final, calls, message):
    result, made = nightly_audit(tmp_path, codes)
    assert result.returncode == final and made == calls
    assert (message in result.stderr) if message else result.stderr == ""


def test_the_kubernetes_cronjob_retries_3_and_5_and_fails_at_once_otherwise():
    cronjob = yaml.safe_load((DEPLOY / "kubernetes" / "audit-cronjob.yaml").read_text())
    job = cronjob["spec"]["jobTemplate"]["spec"]
    rules = {rule["action"]: set(rule["onExitCodes"]["values"]) for rule in job["podFailurePolicy"]["rules"]}
    assert rules == {"FailJob": {EXIT_INTERNAL_ERROR, EXIT_BAD_INPUT, EXIT_RELEASE_FLAGGED}, "Count": {EXIT_SCENARIOS_FAILED, EXIT_CLUSTER_UNAVAILABLE}}
    assert job["backoffLimit"] >= 1 and job["template"]["spec"]["restartPolicy"] == "Never"


def test_a_command_exits_without_collecting_its_objects_again(tmp_path):
    """Every command freezes the objects left as the process exits, after the other exit handlers,
    so that the interpreter does not spend its last 0.3 s collecting garbage the system frees."""
    script = (
        "import atexit, gc, sys\n"
        "from alc_dask.cli import main\n"
        "atexit.register(lambda: print('frozen objects at exit:', gc.get_freeze_count()))\n"
        f"sys.argv = ['alc-dask', 'plan', {str(tmp_path / 'missing.yaml')!r}]\n"
        "main()\n"
    )
    ended = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert ended.returncode == EXIT_BAD_INPUT, ended.stderr
    frozen = int(re.search(r"frozen objects at exit: (\d+)", ended.stdout).group(1))
    assert frozen > 10_000  # the modules' objects, not a handful
