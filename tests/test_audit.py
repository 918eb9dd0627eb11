"""Audits: the diff against the previous audit, and the audit command's dated runs and exit code."""

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from distributed import Client, LocalCluster

from alc_dask import run_job
from alc_dask.apps.synthetic import make_demo_release
from alc_dask.cli import main
from alc_dask.measure.verdict import worst
from alc_dask.report import audit_markdown, compare
from alc_dask.report.nightly import claim_stamp, complete_audits, run_audit
from alc_dask.results import read_scores
from alc_dask.verdict import EvaluationVerdict, Headline, Verdict


def verdict(*evaluations, family: str = "singling_out") -> Verdict:
    """A verdict of ``evaluations``: (id, label, value, low, high) each, on ``family``'s headline."""
    judged = [
        EvaluationVerdict(
            family=family,
            id=identifier,
            release="r",
            params={},
            label=label,
            headline=Headline(name="privacy_risk", value=value, low=low, high=high, threshold=0.09, threshold_source="a test"),
            evidence="",
            measures={},
        )
        for identifier, label, value, low, high in evaluations
    ]
    return Verdict(verdict=worst(e.label for e in judged).value, evaluations=judged, thresholds={family: 0.09})


def scores(*rows, family: str = "singling_out", risk: str | None = None) -> pd.DataFrame:
    """Scores of (id, status) rows, each with the family's own ``risk`` label if it keeps one."""
    return pd.DataFrame(rows, columns=["scenario_id", "status"]).assign(family=family, params="{}", error=None, risk=risk)


def test_a_headline_is_worse_when_its_interval_lies_wholly_above_the_previous_one():
    """A point higher by more than worse_by is not worse while the intervals overlap (sampling may
    explain it); an interval wholly above the previous one is. Points without an interval (the
    relative threat's, or unknown bounds) are compared on worse_by."""
    before = verdict(
        ("overlap", "pass", 0.02, 0.0, 0.05),
        ("above", "pass", 0.02, 0.0, 0.05),
        ("below", "pass", 0.30, 0.25, 0.35),
        ("point", "pass", 0.10, 0.10, 0.10),
        ("unknown", "inconclusive", 0.10, None, None),
        ("barely", "pass", 0.10, 0.10, 0.10),
        ("failed", "pass", 0.01, 0.0, 0.02),
    )
    now = verdict(
        ("overlap", "pass", 0.08, 0.04, 0.12),  # +0.06 > worse_by, but [0.04, 0.12] overlaps [0, 0.05]
        ("above", "pass", 0.07, 0.051, 0.09),  # wholly above [0, 0.05]
        ("below", "pass", 0.10, 0.05, 0.2),
        ("point", "pass", 0.16, 0.16, 0.16),
        ("unknown", "inconclusive", 0.16, None, None),
        ("barely", "pass", 0.14, 0.14, 0.14),
        ("new", "pass", 0.01, 0.0, 0.02),
    )
    rows = scores(
        ("overlap", "ok"), ("above", "ok"), ("below", "ok"), ("point", "ok"), ("unknown", "ok"), ("barely", "ok"), ("failed", "failed"), ("new", "ok")
    )
    diff = compare(rows, now, before, worse_by=0.05)
    change = dict(zip(diff.table["scenario_id"], diff.table["change"].astype(str)))
    assert change == {
        "overlap": "same",
        "above": "worse",
        "below": "better",
        "point": "worse",
        "unknown": "worse",
        "barely": "same",
        "failed": "failed",
        "new": "new",
    }
    assert set(diff.flagged["scenario_id"]) == {"above", "point", "unknown", "failed"} and not diff.passed


