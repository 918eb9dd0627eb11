"""Summaries and reports from a scores table: counts, worst scenarios, best per secret, plots."""

import base64
import re

import numpy as np
import pandas as pd

from alc_dask.families.alc.plots import alc_by_secret, precision_vs_alc
from alc_dask.measure import risk_label
from alc_dask.report import as_html, as_markdown, as_text, summarize, write_report

PNG = b"\x89PNG\r\n\x1a\n"


def scores_frame(seed=0, rows=30) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    alc = rng.uniform(-2, 1, rows)
    attack, base = rng.uniform(0.05, 0.95, rows), rng.uniform(0.05, 0.95, rows)
    frame = pd.DataFrame(
        {
            "release": rng.choice(["weak", "strong"], rows),
            "scenario_id": [f"s{i:03d}" for i in range(rows)],
            "secret": rng.choice(["age", "income", "region"], rows),
            "known": '["a", "b"]',
            "baseline": "ml",
            "status": "ok",
            "error": None,
            "alc": alc,
            "risk": [risk_label(a) for a in alc],
            "attack_precision": attack,
            "attack_recall": rng.uniform(0.1, 1, rows),
            "attack_interval_low": attack - 0.05,
            "attack_interval_high": attack + 0.05,
            "attack_n": 200,
            "attack_correct": np.round(attack * 200).astype(int),
            "base_n": 200,
            "base_correct": np.round(base * 200).astype(int),
            "base_measured_precision": base,
            "pairs": 200,
            "base_precision": base,
            "base_recall": rng.uniform(0.1, 1, rows),
            "base_interval_low": base - 0.05,
            "base_interval_high": base + 0.05,
            "halt_code": "exhausted",
        }
    )
    frame.loc[0, ["status", "error", "alc", "risk"]] = ["failed", "ScenarioError: boom", np.nan, None]
    return frame


def test_counts_worst_and_best_per_secret():
    scores = scores_frame()
    summary = summarize(scores)
    ok = scores[scores["status"] == "ok"]
    assert summary.total == 30 and list(summary.failed["scenario_id"]) == ["s000"]
    assert summary.verdict_counts.to_numpy().sum() == len(ok) == len(summary.verdict.evaluations)
    labels = pd.Series({(e.release, e.id): e.label for e in summary.verdict.evaluations})
    for (release, family), counts in summary.verdict_counts.iterrows():
        assert family == "alc" and list(counts.index) == ["flagged", "inconclusive", "pass", "not_informative"]
        assert counts.to_dict() == {label: int((labels[release] == label).sum()) for label in counts.index}
    section = summary.section("Attribute inference")
    assert list(section.tables["Worst scenarios"]["alc"]) == sorted(ok["alc"], reverse=True)[:10]
    best = ok.groupby(["release", "secret"])["alc"].max()
    assert {(r.release, r.secret): r.alc for r in section.tables["Best ALC per secret column"].itertuples()} == best.to_dict()


def test_text_markdown_and_html_show_the_tables_and_plots(tmp_path):
    summary = summarize(scores_frame())
    assert "30 scenarios, 1 failed" in as_text(summary) and "ScenarioError: boom" in as_text(summary)
    markdown = as_markdown(summary, plots={"ALC per secret column": "plot-2.png"})
    assert "| release | family | flagged | inconclusive | pass |" in markdown and "![ALC per secret column](plot-2.png)" in markdown
    images = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", as_html(summary))
    assert len(images) == 2 and all(base64.b64decode(image).startswith(PNG) for image in images)
    paths = write_report(summary, tmp_path / "report")
    assert all(path.is_file() for path in paths.values())
    assert (tmp_path / "report" / "plot-1.png").read_bytes().startswith(PNG)


def test_plots_cope_with_one_release_and_very_negative_alc():
    scores = scores_frame(rows=8)
    scores = scores[scores["status"] == "ok"].assign(release="only")
    scores.loc[scores.index[0], "alc"] = -40.0
    assert precision_vs_alc(scores).startswith(PNG) and alc_by_secret(scores).startswith(PNG)


def test_a_summary_of_only_failures():
    scores = scores_frame(rows=3).assign(status="failed", alc=np.nan, risk=None, error="boom")
    summary = summarize(scores)
    assert summary.scores.empty and len(summary.failed) == 3
    assert "<img" not in as_html(summary) and "3 scenarios, 3 failed" in as_text(summary)


def test_a_wp29_section_labels_on_anonymeters_scale_not_the_alcs():
    """A singling-out risk of 0.436 [0.382, 0.490] was labelled "safe" by the
    ALC's cut points (0.5); on its own scale (0.09) it is flagged."""
    from alc_dask.families import get_family

    row = {
        "release": "weak",
        "scenario_id": "multivariate-1",
        "params": '{"mode": "multivariate", "n_cols": 3}',
        "privacy_risk": 0.436,
        "privacy_risk_low": 0.382,
        "privacy_risk_high": 0.490,
        "risk": "safe",
        "attack_rate": 0.46,
        "baseline_rate": 0.03,
        "control_rate": 0.04,
        "n_attacks": 500,
        "n_success": 230,
        "warning": None,
    }
    straddling = dict(row, scenario_id="multivariate-2", privacy_risk=0.1, privacy_risk_low=0.05, privacy_risk_high=0.15)
    (table,) = get_family("singling_out").report_section(pd.DataFrame([row, straddling])).tables.values()
    assert "risk" not in table.columns
    assert table.set_index("scenario_id")["label"].to_dict() == {"multivariate-1": "flagged", "multivariate-2": "inconclusive"}
