"""The engine on a local cluster: every scenario written once, failures recorded, resumption,
and the same scores whatever the number of workers."""

import re

import pandas as pd
import pytest
import yaml

import alc_dask
from alc_dask import Release, run_job
from alc_dask.apps.synthetic import make_demo_release
from alc_dask.engine import JobContext, run_scenario
from alc_dask.families.alc.family import AlcFamily
from alc_dask.jobs import Scenario
from alc_dask.results import ResultsError, read_predictions, read_scores

FAST = {"candidates": ["majority", "logistic_regression"], "trees": 10}


ONE_SCENARIO = [{"secret": "income", "known": ["age", "sex", "education"]}]


def write_job(folder, rows=1200, rename=None, unreleased=("married",), **extra):
    """A demo release whose weak table lacks the ``unreleased`` columns, and a job on it."""
    for name, table in make_demo_release(rows, seed=3).items():
        table.drop(columns=list(unreleased) if name == "weak" else []).rename(columns=rename or {}).to_parquet(folder / f"{name}.parquet")
    job = {
        "name": "engine-test",
        "release": {"original": "original.parquet", "anonymized": ["weak.parquet"]},
        "scenarios": [{"generate": "each_column", "secrets": ["income", "region", "education", "condition"]}, {"secret": "married", "known": ["age"]}],
        "baseline_settings": FAST,
        "output": "out",
        **extra,
    }
    path = folder / "job.yaml"
    path.write_text(yaml.safe_dump(job))
    return path


@pytest.fixture(scope="module")
def two_worker_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("engine")
    job = write_job(folder, store_values=True)
    return job, run_job(job, workers=2, progress=False)


def test_every_scenario_once_and_the_bad_one_failed(two_worker_run):
    _, scores = two_worker_run
    assert len(scores) == 5 and scores["scenario_id"].is_unique
    failed = scores[scores["status"] == "failed"]
    assert list(failed["secret"]) == ["married"] and "'married' is in no anonymized table" in failed["error"].iloc[0]
    assert re.search(r"Traceback .*release\.py\", line \d+, in usable_tables\n", failed["traceback"].iloc[0], re.DOTALL)
    ok = scores[scores["status"] == "ok"]
    assert ok["alc"].notna().all() and (ok["base_n"] > 0).all() and set(ok["worker"]) <= {"0", "1"} and ok["traceback"].isna().all()
    assert (ok["known"].str.startswith('["')).all()


def test_predictions_match_the_scores_and_carry_values(two_worker_run):
    job, scores = two_worker_run
    predictions = read_predictions(job.parent / "out")
    ok = scores[scores["status"] == "ok"].set_index("scenario_id")
    per_side = predictions.groupby(["scenario_id", "side"]).size().unstack().reindex(ok.index)
    assert (per_side["base"] == ok["pairs"]).all() and (per_side["attack"] == ok["pairs"]).all()
    attack = predictions[predictions["side"] == "attack"]
    assert attack["predicted"].notna().all()
    assert ((attack["predicted"] == attack["true"]) == attack["correct"]).all()


def test_rerun_skips_finished_scenarios_and_retries_failed_ones(two_worker_run):
    job, scores = two_worker_run
    parts = job.parent / "out" / "scores" / "alc"
    before = {p.name: p.stat().st_mtime_ns for p in parts.glob("*.parquet")}
    again = run_job(job, workers=1, progress=False)
    after = {p.name: p.stat().st_mtime_ns for p in parts.glob("*.parquet")}
    assert {name: after[name] for name in before} == before  # the finished scenarios' part is left alone
    (new_part,) = set(after) - set(before)
    failed = scores.loc[scores["status"] == "failed", "scenario_id"].tolist()
    assert pd.read_parquet(parts / new_part)["scenario_id"].tolist() == failed  # only the failed scenario ran again
    assert again["scenario_id"].is_unique
    pd.testing.assert_series_equal(again["alc"], scores["alc"])


@pytest.mark.long  # a second cluster run of the job: 10-35 s
def test_one_worker_gives_the_same_scores_as_two(two_worker_run, tmp_path):
    _, scores = two_worker_run
    single = run_job(write_job(tmp_path, store_values=True), workers=1, progress=False)
    columns = ["scenario_id", "seed", "alc", "base_prc", "attack_prc", "halt_code", "pairs"]
    pd.testing.assert_frame_equal(single[columns], scores[columns])


@pytest.mark.long  # minutes: workers killed, four workers on two cores
def test_four_workers_give_the_same_scores(two_worker_run, tmp_path):
    _, scores = two_worker_run
    four = run_job(write_job(tmp_path, store_values=True), workers=4, progress=False)
    pd.testing.assert_series_equal(four["alc"], scores["alc"])


def test_a_raising_scenario_becomes_a_failed_outcome():
    tables = make_demo_release(300, seed=0)
    release = Release.load(tables["original"], [tables["weak"]])
    family = AlcFamily(secret="no_such_column", known=("age",), baseline_settings=FAST, swap_fraction=0.1)
    outcome = run_scenario(release, Scenario(id="x-1", index=0, family=family, seed=1, origin="explicit"), JobContext("j", "weak"))
    assert not outcome.ok and "unknown column 'no_such_column'" in outcome.scores["error"]
    assert outcome.predictions is None and "FAILED" in outcome.line()
    assert "in column\n" in outcome.scores["traceback"]  # where it was raised, for debugging from the results


def parts_written(folder):
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in (folder / "out" / "scores").glob("*/*.parquet")}


