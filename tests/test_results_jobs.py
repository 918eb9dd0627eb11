"""Jobs and reports writing their results through the store: saved when a run stops early, and
written to S3 (a local moto server on 127.0.0.1) as they are locally."""

import json
import shutil

import distributed
import fsspec
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from conftest import free_port

from alc_dask import run_job
from alc_dask.apps.synthetic import make_demo_release
from alc_dask.cli import EXIT_BAD_INPUT, main
from alc_dask.engine import runner
from alc_dask.engine.progress import Interrupted, Progress
from alc_dask.report.history import audit_history
from alc_dask.report.nightly import run_audit
from alc_dask.results import ResultsError, ResultStore, read_predictions, read_scores

FAST = {"candidates": ["majority"], "trees": 10}
RUN_DEPENDENT = ["worker", "finished_at", "elapsed_seconds", "seconds"]  # where and when a scenario ran


def write_job(folder, secrets=("income", "region", "education"), rows=400):
    for name, table in make_demo_release(rows, seed=8).items():
        table.to_parquet(folder / f"{name}.parquet")
    job = {
        "name": "store-test",
        "release": {"name": "weak", "original": "original.parquet", "anonymized": ["weak.parquet"]},
        "scenarios": [{"generate": "each_column", "secrets": list(secrets)}],
        "baseline_settings": FAST,
        "output": "out",
    }
    path = folder / "job.yaml"
    path.write_text(yaml.safe_dump(job))
    return path


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
        distributed.Client(cluster) as connected,
    ):
        yield connected


class StopsAfter(Progress):
    """A progress bar through which the run stops after ``limit`` finished scenarios."""

    limit = 2
    raising: type[BaseException] = KeyboardInterrupt

    def finished(self, outcome) -> None:
        super().finished(outcome)
        if self.done == self.limit:
            raise self.raising("stop")


@pytest.mark.parametrize("raising", [KeyboardInterrupt, RuntimeError])
def test_a_run_stopped_early_saves_what_finished(tmp_path, client, monkeypatch, raising):
    monkeypatch.setenv("ALC_DASK_FLUSH_SECONDS", "3600")  # only the runner's own flush can save them
    monkeypatch.setattr(runner, "Progress", type("Stops", (StopsAfter,), {"raising": raising}))
    job = write_job(tmp_path)
    with pytest.raises(Interrupted if raising is KeyboardInterrupt else RuntimeError):
        run_job(job, client=client, progress=False)
    assert len(ResultStore(tmp_path / "out").completed()) == 2
    monkeypatch.undo()
    assert len(run_job(job, client=client, progress=False)) == 3


def test_ctrl_c_after_every_scenario_finished_says_they_are_all_saved(tmp_path, client, monkeypatch):
    """A Ctrl-C as the run closes its cluster or writes its verdict, every scenario saved: the run
    said "no scenario done" (seen when a fast run was interrupted as it ended)."""
    job = write_job(tmp_path)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "write_verdict", interrupted)
    with pytest.raises(KeyboardInterrupt) as stopped:
        run_job(job, client=client, progress=False)
    assert isinstance(stopped.value, Interrupted) and (stopped.value.done, stopped.value.total) == (3, 3)
    assert len(ResultStore(tmp_path / "out").completed()) == 3


@pytest.fixture(scope="module")
def finished_run(client, tmp_path_factory):
    """A job run to the end, a part per scenario, and its scores and predictions."""
    job = write_job(tmp_path_factory.mktemp("finished"))
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ALC_DASK_PART_SCENARIOS", "1")
        run_job(job, client=client, progress=False)
    out = job.parent / "out"
    return job, read_scores(out), read_predictions(out)


@pytest.mark.parametrize("damage", ["deleted", "truncated"])
@pytest.mark.parametrize("folder", ["predictions", "scores/alc"])
def test_a_part_damaged_since_the_run_is_noticed_on_resume_and_its_scenarios_made_again(finished_run, client, tmp_path, capsys, folder, damage):
    """A predictions part deleted or cut short once went unnoticed (the scenario stayed done, its
    predictions gone); a scores part cut short stopped the resume with a raw Arrow error."""
    job, scores, predictions = finished_run
    out = tmp_path / "out"
    shutil.copytree(job.parent / "out", out)
    part = out / folder / "part-00000002.parquet"
    assert len(pd.read_parquet(out / "scores" / "alc" / part.name)) == 1  # the part of one scenario
    if damage == "deleted":
        part.unlink()
    else:
        part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
    capsys.readouterr()

    again = run_job(job, client=client, out=out, progress=False)

    on_disk = pd.read_parquet(out / "scores" / "alc")
    assert sorted(on_disk["scenario_id"]) == sorted(scores["scenario_id"])  # every scenario once, none duplicated
    assert (again["status"] == "ok").all()
    pd.testing.assert_frame_equal(again.drop(columns=RUN_DEPENDENT), scores.drop(columns=RUN_DEPENDENT).sort_values("scenario_index", ignore_index=True))
    by_scenario = ["scenario_id", "side", "target"]
    pd.testing.assert_frame_equal(read_predictions(out).sort_values(by_scenario, ignore_index=True), predictions.sort_values(by_scenario, ignore_index=True))
    (line,) = [line for line in capsys.readouterr().err.splitlines() if part.name in line]  # the user is told, in one line
    assert line.startswith(f"{out}: running 1 scenario again, as their results were damaged: {folder}/{part.name} ")
    assert ("is missing" if damage == "deleted" else "cannot be read") in line


