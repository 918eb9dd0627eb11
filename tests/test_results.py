"""The Parquet results store: atomic parts, reading back, resumable state, refusing mixed settings."""

import pandas as pd
import pytest

from alc_dask.results import ResultsError, ResultStore, read_predictions, read_scores

MANIFEST = {"job": "j", "release": "r", "fingerprint": "abc", "settings": {"seed": 0}}


def scores_row(scenario, status="ok", alc=0.5):
    return pd.DataFrame([{"scenario_id": scenario, "status": status, "alc": alc if status == "ok" else None, "base_n": 10, "error": None if status == "ok" else "boom"}])


def predictions(scenario, n=3):
    return pd.DataFrame({"scenario_id": scenario, "target": range(n), "side": "attack", "correct": True, "confidence": 0.5, "abstained": False})


def test_parts_read_back_as_one_table_with_fixed_types(tmp_path):
    store = ResultStore.create(tmp_path, MANIFEST)
    store.write(scores_row("a"), predictions("a"))
    store.write(scores_row("b", "failed"), None)
    scores = read_scores(tmp_path).set_index("scenario_id")
    assert scores.loc["a", "alc"] == 0.5 and scores.loc["b", "error"] == "boom"
    assert str(scores["base_n"].dtype) == "int64" and "attack_full_recall_prc" in scores.columns
    assert store.completed() == {"a"}  # failed scenarios are tried again
    assert len(read_predictions(tmp_path)) == 3


def test_rewriting_a_scenario_replaces_its_part(tmp_path):
    store = ResultStore.create(tmp_path, MANIFEST)
    store.write(scores_row("a", "failed"), None)
    store.write(scores_row("a", alc=0.7), predictions("a"))
    scores = read_scores(tmp_path)
    assert list(scores["scenario_id"]) == ["a"] and scores["alc"].iloc[0] == 0.7


def test_interrupted_writes_never_look_complete(tmp_path):
    store = ResultStore.create(tmp_path, MANIFEST)
    store.write(scores_row("a"), predictions("a"))
    predictions("b").to_parquet(store.predictions_dir / "b.parquet")  # crash after predictions, before scores
    (store.scores_dir / ".c.parquet.tmp-1").write_bytes(b"half a file")  # crash mid-write
    assert set(read_scores(tmp_path)["scenario_id"]) == {"a"}
    assert set(read_predictions(tmp_path)["scenario_id"]) == {"a"}
    ResultStore.create(tmp_path, MANIFEST)  # reopening removes temporaries
    assert not list(store.scores_dir.glob(".*"))


def test_empty_store_reads_as_empty_frames(tmp_path):
    assert read_scores(tmp_path).empty and read_predictions(tmp_path).empty


def test_other_settings_are_refused_naming_what_changed(tmp_path):
    ResultStore.create(tmp_path, MANIFEST)
    with pytest.raises(ResultsError, match=r"other settings \(changed: seed\)"):
        ResultStore.create(tmp_path, {**MANIFEST, "fingerprint": "def", "settings": {"seed": 1}})


def test_unwritable_output_directory(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(ResultsError, match=f"output directory {blocker / 'out'} is not writable"):
        ResultStore.create(blocker / "out", MANIFEST)
