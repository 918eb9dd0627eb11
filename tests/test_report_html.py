"""report.html and report-external.html on a release whose truth is known (a copy of the original,
with a control table): self-contained, the verdict first, the regulator's view per criterion, the
per-record exposure in the internal report only, evaluations counted per verdict label."""

import base64
import dataclasses
import logging
import shutil
import subprocess
import sys
from html.parser import HTMLParser

import pandas as pd
import pytest
from distributed import Client, LocalCluster

from alc_dask import run_job
from alc_dask.apps.synthetic import make_population
from alc_dask.families import get_family
from alc_dask.families.presentation import Section
from alc_dask.jobs import validate_job
from alc_dask.report import as_html, as_markdown, as_text, summarize, write_report
from alc_dask.report.html_table import compact_json, html_table, text
from alc_dask.report.records import EXPLANATION, most_exposed
from alc_dask.report.regulator import CRITERIA, NOT_EVALUATED, regulators_view
from alc_dask.report.scorecard import scorecard
from alc_dask.verdict import EvaluationVerdict, Headline, Verdict, read_verdict

ROWS = 1200
PNG = b"\x89PNG\r\n\x1a\n"
URL_ATTRIBUTES = {"src", "href", "srcset", "poster", "action", "formaction", "background", "data", "xlink:href", "cite", "manifest"}


