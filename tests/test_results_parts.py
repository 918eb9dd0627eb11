"""Results written as batched parts: few files for many scenarios, nothing unsaved reported done,
one row per scenario whatever was re-run, compaction that a crash cannot spoil, filters pushed to
pyarrow, and fsspec URLs."""

import json
import time

import pandas as pd
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pytest
from conftest import process_died

from alc_dask.results import ResultsError, ResultStore, read_predictions, read_scores
from alc_dask.results import files as results_files
from alc_dask.results import scan as results_scan

MANIFEST = {"job": "j", "release": "r", "fingerprint": "abc", "settings": {}, "data": {}, "alc_dask": "1.0"}


def scenario(number: int) -> str:
    return f"s{number}-{number:010x}"


def scores_row(scenario_id, status="ok", alc=0.5, family="alc"):
    """An ALC scenario's row, or another family's with ``alc`` as its privacy risk."""
    measure = "alc" if family == "alc" else "privacy_risk"
    return {"scenario_id": scenario_id, "status": status, "family": family, measure: alc if status == "ok" else None, "error": None}


def predictions(scenario_id, n=3, correct=True):
    return pd.DataFrame({"scenario_id": scenario_id, "target": range(n), "side": "attack", "correct": correct, "confidence": 0.5, "abstained": False})


def write_all(store, numbers, status="ok", alc=0.5):
    for number in numbers:
        store.write(scores_row(scenario(number), status, alc), predictions(scenario(number)) if status == "ok" else None)


def files_in(folder):
    return sorted(p.name for p in folder.iterdir())


def test_many_scenarios_leave_few_part_files(tmp_path):
    store = ResultStore.create(tmp_path, MANIFEST, part_scenarios=100)
    write_all(store, range(1000))
    store.flush()
    assert files_in(tmp_path / "scores" / "alc") == [f"part-{n:08d}.parquet" for n in range(1, 11)] == files_in(tmp_path / "predictions")
    assert len(read_scores(tmp_path)) == 1000 and len(read_predictions(tmp_path)) == 3000
    assert store.completed() == {scenario(n) for n in range(1000)}


def test_the_default_part_size_keeps_a_100000_scenario_job_to_a_few_hundred_files(tmp_path, monkeypatch):
    monkeypatch.delenv("ALC_DASK_PART_SCENARIOS", raising=False)
    assert 2 * 100_000 / ResultStore(tmp_path).part_scenarios <= 400


def test_buffered_outcomes_are_not_done_until_flushed(tmp_path):
    store = ResultStore.create(tmp_path, MANIFEST, part_scenarios=100)
    write_all(store, range(3))
    assert store.completed() == set() and read_scores(tmp_path).empty  # a re-run recomputes what a crash lost
    assert not (tmp_path / "job.json").exists()
    store.flush()
    assert store.completed() == {scenario(n) for n in range(3)} and (tmp_path / "job.json").is_file()


def test_a_part_is_written_some_seconds_after_its_first_outcome(tmp_path):
    store = ResultStore.create(tmp_path, MANIFEST, part_scenarios=100, flush_seconds=0.3)
    write_all(store, range(2))
    assert store.completed() == set()
    deadline = time.monotonic() + 10
    while not store.completed() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert store.completed() == {scenario(0), scenario(1)}  # with no further write: a long scenario does not hold results back
    write_all(store, [2])
    time.sleep(0.1)
    assert store.completed() == {scenario(0), scenario(1)}  # a new part waits for its own interval
    store.flush()


def test_the_part_size_and_interval_can_be_set_by_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ALC_DASK_PART_SCENARIOS", "1")
    monkeypatch.setenv("ALC_DASK_FLUSH_SECONDS", "2.5")
    store = ResultStore.create(tmp_path, MANIFEST)
    assert (store.part_scenarios, store.flush_seconds) == (1, 2.5)
    write_all(store, range(2))
    assert len(files_in(tmp_path / "scores" / "alc")) == 2
    monkeypatch.setenv("ALC_DASK_PART_SCENARIOS", "many")
    with pytest.raises(ResultsError, match="ALC_DASK_PART_SCENARIOS='many': expected a whole number of scenarios, at least 1"):
        ResultStore(tmp_path)


