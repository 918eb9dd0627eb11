"""The Parquet results store: atomic parts, reading back every part and nothing else, resumable
state, refusing results measured with other settings or data, or kept in another layout."""

import json
import warnings

import pandas as pd
import pytest
from conftest import process_died

from alc_dask.results import LAYOUT, ResultsError, ResultStore, read_predictions, read_scores

MANIFEST = {
    "job": "j",
    "release": "r",
    "fingerprint": "abc",
    "settings": {"seed": 0, "halting": {"max_pairs": 5, "min_pairs": 1}},
    "data": {"release.original": "sha256:1"},
    "alc_dask": "1.0",
}
A, B, C = "a-000000000a", "b-000000000b", "c-000000000c"


def scores_row(scenario, status="ok", alc=0.5):
    return {
        "scenario_id": scenario,
        "family": "alc",
        "status": status,
        "alc": alc if status == "ok" else None,
        "base_n": 10,
        "error": None if status == "ok" else "boom",
    }


def predictions(scenario, n=3):
    return pd.DataFrame({"scenario_id": scenario, "target": range(n), "side": "attack", "correct": True, "confidence": 0.5, "abstained": False})


def test_parts_read_back_as_one_table_with_fixed_types(tmp_path):
    store = ResultStore.create(tmp_path, MANIFEST)
    store.write(scores_row(A), predictions(A))
    store.write(scores_row(B, "failed"), None)
    store.flush()
    scores = read_scores(tmp_path).set_index("scenario_id")
    assert scores.loc[A, "alc"] == 0.5 and scores.loc[B, "error"] == "boom"
    assert str(scores["base_n"].dtype) == "int64" and "attack_full_recall_prc" in scores.columns
    assert store.completed() == {A}  # failed scenarios are tried again
    assert len(read_predictions(tmp_path)) == 3


def test_rewriting_a_scenario_replaces_its_row(tmp_path):
    store = ResultStore.create(tmp_path, MANIFEST)
    store.write(scores_row(A, "failed"), None)
    store.write(scores_row(A, alc=0.7), predictions(A))
    store.flush()
    scores = read_scores(tmp_path)
    assert list(scores["scenario_id"]) == [A] and scores["alc"].iloc[0] == 0.7


def test_interrupted_writes_never_look_complete(tmp_path):
    store = ResultStore.create(tmp_path, MANIFEST)
    store.write(scores_row(A), predictions(A))
    store.flush()
    predictions(B).to_parquet(tmp_path / "predictions" / "part-00000002.parquet")  # crash after predictions, before scores
    (tmp_path / "scores" / "alc" / ".part-00000003.parquet.tmp-1").write_bytes(b"half a file")  # crash mid-write
    (tmp_path / "scores" / "singling_out").mkdir()  # crash mid-write of a family's first part
    (tmp_path / "scores" / "singling_out" / ".part-00000003.parquet.tmp-1").write_bytes(b"half a file")
    assert set(read_scores(tmp_path)["scenario_id"]) == {A}
    assert set(read_predictions(tmp_path)["scenario_id"]) == {A}
    process_died(store)
    ResultStore.create(tmp_path, MANIFEST).close()  # reopening removes temporaries and predictions without scores
    assert not list((tmp_path / "scores").glob("*/.*")) and [p.name for p in (tmp_path / "predictions").iterdir()] == ["part-00000001.parquet"]


def test_a_stray_parquet_file_is_ignored_with_a_warning(tmp_path):
    store = ResultStore.create(tmp_path, MANIFEST)
    store.write(scores_row(A), predictions(A))
    store.flush()
    pd.DataFrame({"other": [1, 2]}).to_parquet(tmp_path / "scores" / "alc" / "summary.parquet")
    (tmp_path / "predictions" / "notes.txt").write_text("not a part")
    with pytest.warns(UserWarning, match=r"scores/alc/summary\.parquet: not a results part"):
        scores = read_scores(tmp_path)
    assert list(scores["scenario_id"]) == [A]
    (tmp_path / "scores" / "alc" / "summary.parquet").unlink()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(read_predictions(tmp_path, [A])) == 3  # only Parquet files are looked at


