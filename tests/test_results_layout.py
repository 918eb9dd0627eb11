"""A scores table per family: parts of several families written and removed together, checked and
compacted per family folder, and folders of another layout (the single table of alc_dask 0.6.0 and
earlier) refused by readers and writers alike, never misread nor added to."""

import json
import re

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import process_died

from alc_dask import __version__
from alc_dask.results import IDENTITY, LAYOUT, ResultsError, ResultStore, family_schema, read_predictions, read_scores
from alc_dask.results import files as results_files

THIS = re.escape(__version__)

MANIFEST = {"job": "j", "release": "r", "fingerprint": "abc", "settings": {}, "data": {}, "alc_dask": "0.7.0"}
FAMILIES = ("alc", "singling_out", "membership")
MEASURE = {"alc": "alc", "singling_out": "privacy_risk", "membership": "membership_alc"}


def scenario(number: int) -> str:
    return f"s{number}-{number:010x}"


def family_of(number: int) -> str:
    return FAMILIES[number % len(FAMILIES)]


def row(number: int, status: str = "ok", value: float = 0.5) -> dict:
    family = family_of(number)
    return {"scenario_id": scenario(number), "scenario_index": number, "family": family, "status": status, MEASURE[family]: value, "risk": "safe"}


def predictions(number: int, n: int = 2) -> pd.DataFrame:
    return pd.DataFrame({"scenario_id": scenario(number), "target": range(n), "side": "attack", "correct": True, "confidence": 0.5, "abstained": False})


def write(store: ResultStore, numbers, status: str = "ok", value: float = 0.5) -> None:
    for number in numbers:
        store.write(row(number, status, value), predictions(number) if status == "ok" else None)


def names(folder) -> list[str]:
    return sorted(path.name for path in folder.iterdir()) if folder.exists() else []


def test_a_part_of_several_families_is_a_scores_file_per_family_under_one_name(tmp_path):
    with ResultStore.create(tmp_path, MANIFEST, part_scenarios=6) as store:
        write(store, range(9))
    assert names(tmp_path / "scores") == sorted(FAMILIES)
    for family in FAMILIES:
        assert names(tmp_path / "scores" / family) == ["part-00000001.parquet", "part-00000002.parquet"]
        assert pq.read_schema(tmp_path / "scores" / family / "part-00000001.parquet").names == family_schema(family).names
    assert json.loads((tmp_path / "parts.json").read_text())["part-00000002.parquet"] == {
        "scores": {"alc": 1, "membership": 1, "singling_out": 1},
        "predictions": 6,
    }
    together = read_scores(tmp_path)
    assert together["scenario_id"].tolist() == sorted(map(scenario, range(6))) + sorted(map(scenario, range(6, 9)))  # by part, then by scenario
    assert together.columns.tolist()[: len(IDENTITY)] == [field.name for field in IDENTITY]
    assert {"alc", "privacy_risk", "membership_alc", "best_precision"} <= set(together.columns) and "kappa_population" not in together.columns
    singling_out = read_scores(tmp_path, "singling_out")
    assert singling_out.columns.tolist() == family_schema("singling_out").names and singling_out["scenario_id"].tolist() == [
        scenario(1),
        scenario(4),
        scenario(7),
    ]
    assert read_scores(tmp_path, "identification").empty and read_scores(tmp_path, "identification").columns.tolist() == family_schema("identification").names
    assert len(read_predictions(tmp_path)) == 18


def test_a_reader_of_one_family_is_refused_another_familys_column(tmp_path):
    with ResultStore.create(tmp_path, MANIFEST) as store:
        write(store, range(3))
    with pytest.raises(ResultsError, match=r"no column 'alc' in family 'singling_out''s scores"):
        read_scores(tmp_path, "singling_out", columns=["scenario_id", "alc"])
    with pytest.raises(ResultsError, match=r"no family 'nope' in the results of .*; known families: alc, "):
        read_scores(tmp_path, "nope")
    assert read_scores(tmp_path, columns=["scenario_id", "kappa_population"])["kappa_population"].isna().all()  # a known family's, absent here


def test_a_record_of_no_registered_family_is_refused(tmp_path):
    store = ResultStore.create(tmp_path, MANIFEST)
    with pytest.raises(ResultsError, match=rf"scores of scenario {scenario(0)}: unknown family 'nope'; known families: alc, "):
        store.write({**row(0), "family": "nope"}, None)
    with pytest.raises(ResultsError, match=rf"scores of scenario {scenario(0)}: family '../alc' is not a family's name"):
        store.write({**row(0), "family": "../alc"}, None)
    store.close()


def test_a_family_no_longer_installed_is_read_as_written(tmp_path):
    with ResultStore.create(tmp_path, MANIFEST) as store:
        write(store, [0])
    ghost = pa.table({"scenario_id": [scenario(9)], "family": ["ghost"], "status": ["ok"], "copy_share": [0.25]})
    (tmp_path / "scores" / "ghost").mkdir()
    pq.write_table(ghost, tmp_path / "scores" / "ghost" / "part-00000002.parquet")
    assert read_scores(tmp_path, "ghost")["copy_share"].tolist() == [0.25]
    together = read_scores(tmp_path).set_index("scenario_id")
    assert together.loc[scenario(9), "copy_share"] == 0.25 and pd.isna(together.loc[scenario(0), "copy_share"])


