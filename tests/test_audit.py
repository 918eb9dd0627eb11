"""Audits: the diff against the previous audit, and the audit command's dated runs and exit code."""

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from distributed import Client, LocalCluster

from alc_dask import run_job
from alc_dask.apps.synthetic import make_demo_release
from alc_dask.cli import main
from alc_dask.report import compare
from alc_dask.report.nightly import claim_stamp, complete_audits, run_audit
from alc_dask.results import read_scores


def frame(rows):
    return pd.DataFrame(rows, columns=["scenario_id", "status", "alc", "risk"]).assign(secret="s", known="[]", baseline="ml", error=None)


def test_changes_are_classified_against_the_previous_audit():
    before = frame([("a", "ok", 0.10, "safe"), ("b", "ok", 0.40, "safe"), ("c", "ok", 0.30, "safe"), ("d", "ok", 0.45, "safe"), ("e", "ok", 0.2, "safe")])
    now = frame(
        [
            ("a", "ok", 0.12, "safe"),
            ("b", "ok", 0.55, "at risk"),
            ("c", "ok", 0.40, "safe"),
            ("d", "ok", 0.20, "safe"),
            ("e", "failed", np.nan, None),
            ("f", "ok", -0.1, "no loss"),
        ]
    )
    diff = compare(now, before, worse_by=0.05)
    change = dict(zip(diff.table["scenario_id"], diff.table["change"].astype(str)))
    assert change == {"a": "same", "b": "worse", "c": "worse", "d": "better", "e": "failed", "f": "new"}
    assert set(diff.flagged["scenario_id"]) == {"b", "c", "e"} and not diff.passed


def test_a_safe_unchanged_release_passes():
    scores = frame([("a", "ok", 0.1, "safe"), ("b", "ok", -0.3, "no loss")])
    assert compare(scores, scores).passed and compare(scores, None).passed


def test_previous_audit_ignores_incomplete_and_later_runs(tmp_path):
    for stamp, complete in (("2025-01-01T000000Z", True), ("2025-01-02T000000Z", False), ("2025-01-04T000000Z", True)):
        (tmp_path / stamp).mkdir()
        if complete:
            (tmp_path / stamp / f"audit-{stamp}.md").write_text("")
    assert complete_audits(tmp_path, before="2025-01-03T000000Z") == ["2025-01-01T000000Z"]
    assert complete_audits(tmp_path, before="2025-01-05T000000Z") == ["2025-01-01T000000Z", "2025-01-04T000000Z"]
    assert complete_audits(tmp_path / "absent", before="x") == []


def test_audits_started_in_one_second_each_claim_a_folder(tmp_path):
    with ThreadPoolExecutor(4) as pool:
        stamps = list(pool.map(lambda _: claim_stamp(tmp_path, "2025-01-01T235959Z"), range(4)))
    assert sorted(stamps) == ["2025-01-01T235959Z", "2025-01-02T000000Z", "2025-01-02T000001Z", "2025-01-02T000002Z"]


def audit_job(folder: Path) -> Path:
    """A job auditing release ``weak`` into ``folder/out/audits/weak``."""
    for name, table in make_demo_release(1000, seed=2).items():
        table.to_parquet(folder / f"{name}.parquet")
    job = folder / "audit.yaml"
    job.write_text(
        yaml.safe_dump(
            {
                "name": "audit-test",
                "release": {"name": "weak", "original": "original.parquet", "anonymized": ["weak.parquet"]},
                "scenarios": [{"generate": "each_column", "secrets": ["income", "region"]}],
                "baseline_settings": {"candidates": ["majority", "logistic_regression"], "trees": 10},
                "output": "out",
            }
        )
    )
    return job


@pytest.mark.long
def test_audit_runs_dated_and_compares_with_the_last_one(tmp_path):
    job = audit_job(tmp_path)
    first = run_audit(job, workers=1, stamp="2025-01-01T000000Z", progress=False)
    second = run_audit(job, workers=1, stamp="2025-01-02T000000Z", progress=False)
    assert first.previous is None and second.previous == "2025-01-01T000000Z"
    assert set(second.diff.table["change"].astype(str)) == {"same"}  # same release, same seed
    assert second.report == tmp_path / "out" / "audits" / "weak" / "2025-01-02T000000Z" / "audit-2025-01-02T000000Z.md"
    assert "compared with the audit of 2025-01-01T000000Z" in second.report.read_text()
    same_second = run_audit(job, workers=1, stamp="2025-01-02T000000Z", progress=False)  # it once shared the folder of `second`
    assert same_second.report.parent.name == "2025-01-02T000001Z" and same_second.previous == "2025-01-02T000000Z"
    assert len(read_scores(same_second.report.parent)) == len(read_scores(second.report.parent))

    result = CliRunner().invoke(main, ["audit", str(job), "--workers", "1"])
    flagged = second.diff.table["risk"].isin(["at risk", "serious"]).any()
    assert result.exit_code == (4 if flagged else 0)  # EXIT_RELEASE_FLAGGED
    assert ("FLAGGED" in result.output) == flagged and "Audit report:" in result.output


