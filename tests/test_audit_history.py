"""A release's audits over time, from real audits of small generated releases: the history has a
row per audit and evaluation, oldest first, leaves out an audit that did not finish, and is plotted;
and the audit's gate on a headline whose interval rose wholly above the previous audit's."""

import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from distributed import Client, LocalCluster
from test_audit import verdict

from alc_dask import run_job
from alc_dask.apps.synthetic import make_demo_release
from alc_dask.cli import EXIT_RELEASE_FLAGGED, main
from alc_dask.report.history import COLUMNS, audit_history, history_figure
from alc_dask.report.nightly import run_audit
from alc_dask.verdict import read_verdict, verdict_json

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def client():
    with (
        LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster) as running,
    ):
        yield running


@pytest.fixture
def on_one_cluster(monkeypatch, client):
    """Audits run on the module's cluster rather than each starting its own."""
    monkeypatch.setattr("alc_dask.report.nightly.run_job", lambda *args, **kwargs: run_job(*args, **{**kwargs, "client": client}))


def history_job(folder: Path) -> Path:
    """A job auditing ``release.parquet`` (the strongly swapped release until replaced) by singling
    out, inference and an ALC scenario. The singling-out and inference thresholds are out of reach,
    so that no evaluation is flagged on its scale: only a headline getting worse can fail the audit."""
    for name, table in make_demo_release(1000, seed=2).items():
        table.to_parquet(folder / f"{name}.parquet")
    publish(folder, "strong")
    job = folder / "audit.yaml"
    job.write_text(
        yaml.safe_dump(
            {
                "name": "history-test",
                "release": {"name": "weekly", "original": "original.parquet", "anonymized": ["release.parquet"], "control": "control.parquet"},
                "scenarios": [
                    {"family": "singling_out", "mode": "multivariate", "n_cols": 3, "n_attacks": 300},
                    {"family": "inference", "aux_cols": ["age", "sex", "region"], "secret": "income", "n_attacks": 300},
                    {"secret": "region", "known": ["age", "sex"]},
                ],
                "baseline_settings": {"candidates": ["majority"], "trees": 10},
                "output": "out",
                "audit": {"thresholds": {"singling_out": 0.999, "inference": 0.999}},
            }
        )
    )
    return job


def publish(folder: Path, name: str) -> None:
    """``name`` (strong, weak, original: a copy of the original) published as the release."""
    shutil.copy(folder / f"{name}.parquet", folder / "release.parquet")


@pytest.mark.long  # 11 s on 2 cores: out of the default run, in make test's second step
def test_a_headline_whose_interval_rose_wholly_above_the_previous_audits_fails_the_audit(tmp_path, on_one_cluster):
    job = history_job(tmp_path)
    first = run_audit(job, stamp="2025-01-01T000000Z", progress=False)
    assert first.passed and set(first.diff.table["change"].astype(str)) == {"new"}
    publish(tmp_path, "original")  # the original itself published in the release's place
    result = CliRunner().invoke(main, ["audit", str(job)])
    assert result.exit_code == EXIT_RELEASE_FLAGGED, result.output
    assert "VERDICT: FLAGGED" not in result.output  # no evaluation is flagged on its scale: the gate is the change
    worse = [line.split(" | ") for line in result.output.splitlines() if line.startswith("| ") and " | worse | " in line]
    assert {cells[1] for cells in worse} >= {"singling_out", "inference"}
    for cells in worse:  # the interval now lies wholly above the one before
        (low, _high), (_low_before, high_before) = (bounds(cells[5]), bounds(cells[6]))
        assert low > high_before and cells[-1].strip(" |") in ("worse", "label flagged, worse")


def bounds(cell: str) -> tuple[float, float]:
    """The interval of a report cell ``0.543 [0.484, 0.601]``."""
    low, high = cell.split("[")[1].rstrip("]").split(", ")
    return float(low), float(high)