def test_a_rerun_supersedes_failed_rows_and_keeps_one_row_per_scenario(tmp_path):
    with ResultStore.create(tmp_path, MANIFEST) as first:
        write_all(first, [0, 1], status="failed")
        write_all(first, [2])
    with ResultStore.create(tmp_path, MANIFEST) as rerun:
        assert rerun.completed() == {scenario(2)}
        write_all(rerun, [0], alc=0.7)  # now succeeds
        write_all(rerun, [1], status="failed")  # fails again: the latest failure counts
        rerun.write(scores_row(scenario(2), "failed"), None)  # a later failure never hides a result
    assert files_in(tmp_path / "scores" / "alc") == ["part-00000001.parquet", "part-00000002.parquet"]
    scores = read_scores(tmp_path).set_index("scenario_id")
    assert sorted(scores.index) == [scenario(0), scenario(1), scenario(2)]
    assert scores.loc[scenario(0), ["status", "alc"]].tolist() == ["ok", 0.7] and scores.loc[scenario(2), "status"] == "ok"
    assert list(read_scores(tmp_path, filters=[("status", "==", "failed")])["scenario_id"]) == [scenario(1)]
    assert read_predictions(tmp_path)["scenario_id"].value_counts().to_dict() == {scenario(0): 3, scenario(2): 3}


def test_among_two_ok_rows_the_later_part_wins_also_for_predictions(tmp_path):
    with ResultStore.create(tmp_path, MANIFEST) as store:
        store.write(scores_row(scenario(0), alc=0.1), predictions(scenario(0), n=2, correct=False))
    with ResultStore.create(tmp_path, MANIFEST) as store:
        store.write(scores_row(scenario(0), alc=0.9), predictions(scenario(0), n=4, correct=True))
    assert read_scores(tmp_path)["alc"].tolist() == [0.9]
    again = read_predictions(tmp_path, [scenario(0)])
    assert len(again) == 4 and again["correct"].all()


def test_an_interrupted_flush_leaves_no_complete_looking_part_and_is_retried(tmp_path, monkeypatch):
    store = ResultStore.create(tmp_path, MANIFEST)
    write_all(store, range(3))
    real_put = results_files.Files.put_table

    def crash_on_scores(self, path, table):
        if "/scores/" in path:
            raise OSError("disk full")
        real_put(self, path, table)

    monkeypatch.setattr(results_files.Files, "put_table", crash_on_scores)
    with pytest.raises(OSError, match="disk full"):
        store.flush()
    assert files_in(tmp_path / "predictions") == ["part-00000001.parquet"] and files_in(tmp_path / "scores" / "alc") == []
    assert store.completed() == set() and read_scores(tmp_path).empty and read_predictions(tmp_path).empty
    monkeypatch.setattr(results_files.Files, "put_table", real_put)
    store.flush()  # the outcomes were kept: written again, under a new name
    assert store.completed() == {scenario(n) for n in range(3)} and len(read_predictions(tmp_path)) == 9
    process_died(store)
    ResultStore.create(tmp_path, MANIFEST).close()
    assert files_in(tmp_path / "predictions") == ["part-00000002.parquet"]  # the half-written pair is cleaned up


def reopen(root) -> ResultStore:
    """The store of ``root`` opened for writing, as a run resuming there opens it, and closed again."""
    store = ResultStore.create(root, MANIFEST)
    store.close()
    return store


def small_parts(tmp_path, parts=6, per_part=3):
    """Parts written in small batches (as flushes on time make them), a failed scenario re-run ok in the last."""
    store = ResultStore.create(tmp_path, MANIFEST, part_scenarios=10)
    for part in range(parts):
        write_all(store, range(part * per_part, (part + 1) * per_part), status="failed" if part == 0 else "ok")
        store.flush()
    write_all(store, range(per_part), alc=0.9)
    store.flush()
    return store


def test_compaction_rewrites_small_parts_into_few_dropping_superseded_rows(tmp_path):
    store = small_parts(tmp_path)
    scores, preds = read_scores(tmp_path), read_predictions(tmp_path)
    assert len(files_in(tmp_path / "scores" / "alc")) == 7 and len(pd.read_parquet(tmp_path / "scores" / "alc")) == 21
    assert store.compact() == 7
    assert files_in(tmp_path / "scores" / "alc") == ["part-00000008.parquet", "part-00000009.parquet"] == files_in(tmp_path / "predictions")
    on_disk = pd.read_parquet(tmp_path / "scores" / "alc")  # other readers see one row per scenario too
    assert on_disk["scenario_id"].is_unique and len(on_disk) == 18
    pd.testing.assert_frame_equal(read_scores(tmp_path).sort_values("scenario_id", ignore_index=True), scores.sort_values("scenario_id", ignore_index=True))
    pd.testing.assert_frame_equal(
        read_predictions(tmp_path).sort_values(["scenario_id", "target"], ignore_index=True), preds.sort_values(["scenario_id", "target"], ignore_index=True)
    )
    assert store.compact() == 0  # full parts are left alone
    assert json.loads((tmp_path / "parts.json").read_text()) == {
        "part-00000008.parquet": {"scores": {"alc": 10}, "predictions": 30},
        "part-00000009.parquet": {"scores": {"alc": 8}, "predictions": 24},
    }
    store.close()
    assert not reopen(tmp_path).damaged