def test_the_flag_comes_from_each_evaluations_verdict_label_not_from_the_alcs_risk_labels():
    """Scores a family labelled "at risk" in its own words pass while their verdict passes; an
    evaluation flagged on its family's scale fails the audit, unchanged or not."""
    rows = scores(("a", "ok"), ("b", "ok"), family="membership", risk="at risk")
    passing = verdict(("a", "pass", 0.05, 0.01, 0.08), ("b", "inconclusive", 0.1, 0.05, 0.15))
    assert compare(rows, passing, passing).passed and compare(rows, passing, None).passed
    flagged = verdict(("a", "pass", 0.05, 0.01, 0.08), ("b", "flagged", 0.3, 0.25, 0.35))
    diff = compare(rows, flagged, flagged)
    assert list(diff.flagged["scenario_id"]) == ["b"] and list(diff.reasons[diff.flagged.index]) == ["label flagged"]
    assert list(diff.table["risk"]) == ["at risk", "at risk"]  # shown beside the verdict's label, never deciding


def test_the_audit_report_shows_each_evaluations_label_and_interval_now_and_before():
    before = verdict(("above", "pass", 0.02, 0.0, 0.05), ("same", "pass", 0.03, 0.01, 0.06))
    now = verdict(("above", "flagged", 0.2, 0.15, 0.25), ("same", "pass", 0.04, 0.02, 0.07))
    diff = compare(scores(("above", "ok"), ("same", "ok")), now, before)
    markdown = audit_markdown(diff, "weak", "2025-01-02T000000Z", "2025-01-01T000000Z", verdict=now)
    assert "**FLAGGED: 1 evaluation(s) flagged, worse than at the previous audit or failed**" in markdown
    assert "Verdict of this audit: flagged." in markdown and "Changes: worse 1, same 1." in markdown
    lines = [line for line in markdown.splitlines() if line.startswith("| ")]
    assert lines[0] == "| evaluation | family | label | label before | headline | now | before | change | why flagged |"
    assert lines[1] == "| above | singling_out | flagged | pass | privacy_risk | 0.200 [0.150, 0.250] | 0.020 [0.000, 0.050] | worse | label flagged, worse |"
    assert lines[2] == "| same | singling_out | pass | pass | privacy_risk | 0.040 [0.020, 0.070] | 0.030 [0.010, 0.060] | same |  |"


def test_a_familys_own_risk_label_is_shown_beside_its_verdict_label():
    alc = verdict(("x", "inconclusive", 0.6, 0.4, 0.8), family="alc")
    diff = compare(scores(("x", "ok"), family="alc", risk="at risk"), alc, None)
    assert "| x | alc | inconclusive (at risk) |  | privacy_risk | 0.600 [0.400, 0.800] |  | new |  |" in audit_markdown(diff, "r", "s", None)


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
    flagged = second.verdict.verdict == "flagged"
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


@pytest.mark.long  # 14 s on 2 cores: out of the default run, in make test's second step
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


@pytest.mark.long  # 11 s on 2 cores: out of the default run, in make test's second step
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
    (audit,) = [path for path in (tmp_path / "out" / "audits" / "unchanged").iterdir() if path.is_dir()]  # beside the history files
    scores = read_scores(audit)
    assert list(scores["secret"]) == ["âge"] and list(scores["risk"]) == ["serious"]


def test_an_audit_can_flag_on_precision_improvement():
    """A safe ALC whose attack is nonetheless more precise than the baseline on the targets it
    predicted for: flagged only when the job asks to flag on PI, and only when vulnerable."""
    rows = scores(("a", "ok"), ("b", "ok"), ("c", "ok"), family="alc").assign(pi=[0.6, 0.8, 0.3], pi_vulnerable=[True, False, True])
    safe = verdict(("a", "pass", 0.1, 0.0, 0.2), ("b", "pass", -0.2, -0.3, 0.0), ("c", "pass", 0.2, 0.1, 0.3), family="alc")
    assert compare(rows, safe, safe).passed
    diff = compare(rows, safe, safe, flag_pi_at=0.5)
    assert list(diff.flagged["scenario_id"]) == ["a"] and not diff.passed and list(diff.reasons[diff.flagged.index]) == ["precision improvement"]
    assert set(compare(rows, safe, safe, flag_pi_at=0.25).flagged["scenario_id"]) == {"a", "c"}
    older = scores(("a", "ok"), family="alc")  # results written before PI was measured
    assert compare(older, safe, safe, flag_pi_at=0.5).passed