def test_an_id_that_is_not_a_part_name_is_refused(tmp_path):
    store = ResultStore.create(tmp_path, MANIFEST)
    for bad in ("_ge-e183c98a9c", ".x-0000000001", "a", "../a-0000000001"):
        with pytest.raises(ResultsError, match="not a valid scenario id"):
            store.write(scores_row(bad), None)
    assert read_scores(tmp_path).empty


def test_empty_store_reads_as_empty_frames(tmp_path):
    assert read_scores(tmp_path).empty and read_predictions(tmp_path).empty


def test_the_manifest_is_written_with_the_first_part(tmp_path):
    store = ResultStore.create(tmp_path, MANIFEST)
    assert not (tmp_path / "job.json").exists()
    store.write(scores_row(A), None)
    store.flush()
    assert json.loads((tmp_path / "job.json").read_text()) == {**MANIFEST, "layout": LAYOUT}


def test_a_manifest_without_results_does_not_hold_the_folder(tmp_path):
    (tmp_path / "job.json").write_text(json.dumps(MANIFEST))  # a start that failed before any result
    other = {**MANIFEST, "fingerprint": "def", "alc_dask": "2.0"}
    with ResultStore.create(tmp_path, other) as store:
        store.write(scores_row(A), None)
    assert json.loads((tmp_path / "job.json").read_text())["fingerprint"] == "def"


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"settings": {**MANIFEST["settings"], "seed": 1}}, r"changed: seed\)"),
        ({"settings": {"seed": 0, "halting": {"max_pairs": 6, "min_pairs": 1}}}, r"changed: halting\.max_pairs\)"),
        ({"settings": {"seed": 0}}, r"changed: halting\)"),
        ({"data": {"release.original": "sha256:2"}}, r"changed: release\.original data\)"),
        ({"data": {"release.original": "sha256:1", "release.control": "sha256:3"}}, r"changed: release\.control data\)"),
        ({"alc_dask": "1.1"}, r"changed: alc_dask version 1\.0 -> 1\.1\)"),
    ],
)
def test_results_of_other_settings_or_data_are_refused_naming_what_changed(tmp_path, change, named):
    with ResultStore.create(tmp_path, MANIFEST) as store:
        store.write(scores_row(A), None)
    with pytest.raises(ResultsError, match=rf"holds results of job 'j' measured with other settings or data \({named}"):
        ResultStore.create(tmp_path, {**MANIFEST, "fingerprint": "def", **change})


def test_unwritable_output_directory(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(ResultsError, match=f"output directory {blocker / 'out'} is not writable"):
        ResultStore.create(blocker / "out", MANIFEST)


def test_two_families_typing_one_column_apart_is_an_internal_error(monkeypatch):
    """Not the user's input: two families (a plugin's, say) break the contract that a shared column has one type."""
    from types import SimpleNamespace

    import pyarrow as pa

    from alc_dask.errors import InternalError
    from alc_dask.results import schema

    types = {"first": pa.string(), "second": pa.float64()}
    monkeypatch.setattr(schema, "get_family", lambda name: SimpleNamespace(fields=(pa.field("shared", types[name]),)))
    schema.family_schema.cache_clear()
    try:
        with pytest.raises(InternalError, match="family 'second' writes column 'shared' as double, another family or the identity as string"):
            schema.union_schema({name: schema.family_schema(name) for name in types})
        monkeypatch.setitem(types, "first", pa.int64())
        schema.family_schema.cache_clear()
        with pytest.raises(InternalError, match="family 'first' writes column 'seed' as string, another family or the identity as int64"):
            monkeypatch.setattr(schema, "get_family", lambda name: SimpleNamespace(fields=(pa.field("seed", pa.string()),)))
            schema.family_schema("first")
    finally:
        schema.family_schema.cache_clear()