@pytest.fixture(scope="module")
def copy_scores(tmp_path_factory) -> pd.DataFrame:
    """A release that is a copy of the original, attacked by singling out, inference and membership."""
    folder = tmp_path_factory.mktemp("copy")
    original = make_population(ROWS, seed=3)
    original.to_parquet(folder / "original.parquet")
    original.to_parquet(folder / "release.parquet")
    make_population(ROWS, seed=4).to_parquet(folder / "control.parquet")
    job = {
        "name": "copy",
        "release": {
            "name": "copy",
            "original": str(folder / "original.parquet"),
            "anonymized": [str(folder / "release.parquet")],
            "control": str(folder / "control.parquet"),
        },
        "scenarios": [
            {"family": "singling_out", "mode": "multivariate", "n_cols": 4, "n_attacks": 300},
            {"family": "inference", "aux_cols": ["age", "sex", "region", "education", "occupation", "hours_per_week"], "secret": "income", "n_attacks": 300},
            {"family": "membership", "attack": "closest_distance", "n_members": 600, "n_non_members": 600},
        ],
        "output": str(folder / "out"),
    }
    with (
        LocalCluster(
            n_workers=1,
            threads_per_worker=2,
            processes=False,
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        return run_job(validate_job(job), client=client, progress=False)


@pytest.fixture
def exposure() -> pd.DataFrame:
    """A hand-made per-record exposure: 150 records, every fifth exposed by three families."""
    several = [record % 5 == 0 for record in range(150)]
    return pd.DataFrame(
        {
            "record": range(150),
            "families": ["inference, membership, singling_out" if many else "inference" for many in several],
            "n_families": [3 if many else 1 for many in several],
            "evidence": ["PER-RECORD singled out; income inferred; called a member" if many else "PER-RECORD income inferred" for many in several],
        }
    ).sample(frac=1, random_state=0)


class References(HTMLParser):
    """Every URL an HTML document refers to, the tags it opens, and its inline CSS."""

    def __init__(self):
        super().__init__()
        self.urls, self.tags, self.css = [], [], []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.urls += [value or "" for name, value in attrs if name in URL_ATTRIBUTES]
        self.css += [value or "" for name, value in attrs if name == "style"]
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.css.append(data)


def references(document: str) -> References:
    parser = References()
    parser.feed(document)
    return parser


def test_the_report_stands_alone_and_refers_to_nothing_outside_itself(copy_scores, exposure, tmp_path):
    summary = summarize(copy_scores)
    paths = write_report(summary, tmp_path / "report", title="copy", exposure=exposure)
    alone = tmp_path / "alone"
    alone.mkdir()
    for name in ("html", "external"):
        shutil.copy(paths[name], alone)  # as an e-mail attachment: no plot file, no verdict.json beside it
    assert sorted(p.name for p in alone.iterdir()) == ["report-external.html", "report.html"]
    figures = sum(len(section.figures) for section in summary.sections)
    assert figures >= 3
    for name in ("report.html", "report-external.html"):
        document = (alone / name).read_text()
        found = references(document)
        assert found.urls and all(url.startswith(("data:", "#")) for url in found.urls), [u[:40] for u in found.urls if not u.startswith(("data:", "#"))]
        assert not {"script", "link", "iframe", "object", "embed", "base"} & set(found.tags)
        css = " ".join(found.css)
        assert "@import" not in css and css.count("url(") == css.count("url(data:")
        images = [url for url in found.urls if url.startswith("data:image/png;base64,")]
        assert len(images) == figures and all(base64.b64decode(url.split(",", 1)[1]).startswith(PNG) for url in images)
        anchors = {url[1:] for url in found.urls if url.startswith("#")}
        assert all(f"id='{anchor}'" in document for anchor in anchors)


def test_the_verdict_and_scorecard_come_before_the_families_and_say_flagged_for_a_copy(copy_scores):
    summary = summarize(copy_scores)
    document = as_html(summary)
    assert summary.verdict.verdict == "flagged"
    assert "<div class='verdict flagged'><p class='word'>flagged</p>" in document
    first_family = min(document.index(f"<h2>{section.title}</h2>") for section in summary.sections)
    order = [document.index(marker) for marker in ("class='verdict flagged'", "id='scorecard'", "id='evidence'", "id='regulators-view'")]
    assert order == sorted(order) and order[-1] < first_family
    counts = {label: sum(e.label == label for e in summary.verdict.evaluations) for label in ("flagged", "inconclusive", "pass")}
    assert f"{counts['flagged']} flagged · {counts['inconclusive']} inconclusive · {counts['pass']} pass" in document
    evidence = document[document.index("id='evidence'") : document.index("id='regulators-view'")]
    assert all(e.evidence in evidence.replace("&#x27;", "'") for e in summary.verdict.evaluations)


def test_the_scorecard_has_a_row_per_family_on_its_own_scale(copy_scores):
    verdict = summarize(copy_scores).verdict
    card = scorecard(verdict).set_index("family")
    assert sorted(card.index) == ["inference", "membership", "singling_out"]
    for family, row in card.iterrows():
        judged = [e for e in verdict.evaluations if e.family == family]
        assert row["threshold"] == verdict.thresholds[family] and row["threshold source"] == judged[0].headline.threshold_source
        assert (row["flagged"], row["inconclusive"], row["pass"]) == tuple(
            sum(e.label == label for e in judged) for label in ("flagged", "inconclusive", "pass")
        )
        assert row["worst headline"].startswith(f"{judged[0].headline.name} ") and judged[0].id in row["worst headline"]
    assert card.loc["singling_out", "threshold"] == 0.09 and "EMA Policy 0070" in card.loc["singling_out", "threshold source"]


def test_the_regulators_view_reads_each_criterion_from_the_families_behind_it(copy_scores):
    verdict = summarize(copy_scores).verdict
    view = regulators_view(verdict).set_index("criterion")
    assert list(view.index) == [criterion.name for criterion in CRITERIA]
    assert view.loc["singling out", "label"] == view.loc["inference", "label"] == view.loc["membership", "label"] == "flagged"
    assert view.loc["linkability", "label"] == view.loc["identification", "label"] == NOT_EVALUATED  # not run: never a pass
    assert view.loc["inference", "thresholds applied"] == "inference 0.09" and view.loc["membership", "thresholds applied"] == "membership 0.5"
    assert view.loc["singling out", "worst evidence"] == next(e.evidence for e in verdict.evaluations if e.family == "singling_out")


def test_a_family_of_no_criterion_gets_a_row_of_its_own_and_alc_answers_inference():
    def judged(family, label, value):
        headline = Headline(name="score", value=value, low=value - 0.1, high=value + 0.1, threshold=0.5, threshold_source="here")
        return EvaluationVerdict(
            family=family, id=f"{family}-1", release="r", params={}, label=label, headline=headline, evidence=f"{family} found", measures={}
        )

    verdict = Verdict(
        verdict="flagged", evaluations=[judged("my_plugin", "flagged", 0.9), judged("alc", "inconclusive", 0.5)], thresholds={"my_plugin": 0.5, "alc": 0.5}
    )
    view = regulators_view(verdict).set_index("criterion")
    assert view.loc["other", "label"] == "flagged" and view.loc["other", "evaluations behind it"] == "my_plugin: 1 (1 flagged)"
    assert view.loc["inference", "label"] == "inconclusive" and view.loc["inference", "worst evidence"] == "alc found"
    assert view.loc["singling out", "label"] == NOT_EVALUATED


def test_a_family_declares_the_criterion_it_answers_and_the_report_names_none(monkeypatch):
    """The regulator's view reads each family's ``criterion``: one of its own gets a row of its own."""
    from alc_dask.report import regulator

    class OwnQuestion:
        criterion = "re-identification by a data broker"

    installed = {"alc": get_family("alc"), "broker": OwnQuestion}
    monkeypatch.setattr(regulator, "family_names", lambda: list(installed))
    monkeypatch.setattr(regulator, "get_family", installed.__getitem__)
    headline = Headline(name="score", value=0.9, low=0.8, high=1.0, threshold=0.5, threshold_source="here")
    evaluation = EvaluationVerdict(family="broker", id="broker-1", release="r", params={}, label="flagged", headline=headline, evidence="found", measures={})
    view = regulators_view(Verdict(verdict="flagged", evaluations=[evaluation], thresholds={"broker": 0.5})).set_index("criterion")
    assert view.loc["re-identification by a data broker", "label"] == "flagged" and "other" not in view.index
    assert view.loc["inference", "evaluations behind it"] == "none (alc not run)"


def test_per_record_exposure_is_in_the_internal_report_only(copy_scores, exposure, tmp_path):
    summary = summarize(copy_scores)
    per_record = pd.DataFrame({"record": [7, 8], "predicted": ["a", "b"]})  # a family's table per record of the original
    summary = dataclasses.replace(summary, sections=(*summary.sections, Section("Predictions", {"Predictions per record": per_record})))
    paths = write_report(summary, tmp_path, title="copy", exposure=exposure)
    internal, external = paths["html"].read_text(), paths["external"].read_text()
    assert "id='exposure'" in internal and EXPLANATION in internal and "PER-RECORD" in internal and "Predictions per record" in internal
    assert "id='exposure'" not in external and EXPLANATION not in external and "PER-RECORD" not in external
    assert "Predictions per record" not in external and "<th><span>record</span></th>" not in external
    assert "aggregates only" in external and all(f"<h2>{section.title}</h2>" in external for section in summary.sections)
    assert "PER-RECORD" in paths["markdown"].read_text() and "PER-RECORD" not in as_text(summary)


def test_the_most_exposed_records_come_first_and_at_most_a_hundred(exposure):
    shown = most_exposed(exposure)
    assert len(shown) == 100 and list(shown.columns) == ["record", "families", "n_families", "evidence"]
    assert list(shown["record"][:30]) == list(range(0, 150, 5)) and (shown["n_families"][:30] == 3).all()
    assert list(shown["record"][30:]) == [record for record in range(150) if record % 5][:70]
    with pytest.raises(ValueError, match="lacks the column.* n_families"):
        most_exposed(exposure.drop(columns="n_families"))


def test_evaluations_per_verdict_label_add_up_per_release_and_family(copy_scores, tmp_path):
    twice = pd.concat([copy_scores, copy_scores.assign(release="again")], ignore_index=True)
    summary = summarize(twice)
    counts = summary.verdict_counts
    assert list(counts.columns) == ["flagged", "inconclusive", "pass", "not_informative"] and counts.index.names == ["release", "family"]
    assert counts.to_numpy().sum() == (twice["status"] == "ok").sum() == len(summary.verdict.evaluations)
    for (release, family), row in counts.iterrows():
        labels = [e.label for e in summary.verdict.evaluations if (e.release, e.family) == (release, family)]
        assert row.to_dict() == {label: labels.count(label) for label in row.index}
    assert set(counts.index.get_level_values("release")) == {"copy", "again"}
    assert "Evaluations per verdict label" in as_text(summary) and "| release | family | flagged | inconclusive | pass |" in as_markdown(summary)
    assert "Evaluations per verdict label" in as_html(summary) and "Evaluations per risk label" not in as_html(summary)


def test_the_report_writes_the_verdict_beside_itself(copy_scores, tmp_path):
    summary = summarize(copy_scores, thresholds={"membership": 0.99})
    paths = write_report(summary, tmp_path)
    assert paths["verdict"] == tmp_path / "verdict.json" and read_verdict(tmp_path).model_dump_json() == summary.verdict.model_dump_json()
    assert summary.verdict.thresholds["membership"] == 0.99
    assert next(e for e in summary.verdict.evaluations if e.family == "membership").headline.threshold_source == "the job's audit.thresholds"


def test_cells_are_compact_and_wide_tables_are_marked():
    assert compact_json('["age", "sex"]') == "age, sex"
    assert compact_json('{"attack": {"name": "best_row_match", "params": {}}, "known": ["a", "b"], "targets": null}') == "attack=best_row_match, known=[a, b]"
    assert compact_json("[not json") == "[not json" and text(float("nan")) == ""
    assert text(500000.0) == "500000" and text(0.12345) == "0.123" and text(1.0) == "1.000"
    wide = html_table(pd.DataFrame([range(10)], columns=[f"column_{i}" for i in range(10)]))
    assert wide.startswith("<div class='scroll'><table class='wide'>") and "<th>column 0</th>" in wide  # words, not snake_case; not rotated
    described = html_table(pd.DataFrame({"halt_code": ["x"]}))
    assert "<th title='why the scenario stopped" in described and ">halt code</th>" in described
    narrow = html_table(pd.DataFrame({"label": ["flagged"], "flagged": [2], "pass": [0], "id": ["membership_closest_dista-3bc2de7a75"]}))
    assert "<span class='label flagged'>flagged</span>" in narrow and "<span class='label flagged'>2</span>" in narrow
    assert "<td class='num'>0</td>" in narrow and "membership_<wbr>closest_<wbr>dista-3bc2de7a75" in narrow


def test_the_verdict_lines_tell_one_evaluation_in_two_releases_apart(copy_scores):
    twice = pd.concat([copy_scores, copy_scores.assign(release="again")], ignore_index=True)
    lines = as_text(summarize(twice)).splitlines()
    singled = [line for line in lines if line.startswith("  flagged: singling_out ")]
    assert len(singled) == 2 and len(set(singled)) == 2 and {line.split()[2] for line in singled} == {"copy", "again"}


def test_the_exposure_of_several_releases_names_each_records_release():
    from alc_dask.report.records import explanation, most_exposed

    frame = pd.DataFrame(
        {
            "release": ["weak", "strong", "weak"],
            "record": [3, 3, 5],
            "families": ["a, b", "a", "a, b"],
            "n_families": [2, 1, 2],
            "evidence": ["x; y", "x", "x; y"],
        }
    )
    shown = most_exposed(frame)
    assert shown.columns[0] == "release" and shown[["release", "record"]].values.tolist() == [["weak", 3], ["weak", 5], ["strong", 3]]
    assert "counted in each of 2 releases" in explanation(frame, shown)


def test_a_report_of_several_releases_gives_each_its_verdict(copy_scores):
    """The demo's three releases had one verdict though the k-anonymous one passes everything."""
    twice = pd.concat([copy_scores, copy_scores.assign(release="again")], ignore_index=True)
    page = as_html(summarize(twice))
    banner = page[page.index("<section id='verdict'>") : page.index("</section>", page.index("<section id='verdict'>"))]
    assert "<ul class='releases'>" in banner and banner.count("<li><span class='label") == 2 and "again</li>" in banner
    assert "<ul class='releases'>" not in as_html(summarize(copy_scores))


def test_log_axes_are_labelled_in_plain_numbers_not_typeset_powers_of_ten():
    """Each power of ten was typeset as mathtext, a fifth of a small check's report time."""
    from alc_dask.families.presentation import new_figure, png_bytes

    fig, ax = new_figure(4, 3)
    ax.plot([0.001, 0.5, 1.0], [0.01, 0.2, 1.0])
    ax.set(xscale="log", yscale="log")
    assert png_bytes(fig).startswith(b"\x89PNG")
    labels = {axis: [tick.get_text() for tick in getattr(ax, f"get_{axis}ticklabels")() if tick.get_text()] for axis in ("x", "y")}
    assert {"0.001", "0.01", "0.1", "1"} <= set(labels["x"]) and {"0.01", "0.1", "1"} <= set(labels["y"]), labels
    assert not any("$" in label or "10^" in label for axis in labels.values() for label in axis)


def test_warm_up_loads_what_a_report_s_first_figure_would_load(tmp_path):
    """``check`` warms the figure toolkit up while its local cluster starts: afterwards matplotlib's
    PNG writer and a font are loaded, so the report's first figure pays neither (about 0.3 s)."""
    script = (
        "import sys\n"
        "from alc_dask.families.presentation import warm_up\n"
        "assert 'matplotlib' not in sys.modules\n"
        "warm_up()\n"
        "from matplotlib import font_manager\n"
        "assert 'matplotlib.backends.backend_agg' in sys.modules and font_manager._get_font.cache_info().currsize > 0\n"
    )
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert finished.returncode == 0, finished.stderr