def test_compaction_waits_for_more_parts_than_asked(tmp_path):
    store = small_parts(tmp_path)
    assert store.compact(above=7) == 0 and len(files_in(tmp_path / "scores" / "alc")) == 7
    assert store.compact(above=6) == 7


@pytest.mark.parametrize("crash_at", ["first predictions part", "second predictions part", "second scores part", "removing the third old part"])
def test_a_crash_during_compaction_loses_and_duplicates_nothing(tmp_path, monkeypatch, crash_at):
    store = small_parts(tmp_path)
    scores, preds = read_scores(tmp_path), read_predictions(tmp_path)
    calls = {"put": 0, "remove": 0}
    real_put, real_remove = results_files.Files.put_table, results_files.Files.remove
    crash_after = {
        "first predictions part": ("put", 0),
        "second predictions part": ("put", 2),
        "second scores part": ("put", 3),
        "removing the third old part": ("remove", 4),
    }
    kind, at = crash_after[crash_at]

    def counted(real, name):
        def call(self, *args):
            if calls[name] == at and kind == name:
                raise OSError("killed")
            calls[name] += 1
            return real(self, *args)

        return call

    monkeypatch.setattr(results_files.Files, "put_table", counted(real_put, "put"))
    monkeypatch.setattr(results_files.Files, "remove", counted(real_remove, "remove"))
    with pytest.raises(OSError, match="killed"):
        store.compact()
    monkeypatch.undo()

    def same_as_before():
        again = read_scores(tmp_path).sort_values("scenario_id", ignore_index=True)
        pd.testing.assert_frame_equal(again, scores.sort_values("scenario_id", ignore_index=True))
        keys = ["scenario_id", "target"]
        pd.testing.assert_frame_equal(read_predictions(tmp_path).sort_values(keys, ignore_index=True), preds.sort_values(keys, ignore_index=True))
        assert ResultStore(tmp_path).completed() == set(scores["scenario_id"])

    same_as_before()
    process_died(store)
    with ResultStore.create(tmp_path, MANIFEST, part_scenarios=10) as reopened:
        assert not reopened.damaged  # a crash is not damage: the parts it left are whole
        reopened.compact()
    same_as_before()
    assert len(files_in(tmp_path / "scores" / "alc")) == 2 and files_in(tmp_path / "scores" / "alc") == files_in(tmp_path / "predictions")
    assert pd.read_parquet(tmp_path / "scores" / "alc")["scenario_id"].is_unique


def test_reopening_removes_the_pairs_damaged_since_they_were_written(tmp_path):
    with ResultStore.create(tmp_path, MANIFEST, part_scenarios=2) as store:
        write_all(store, range(6))  # parts 1 to 3, of two scenarios and six predictions each
    predictions(scenario(2), n=1).to_parquet(tmp_path / "predictions" / "part-00000002.parquet")  # another file in its place
    (tmp_path / "predictions" / "part-00000003.parquet").write_bytes(b"")
    reopened = reopen(tmp_path)
    assert [(damage.part, damage.scenarios) for damage in reopened.damaged] == [("part-00000002.parquet", 2), ("part-00000003.parquet", 2)]
    assert reopened.damaged[0].reason == "predictions/part-00000002.parquet holds 1 row, not the 6 written"
    assert reopened.damaged[1].reason.startswith("predictions/part-00000003.parquet cannot be read (") and "0 bytes" in reopened.damaged[1].reason
    assert files_in(tmp_path / "scores" / "alc") == ["part-00000001.parquet"] == files_in(tmp_path / "predictions")
    assert reopened.completed() == {scenario(0), scenario(1)} and not reopen(tmp_path).damaged


def test_a_listing_cut_short_is_rebuilt_from_the_parts_present(tmp_path):
    with ResultStore.create(tmp_path, MANIFEST, part_scenarios=2) as store:
        write_all(store, range(4))
    (tmp_path / "parts.json").write_text('{"part-0000')
    assert not reopen(tmp_path).damaged
    (tmp_path / "predictions" / "part-00000001.parquet").unlink()  # noticed again, once rebuilt
    assert [damage.part for damage in reopen(tmp_path).damaged] == ["part-00000001.parquet"]


class RecordingDataset:
    """A pyarrow dataset that records what each scan asked pyarrow for."""

    scans: list[dict] = []

    def __init__(self, dataset):
        self.dataset = dataset

    def to_table(self, **options):
        RecordingDataset.scans.append(options)
        return self.dataset.to_table(**options)

    def scanner(self, **options):
        RecordingDataset.scans.append(options)
        return self.dataset.scanner(**options)