@pytest.fixture
def audits_on_one_cluster(monkeypatch):
    """Audits run on one local cluster, started once, rather than each on its own."""
    with (
        LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster) as client,
    ):
        monkeypatch.setattr("alc_dask.report.nightly.run_job", lambda *args, **kwargs: run_job(*args, **{**kwargs, "client": client}))
        yield


def test_earlier_audits_with_a_truncated_part_or_of_the_single_table_layout_are_skipped_for_the_last_complete_one(tmp_path, audits_on_one_cluster):
    """A complete earlier audit whose scores part was later cut short (a full disk, a bad copy) once
    stopped every audit with a raw Arrow error (exit 2); it is skipped, saying so, for the one before.
    So is an audit alc_dask 0.6.0 wrote, in its single-table layout: never misread."""
    job = audit_job(tmp_path)
    audits = tmp_path / "out" / "audits" / "weak"
    run_audit(job, workers=1, stamp="2025-01-01T000000Z", progress=False)
    broken = audits / "2025-01-02T000000Z"
    shutil.copytree(audits / "2025-01-01T000000Z", broken)
    (broken / "audit-2025-01-01T000000Z.md").rename(broken / "audit-2025-01-02T000000Z.md")
    part = next((broken / "scores" / "alc").glob("part-*.parquet"))
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
    single_table = audits / "2025-01-03T000000Z"
    shutil.copytree(audits / "2025-01-01T000000Z", single_table)
    (single_table / "audit-2025-01-01T000000Z.md").rename(single_table / "audit-2025-01-03T000000Z.md")
    for written in (single_table / "scores" / "alc").iterdir():
        written.rename(single_table / "scores" / written.name)
    manifest = json.loads((single_table / "job.json").read_text())
    (single_table / "job.json").write_text(json.dumps({**{k: v for k, v in manifest.items() if k != "layout"}, "alc_dask": "0.6.0"}))

    result = CliRunner().invoke(main, ["audit", str(job), "--workers", "1"])
    assert result.exit_code in (0, 4), result.output  # passed or flagged, as the release is
    (line,) = [line for line in result.stderr.splitlines() if "2025-01-02T000000Z" in line]
    assert line.startswith(f"{broken}: audit skipped, comparing with an earlier one: ") and f"{part.name}': Parquet magic bytes not found" in line
    (line,) = [line for line in result.stderr.splitlines() if "2025-01-03T000000Z" in line]
    assert line.startswith(
        f"{single_table}: audit skipped, comparing with an earlier one: {single_table} holds results of alc_dask 0.6.0 in their single-table layout"
    )
    skipped = "skipped, as their results cannot be read: 2025-01-03T000000Z, 2025-01-02T000000Z"
    assert f"compared with the audit of 2025-01-01T000000Z; {skipped}" in result.stdout


def test_an_audit_flags_a_serious_scenario_whatever_its_secret_is_named(tmp_path):
    """Its parts were once written under an id starting with ``_`` and never read: the audit passed."""
    original = make_demo_release(600, seed=4)["original"].rename(columns={"income": "âge"})
    original.to_parquet(tmp_path / "original.parquet")
    original.to_parquet(tmp_path / "released.parquet")  # released unchanged: every row gives itself away
    job = tmp_path / "audit.yaml"
    job.write_text(
        yaml.safe_dump(
            {
                "name": "audit-unsafe-name",
                "release": {"name": "unchanged", "original": "original.parquet", "anonymized": ["released.parquet"]},
                "scenarios": [{"secret": "âge", "known": ["age", "sex", "region", "hours_per_week", "married"]}],
                "baseline_settings": {"candidates": ["majority", "logistic_regression"], "trees": 10},
                "output": "out",
            },
            allow_unicode=True,
        )
    )
    result = CliRunner().invoke(main, ["audit", str(job), "--workers", "1"])
    assert "FLAGGED" in result.output and result.exit_code != 0, result.output
    scores = read_scores(next((tmp_path / "out" / "audits" / "unchanged").iterdir()))
    assert list(scores["secret"]) == ["âge"] and list(scores["risk"]) == ["serious"]


def test_an_audit_can_flag_on_precision_improvement():
    """A safe ALC whose attack is nonetheless more precise than the baseline on the targets it
    predicted for: flagged only when the job asks to flag on PI, and only when vulnerable."""
    scores = frame([("a", "ok", 0.1, "safe"), ("b", "ok", -0.2, "no loss"), ("c", "ok", 0.2, "safe")]).assign(
        pi=[0.6, 0.8, 0.3], pi_vulnerable=[True, False, True]
    )
    assert compare(scores, scores).passed
    diff = compare(scores, scores, flag_pi_at=0.5)
    assert list(diff.flagged["scenario_id"]) == ["a"] and not diff.passed
    assert set(compare(scores, scores, flag_pi_at=0.25).flagged["scenario_id"]) == {"a", "c"}
    older = frame([("a", "ok", 0.1, "safe")])  # results written before PI was measured
    assert compare(older, older, flag_pi_at=0.5).passed