def test_a_family_file_missing_from_a_part_removes_the_whole_part_on_resume(tmp_path):
    with ResultStore.create(tmp_path, MANIFEST, part_scenarios=3) as store:
        write(store, range(6))
    (tmp_path / "scores" / "singling_out" / "part-00000002.parquet").unlink()
    with ResultStore.create(tmp_path, MANIFEST) as store:
        (damage,) = store.damaged
        assert (damage.part, damage.scenarios, damage.reason) == ("part-00000002.parquet", 3, "scores/singling_out/part-00000002.parquet is missing")
        assert store.completed() == {scenario(n) for n in range(3)}  # the other families' rows of the part run again too
    assert all(names(tmp_path / "scores" / family) == ["part-00000001.parquet"] for family in FAMILIES)
    assert names(tmp_path / "predictions") == ["part-00000001.parquet"]


def test_compaction_rewrites_every_familys_files_and_survives_a_crash_between_them(tmp_path, monkeypatch):
    store = ResultStore.create(tmp_path, MANIFEST, part_scenarios=12)
    for start in range(0, 12, 3):
        write(store, range(start, start + 3), status="failed" if start == 0 else "ok")
        store.flush()
    write(store, range(3), value=0.9)
    store.flush()
    before, predicted = read_scores(tmp_path), read_predictions(tmp_path)
    real_put, puts = results_files.Files.put_table, []

    def crash_on_the_second_scores_file(self, path, table):
        if "/scores/" in path and len(puts) == 2:
            raise OSError("killed")
        puts.append(path)
        real_put(self, path, table)

    monkeypatch.setattr(results_files.Files, "put_table", crash_on_the_second_scores_file)
    with pytest.raises(OSError, match="killed"):
        store.compact()  # the new part has its predictions and one family's scores file
    monkeypatch.undo()

    def by_scenario(frame):
        return frame.sort_values("scenario_id", ignore_index=True)

    pd.testing.assert_frame_equal(by_scenario(read_scores(tmp_path)), by_scenario(before))
    process_died(store)
    with ResultStore.create(tmp_path, MANIFEST, part_scenarios=12) as reopened:
        assert not reopened.damaged
        assert reopened.compact() == 6
    assert all(names(tmp_path / "scores" / family) == ["part-00000007.parquet"] for family in FAMILIES)
    pd.testing.assert_frame_equal(by_scenario(read_scores(tmp_path)), by_scenario(before))
    keys = ["scenario_id", "target"]
    pd.testing.assert_frame_equal(read_predictions(tmp_path).sort_values(keys, ignore_index=True), predicted.sort_values(keys, ignore_index=True))
    for family in FAMILIES:
        on_disk = pd.read_parquet(tmp_path / "scores" / family)
        assert on_disk["scenario_id"].is_unique and set(on_disk["family"]) == {family}


def single_table_folder(folder, manifest: dict | None) -> dict[str, bytes]:
    """A results folder as alc_dask 0.6.0 left it: one scores table, no layout in its manifest; its files' contents."""
    (folder / "scores").mkdir(parents=True)
    (folder / "predictions").mkdir()
    pd.DataFrame([{"scenario_id": scenario(0), "family": "alc", "status": "ok", "alc": 0.5, "privacy_risk": None}]).to_parquet(
        folder / "scores" / "part-00000001.parquet"
    )
    predictions(0).to_parquet(folder / "predictions" / "part-00000001.parquet")
    (folder / "parts.json").write_text(json.dumps({"part-00000001.parquet": {"scenarios": 1, "predictions": 2}}))
    if manifest is not None:
        (folder / "job.json").write_text(json.dumps(manifest))
    return {str(path.relative_to(folder)): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


@pytest.mark.parametrize(("manifest", "version"), [({**MANIFEST, "alc_dask": "0.6.0"}, "0.6.0"), (None, "0.6.0 or earlier")])
def test_results_of_the_single_table_layout_are_refused_by_readers_and_writers(tmp_path, manifest, version):
    before = single_table_folder(tmp_path, manifest)
    refused = (
        rf"{tmp_path} holds results of alc_dask {version} in their single-table layout \(scores/part-\*\.parquet\); alc_dask {THIS} keeps a table "
        r"per family \(scores/<family>/\) and neither reads nor adds to them: run the job into a new folder \(--out\)"
    )
    for read in (read_scores, read_predictions, lambda out: ResultStore(out).completed()):
        with pytest.raises(ResultsError, match=refused):
            read(tmp_path)
    with pytest.raises(ResultsError, match=refused):
        ResultStore.create(tmp_path, manifest or MANIFEST)  # the same job resumed
    after = {str(path.relative_to(tmp_path)): path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}
    assert after == before  # nothing written, removed or leased


def test_results_of_a_later_layout_are_refused(tmp_path):
    with ResultStore.create(tmp_path, MANIFEST) as store:
        write(store, [0])
    (tmp_path / "job.json").write_text(json.dumps({**MANIFEST, "alc_dask": "9.0.0", "layout": LAYOUT + 1}))
    with pytest.raises(ResultsError, match=rf"holds results of alc_dask 9\.0\.0 in layout {LAYOUT + 1}, which alc_dask {THIS} \(layout {LAYOUT}\) cannot read"):
        read_scores(tmp_path)


def test_an_empty_folder_of_an_earlier_version_is_written_afresh(tmp_path):
    """A manifest without results holds nothing, whatever version wrote it."""
    (tmp_path / "scores").mkdir()
    (tmp_path / "job.json").write_text(json.dumps({**MANIFEST, "alc_dask": "0.6.0"}))
    with ResultStore.create(tmp_path, MANIFEST) as store:
        write(store, [0])
    assert json.loads((tmp_path / "job.json").read_text())["layout"] == LAYOUT and len(read_scores(tmp_path)) == 1