@pytest.fixture
def recorded_scans(monkeypatch):
    RecordingDataset.scans = []
    real = ds.dataset
    monkeypatch.setattr(results_scan.ds, "dataset", lambda *args, **kwargs: RecordingDataset(real(*args, **kwargs)))
    return RecordingDataset.scans


@pytest.fixture
def mixed_store(tmp_path):
    with ResultStore.create(tmp_path, MANIFEST, part_scenarios=4) as store:
        for number in range(10):
            family = "alc" if number % 2 else "singling_out"
            store.write(scores_row(scenario(number), alc=number / 10, family=family), predictions(scenario(number), n=number + 1))
    return store


def test_filters_are_applied_by_pyarrow(mixed_store, recorded_scans):
    alc = read_scores(mixed_store.files.url, columns=["scenario_id", "alc"], filters=[("family", "==", "alc")])
    assert list(alc.columns) == ["scenario_id", "alc"] and sorted(alc["alc"]) == [0.1, 0.3, 0.5, 0.7, 0.9]
    assert str(recorded_scans[-1]["filter"]) == '(family == "alc")' and recorded_scans[-1]["columns"] == ["scenario_id", "alc"]
    high = mixed_store.read_scores(filters=pc.field("alc") > 0.6)  # a column of one family: null in the others' rows
    assert sorted(high["scenario_id"]) == [scenario(7), scenario(9)]
    risky = read_scores(mixed_store.files.url, "singling_out", filters=pc.field("privacy_risk") > 0.5)
    assert sorted(risky["scenario_id"]) == [scenario(6), scenario(8)] and "alc" not in risky.columns


def test_a_bad_filter_names_the_folder_and_the_column(mixed_store):
    with pytest.raises(ResultsError, match=r"scores of .*: cannot read every column where \(nope == 1\): .*nope"):
        mixed_store.read_scores(filters=[("nope", "==", 1)])


def test_predictions_are_selected_by_pyarrow(mixed_store, recorded_scans):
    chosen = read_predictions(mixed_store.files.url, [scenario(2), scenario(7)])
    assert chosen["scenario_id"].value_counts().to_dict() == {scenario(2): 3, scenario(7): 8}
    assert str(recorded_scans[-1]["filter"]).startswith("is_in(scenario_id")


def test_completed_reads_only_the_id_and_status(tmp_path):
    (tmp_path / "scores" / "alc").mkdir(parents=True)
    broken = pd.DataFrame({"scenario_id": [scenario(0), scenario(1)], "status": ["ok", "failed"], "alc": ["not a number", None]})
    broken.to_parquet(tmp_path / "scores" / "alc" / "part-00000001.parquet")
    with pytest.raises(ResultsError, match=r"scores of .*: cannot read every column: .*'not a number'"):
        read_scores(tmp_path)  # the measure column cannot be read...
    assert ResultStore(tmp_path).completed() == {scenario(0)}  # ...and completed() never reads it


def test_a_store_on_an_fsspec_url(tmp_path):
    url = "memory://alc-dask-tests/out"
    with ResultStore.create(url, MANIFEST, part_scenarios=2) as store:
        write_all(store, range(5))
    assert sorted(results_files.Files(url).names("/alc-dask-tests/out/scores/alc")) == [f"part-{n:08d}.parquet" for n in (1, 2, 3)]
    assert len(read_scores(url)) == 5 and len(read_predictions(url, [scenario(4)])) == 3
    with ResultStore.create(url, MANIFEST) as store:
        assert store.completed() == {scenario(n) for n in range(5)}
    with pytest.raises(ResultsError, match="holds results of job 'j' measured with other settings"):
        ResultStore.create(url, {**MANIFEST, "fingerprint": "other"})
    with ResultStore.create(url, MANIFEST, part_scenarios=10) as store:
        assert store.compact() == 3 and len(read_scores(url)) == 5


def test_a_row_that_does_not_fit_the_schema_is_named_and_does_not_hold_back_the_others(tmp_path):
    store = ResultStore.create(tmp_path, MANIFEST)
    write_all(store, [0])
    store.write(scores_row(scenario(1), alc="high"), None)
    with pytest.raises(ResultsError, match=rf"results not saved to {tmp_path} .*: {scenario(1)}: column 'alc': 'high' is not double"):
        store.flush()
    assert store.completed() == {scenario(0)} and len(read_predictions(tmp_path)) == 3
    with pytest.raises(ResultsError, match=rf"predictions of scenario {scenario(2)}: column 'correct' is not bool"):
        store.write(scores_row(scenario(2)), predictions(scenario(2)).assign(correct="yes"))