def objects(url: str) -> dict[str, str]:
    """Key -> ETag of every object under ``url``."""
    fs, path = fsspec.core.url_to_fs(url)
    fs.invalidate_cache()
    return {info["name"]: info["ETag"] for info in fs.find(path, detail=True).values()}


def test_a_job_with_its_output_on_s3_scores_as_locally_and_resumes(tmp_path, client, s3):
    job = write_job(tmp_path)
    local = run_job(job, client=client, progress=False)
    url = f"{s3}/runs/job"
    remote = run_job(job, client=client, out=url, progress=False)
    assert (remote["status"] == "ok").all() and len(remote) == 3
    pd.testing.assert_frame_equal(remote.drop(columns=RUN_DEPENDENT), local.drop(columns=RUN_DEPENDENT))
    keys = ["scenario_id", "side", "target"]
    pd.testing.assert_frame_equal(
        read_predictions(url).sort_values(keys, ignore_index=True), read_predictions(tmp_path / "out").sort_values(keys, ignore_index=True)
    )
    written = objects(url)
    assert sorted(key.removeprefix("alc-dask-tests/runs/job/") for key in written) == [
        "job.json",
        "parts.json",
        "predictions/part-00000001.parquet",
        "scores/alc/part-00000001.parquet",
        "verdict.json",
    ]

    again = run_job(job, client=client, out=url, progress=False)
    assert objects(url) == written  # nothing recomputed or rewritten
    manifest = json.loads(fsspec.open(f"{url}/job.json").open().read())
    with pytest.raises(ResultsError, match=f"output directory {url} holds results of job 'store-test' measured with other settings"):
        ResultStore.create(url, {**manifest, "fingerprint": "other", "alc_dask": "0.0"})
    pd.testing.assert_frame_equal(again, remote)
    assert (
        list(read_scores(url, columns=["scenario_id"], filters=[("secret", "==", "income")])["scenario_id"])
        == remote.loc[remote["secret"] == "income", "scenario_id"].tolist()
    )


def test_summaries_and_audits_are_written_to_s3(tmp_path, client, s3, monkeypatch):
    job = write_job(tmp_path, secrets=("income",))
    results = f"{s3}/reports/results"
    run_job(job, client=client, out=results, progress=False)
    summary = CliRunner().invoke(main, ["summarize", results, "--report", f"{s3}/reports/summary"])
    assert summary.exit_code == 0, summary.output
    assert f"Report: {s3}/reports/summary/report.html" in summary.output
    written = objects(f"{s3}/reports/summary")
    reports = {"summary.txt", "summary.md", "report.html", "report-external.html", "verdict.json"}
    assert {key.rsplit("/", 1)[1] for key in written} == reports | {"plot-1.png", "plot-2.png"}

    monkeypatch.setattr("alc_dask.report.nightly.run_job", lambda *args, **kwargs: run_job(*args, **{**kwargs, "client": client}))
    first = run_audit(job, out=f"{s3}/nightly", stamp="2025-01-01T000000Z", progress=False)
    second = run_audit(job, out=f"{s3}/nightly", stamp="2025-01-02T000000Z", progress=False)
    assert first.previous is None and second.previous == "2025-01-01T000000Z"
    assert second.report == f"{s3}/nightly/audits/weak/2025-01-02T000000Z/audit-2025-01-02T000000Z.md"
    assert "compared with the audit of 2025-01-01T000000Z" in second.markdown
    history = audit_history(f"{s3}/nightly/audits/weak")
    assert list(history["stamp"].unique()) == ["2025-01-01T000000Z", "2025-01-02T000000Z"]
    latest = objects(f"{s3}/nightly/audits/weak")
    assert {key.rsplit("/", 1)[1] for key in latest if key.count("/") == 4} == {"history.md", "history.png"}
    with fsspec.open(f"{s3}/nightly/audits/weak/history.png", "rb") as png:
        assert png.read().startswith(b"\x89PNG")


def test_an_unreachable_output_url_is_named(tmp_path, monkeypatch):
    pytest.importorskip("s3fs", reason="s3fs is not installed (pip install alc-dask[s3])")
    import s3fs

    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{free_port()}")  # nothing listens there
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "test")
    s3fs.S3FileSystem.clear_instance_cache()
    result = CliRunner().invoke(main, ["run", str(write_job(tmp_path, secrets=("income",), rows=200)), "--out", "s3://nowhere/out"])
    s3fs.S3FileSystem.clear_instance_cache()
    assert result.exit_code == EXIT_BAD_INPUT, result.output
    assert "output directory s3://nowhere/out is not writable: s3://nowhere/out/scores: EndpointConnectionError: Could not connect" in result.output