@pytest.mark.long  # three audits: 15-30 s
def test_the_history_has_a_row_per_audit_and_evaluation_oldest_first_without_an_unfinished_audit(tmp_path, on_one_cluster, client):
    job = history_job(tmp_path)
    audits = tmp_path / "out" / "audits" / "weekly"
    run_audit(job, stamp="2025-01-01T000000Z", progress=False)
    run_job(job, client=client, out=audits / "2025-01-01T120000Z", progress=False)  # an audit stopped before its report: results, a verdict, no report
    publish(tmp_path, "weak")
    run_audit(job, stamp="2025-01-02T000000Z", progress=False)
    publish(tmp_path, "original")
    last = run_audit(job, stamp="2025-01-03T000000Z", progress=False)

    history = audit_history(audits)
    stamps = ["2025-01-01T000000Z", "2025-01-02T000000Z", "2025-01-03T000000Z"]
    assert list(history.columns) == COLUMNS and list(history["stamp"].unique()) == stamps and history["stamp"].is_monotonic_increasing
    ids = sorted(e.id for e in last.verdict.evaluations)
    assert len(ids) == 3 and all(sorted(history.loc[history["stamp"] == stamp, "id"]) == ids for stamp in stamps)
    for stamp in stamps:  # each row as its audit's verdict.json says
        written = read_verdict(audits / stamp)
        rows = history[history["stamp"] == stamp].set_index("id")
        assert set(rows["verdict"]) == {written.verdict}
        assert all(
            (rows.at[e.id, "label"], rows.at[e.id, "value"], rows.at[e.id, "low"]) == (e.label, e.headline.value, e.headline.low) for e in written.evaluations
        )
    assert history.loc[history["family"] == "singling_out", "value"].is_monotonic_increasing  # strong, weak, the original itself

    latest = (audits / "history.png").read_bytes()
    assert latest.startswith(PNG) and len(latest) > 20_000 and latest == (audits / stamps[-1] / "history.png").read_bytes()
    assert (audits / "history.md").read_text() == (audits / stamps[-1] / "history.md").read_text()
    at_the_second = (audits / stamps[1] / "history.md").read_text()  # each audit's history stops at that audit
    assert stamps[0] in at_the_second and stamps[1] in at_the_second and stamps[2] not in at_the_second and "2025-01-01T120000Z" not in at_the_second
    assert "| 2025-01-03T000000Z | singling_out |" in (audits / "history.md").read_text()


def test_an_audit_whose_verdict_does_not_read_is_left_out_of_the_history_saying_so(tmp_path, capsys):
    for stamp, value in (("2025-01-01T000000Z", 0.02), ("2025-01-02T000000Z", 0.03), ("2025-01-03T000000Z", 0.2)):
        (tmp_path / stamp).mkdir()
        (tmp_path / stamp / f"audit-{stamp}.md").write_text("")
        (tmp_path / stamp / "verdict.json").write_bytes(verdict_json(verdict(("a", "pass", value, value - 0.01, value + 0.01))))
    (tmp_path / "2025-01-02T000000Z" / "verdict.json").write_text('{"verdict": "maybe"}')
    (tmp_path / "2025-01-04T000000Z").mkdir()  # started, not finished
    (tmp_path / "2025-01-04T000000Z" / "verdict.json").write_bytes(verdict_json(verdict(("a", "flagged", 0.9, 0.8, 1.0))))
    history = audit_history(tmp_path)
    assert list(history["stamp"]) == ["2025-01-01T000000Z", "2025-01-03T000000Z"] and list(history["value"]) == [0.02, 0.2]
    assert "2025-01-02T000000Z/verdict.json: left out of the history, it does not read" in capsys.readouterr().err
    assert history_figure(history).startswith(PNG)


def test_an_audit_without_evaluations_keeps_its_verdict_in_the_history(tmp_path):
    (tmp_path / "2025-01-01T000000Z").mkdir()
    (tmp_path / "2025-01-01T000000Z" / "audit-2025-01-01T000000Z.md").write_text("")
    (tmp_path / "2025-01-01T000000Z" / "verdict.json").write_bytes(verdict_json(verdict().model_copy(update={"verdict": "inconclusive", "failed": 2})))
    history = audit_history(tmp_path)
    assert len(history) == 1 and history.at[0, "verdict"] == "inconclusive" and history["id"].isna().all()
    assert history_figure(history).startswith(PNG)


def test_an_audit_from_before_verdict_json_is_compared_on_its_scores_verdict_and_left_out_of_the_history(tmp_path, on_one_cluster):
    job = history_job(tmp_path)
    audits = tmp_path / "out" / "audits" / "weekly"
    run_audit(job, stamp="2025-01-01T000000Z", progress=False)
    (audits / "2025-01-01T000000Z" / "verdict.json").unlink()  # as an audit of an earlier version left it
    second = run_audit(job, stamp="2025-01-02T000000Z", progress=False)
    assert second.previous == "2025-01-01T000000Z" and set(second.diff.table["change"].astype(str)) == {"same"}
    assert list(second.diff.table["label_before"]) == list(second.diff.table["label"])
    assert list(audit_history(audits)["stamp"].unique()) == ["2025-01-02T000000Z"]