@pytest.mark.long  # a job run end to end: 10-25 s
def test_secrets_with_any_column_name_are_stored_and_read_back(tmp_path):
    """Ids of such secrets used to start with ``_``: their parts were written but never read."""
    names = {"age": "âge", "region": "地区", "sex": "_sex", "married": " married"}
    job = write_job(tmp_path, rows=400, rename=names, unreleased=(), scenarios=[{"generate": "each_column", "secrets": list(names.values())}])
    scores = run_job(job, workers=1, progress=False)
    assert sorted(scores["secret"]) == sorted(names.values()) and (scores["status"] == "ok").all()
    assert sorted(read_scores(tmp_path / "out")["secret"]) == sorted(names.values())
    assert set(read_predictions(tmp_path / "out")["scenario_id"]) == set(scores["scenario_id"])
    before = parts_written(tmp_path)
    assert len(run_job(job, progress=False)) == 4 and parts_written(tmp_path) == before  # nothing recomputed


def test_a_start_that_failed_before_any_result_does_not_hold_the_output_folder(tmp_path):
    release = {"original": "original.parquet", "anonymized": ["weak.parquet"]}
    broken = write_job(tmp_path, rows=400, scenarios=ONE_SCENARIO, release={**release, "columns": {"salary": "continuous"}})
    with pytest.raises(ValueError, match="salary"):
        run_job(broken, workers=1, progress=False)
    corrected = write_job(tmp_path, rows=400, scenarios=ONE_SCENARIO, release=release)
    assert list(run_job(corrected, workers=1, progress=False)["status"]) == ["ok"]


def test_a_replaced_release_file_or_another_version_is_refused(tmp_path, monkeypatch):
    job = write_job(tmp_path, rows=400, scenarios=ONE_SCENARIO)
    first = run_job(job, workers=1, progress=False)
    before = parts_written(tmp_path)
    pd.testing.assert_frame_equal(run_job(job, progress=False), first)  # unchanged: resumed, nothing recomputed
    assert parts_written(tmp_path) == before
    original = tmp_path / "original.parquet"
    kept = original.read_bytes()
    pd.read_parquet(original).iloc[::-1].reset_index(drop=True).to_parquet(original)  # the same path, other data
    with pytest.raises(ResultsError, match=r"other settings or data \(changed: release\.original data\)"):
        run_job(job, progress=False)
    original.write_bytes(kept)
    version = alc_dask.__version__
    monkeypatch.setattr(alc_dask, "__version__", "99.0")
    with pytest.raises(ResultsError, match=rf"changed: alc_dask version {re.escape(version)} -> 99\.0"):
        run_job(job, progress=False)
    assert parts_written(tmp_path) == before


@pytest.mark.timing  # work stealing may move a few scenarios when the machine is busy
def test_scenarios_sharing_a_baseline_run_where_it_is_remembered(tmp_path):
    """Two releases of one original (the paper's weak and strong): each ML scenario of the second
    job goes to the worker that fitted its baseline in the first, which then fits nothing."""
    from alc_dask.engine.cluster import connect

    def clear_memo():  # run on each worker, pickled by value
        from alc_dask.baseline.memo import BASELINES

        BASELINES.clear()

    def memo_hits():
        from alc_dask.baseline.memo import BASELINES

        return BASELINES.hits

    for name, table in make_demo_release(1500, seed=3).items():
        table.to_parquet(tmp_path / f"{name}.parquet")
    scenarios = [{"generate": "sampled_known", "per_secret": 4, "size": 3, "secrets": ["income", "region", "education", "condition"]}]
    jobs = {}
    for table in ("weak", "strong"):
        spec = {
            "name": table,
            "release": {"original": "original.parquet", "anonymized": [f"{table}.parquet"]},
            "scenarios": scenarios,
            "baseline_settings": FAST,
        }
        (tmp_path / f"{table}.yaml").write_text(yaml.safe_dump({**spec, "output": f"out-{table}"}))
    with connect(workers=2) as client:
        client.run(clear_memo)
        for table in ("weak", "strong"):
            jobs[table] = run_job(tmp_path / f"{table}.yaml", client=client, progress=False).set_index("scenario_id")
        hits = sum(client.run(memo_hits).values())
    weak, strong = jobs["weak"], jobs["strong"].loc[jobs["weak"].index]
    assert len(weak) == 16 and (weak["status"] == "ok").all()
    same_worker = (weak["worker"] == strong["worker"]).mean()
    assert same_worker >= 0.8, same_worker  # by chance alone about half
    assert hits >= 2 * 0.8 * len(weak)  # the model choice and the first block's predictions
    pd.testing.assert_series_equal(weak["expected_base_prc"], strong["expected_base_prc"])


def test_a_job_runs_on_the_client_the_caller_made_current(tmp_path, monkeypatch):
    """No client passed down: a ``distributed.Client`` the caller made is Dask's default, and the job
    runs on its cluster (here one of threads) instead of starting a local one."""
    distributed = pytest.importorskip("distributed")

    def refuse(*args, **kwargs):
        raise AssertionError("a local cluster was started though the caller made a client current")

    monkeypatch.setattr("alc_dask.engine.cluster.connect", refuse)
    job = write_job(tmp_path, rows=400, scenarios=ONE_SCENARIO)
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as client:
        scores = run_job(job, progress=False)
        assert client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.task_prefixes)) > 0  # its scheduler ran the scenarios
    assert list(scores["status"]) == ["ok"]
