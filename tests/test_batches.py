"""Scenarios batched into tasks: batches sized by how long scenarios take, the same scores as one
task per scenario, and a batch whose scenario takes its worker down failing that scenario only."""

import json
import os
import time

import dask
import distributed
import numpy as np
import pytest

from alc_dask import run_job
from alc_dask.apps.synthetic import make_demo_release
from alc_dask.attacks.base import AttributeAttack, Predictions
from alc_dask.attacks.registry import register_attack
from alc_dask.engine import runner
from alc_dask.engine.runner import Backlog, BatchSizing
from alc_dask.engine.task import ScenarioOutcome
from alc_dask.jobs import JobSpec, validate_job

KILLER_SALT = 13


class KillsItsWorker(AttributeAttack):
    """Guesses code 0; the scenario of salt ``KILLER_SALT`` ends its worker's process instead."""

    def __init__(self, salt: int = 0):
        self.salt = salt

    def predict(self, prepared, targets) -> Predictions:
        if self.salt == KILLER_SALT and targets.source == "original":
            os._exit(1)
        n = len(targets.rows)
        return Predictions(np.zeros(n, dtype=np.int32), np.ones(n), np.zeros(n, dtype=bool))


register_attack("kills_its_worker", KillsItsWorker)


def finished(seconds: float, status: str = "ok") -> ScenarioOutcome:
    return ScenarioOutcome({"scenario_id": "a-000000000a", "status": status, "elapsed_seconds": seconds}, None)


def test_batches_hold_about_a_quarter_second_of_work_and_a_fair_share_of_what_is_left():
    sizing = BatchSizing(threads=2)
    assert sizing.size(remaining=10_000) == 1  # nothing known yet
    for _ in range(10):
        sizing.record(finished(0.01))
    sizing.record(finished(float("nan"), "failed"))  # a failure says nothing about the time a scenario takes
    assert sizing.size(remaining=10_000) == 25
    assert sizing.size(remaining=40) == 10  # the four tasks of two threads take the last 40 together
    assert sizing.size(remaining=3) == 1
    for _ in range(10):
        sizing.record(finished(2.0))
    assert sizing.size(remaining=10_000) == 1  # slow scenarios keep a task each
    quick = BatchSizing(threads=1)
    quick.record(finished(0.0))
    assert quick.size(remaining=10_000) == BatchSizing.MOST


def quick_job(folder, scenarios: int) -> JobSpec:
    tables = make_demo_release(200, seed=0)
    tables["original"].to_parquet(folder / "original.parquet")
    tables["weak"].to_parquet(folder / "weak.parquet")
    return validate_job(
        {
            "name": "batches",
            "release": {"original": str(folder / "original.parquet"), "anonymized": [str(folder / "weak.parquet")]},
            "scenarios": [{"secret": "sex", "known": ["age"]}],
            "attacks": [{"name": "kills_its_worker", "params": {"salt": i}} for i in range(scenarios)],
            "baselines": ["prior"],
            "halting": {"min_pairs": 20, "check_every": 20},
            "output": str(folder / "out"),
        }
    )


@pytest.fixture
def one_worker():
    """One worker process, given up on at its first death so that a killing task fails at once, and
    running one task at a time: the scheduler fails every task on a worker that died, so a task sent
    ahead would fail beside the one at fault."""
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0, "distributed.scheduler.worker-saturation": 1.0}),
        distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.mark.long  # a worker killed and restarted: 15-30 s
def test_a_batch_that_kills_its_worker_fails_only_the_scenario_at_fault(tmp_path, one_worker, monkeypatch):
    monkeypatch.setattr(BatchSizing, "size", lambda self, remaining: 6)
    submitted = []
    monkeypatch.setattr(runner.ScenarioTasks, "submit", record_batches(runner.ScenarioTasks.submit, submitted))
    scores = run_job(quick_job(tmp_path, 24), client=one_worker, progress=False).set_index("attack_params")
    assert any(len(batch) == 6 and KILLER_SALT in batch for batch in submitted)  # the killer ran in a batch first
    failed = scores[scores["status"] != "ok"]
    assert list(failed.index) == [f'{{"salt": {KILLER_SALT}}}'] and "KilledWorker" in failed["error"].iloc[0]
    assert len(scores) == 24 and scores["alc"].drop(failed.index).notna().all()


def record_batches(submit, submitted: list):
    def recording(self, batch, worker, attempt=0):
        submitted.append([scenario.family.params.attack.params["salt"] for scenario in batch])
        return submit(self, batch, worker, attempt)

    return recording


def test_batched_scores_equal_one_task_per_scenario(tmp_path, one_worker, monkeypatch):
    batched = run_job(quick_job(tmp_path, 12), client=one_worker, progress=False, out=tmp_path / "batched")
    monkeypatch.setattr(BatchSizing, "size", lambda self, remaining: 1)
    single = run_job(quick_job(tmp_path, 12), client=one_worker, progress=False, out=tmp_path / "single")
    columns = ["scenario_id", "status", "alc", "base_prc", "attack_prc", "pairs"]
    assert (batched["status"] == "ok").all() and batched[columns].equals(single[columns])


def test_a_worker_takes_its_own_scenarios_then_nobody_s_then_the_longest_queue():
    preference = {i: ("a", "b", None)[i % 3] for i in range(20)}  # a: 7, b: 7, None: 6
    backlog = Backlog(list(range(20)), preference.get)
    assert backlog.take(4, "a") == [0, 3, 6, 9]  # its own, in order
    assert backlog.take(4, "a") == [12, 15, 18]
    assert backlog.take(4, "a") == [2, 5, 8, 11]  # its own done: those no worker prefers
    assert backlog.take(4, "a") == [14, 17]
    assert backlog.take(2, "b") == [1, 4]
    assert backlog.take(2, "a") == [7, 10]  # nothing else left: b's, rather than idle
    assert backlog.take(9, None) == [13, 16, 19] and len(backlog) == 0


@pytest.mark.long  # 26 s on 2 cores: out of the default run, in make test's second step
def test_ml_scenarios_of_two_releases_of_one_original_run_on_the_same_worker_whatever_the_batches(tmp_path, two_workers_without_stealing, monkeypatch):
    """A weak release's ML baselines are those trained for the strong release of the same original,
    remembered in the worker that trained them: each scenario must go there, however the scenarios
    are batched (batch sizes follow the scenarios' times, which differ between the releases), unless
    the backlog gave it to the other worker rather than let that one idle (``Backlog``)."""
    tables = make_demo_release(300, seed=0)
    for name in ("original", "weak", "strong"):
        tables[name].to_parquet(tmp_path / f"{name}.parquet")
    secrets = ["sex", "region", "education", "married", "condition", "occupation"]
    scenarios = [{"secret": secret, "known": known} for secret in secrets for known in (["age", "income"], ["age", "hours_per_week"])]
    moved = set()
    submit = runner.ScenarioTasks.submit

    def recording(self, batch, worker, attempt=0):
        if worker != self.preferred_worker(batch[0]):
            moved.update(f"{s.params.secret}|{json.dumps(list(s.params.known))}" for s in batch)
        return submit(self, batch, worker, attempt)

    monkeypatch.setattr(runner.ScenarioTasks, "submit", recording)

    def run(release: str, batch: int):
        monkeypatch.setattr(BatchSizing, "size", lambda self, remaining: batch)
        job = {
            "name": release,
            "release": {"original": str(tmp_path / "original.parquet"), "anonymized": [str(tmp_path / f"{release}.parquet")]},
            "scenarios": scenarios,
            "attacks": ["best_row_match"],
            "baselines": ["ml"],
            "halting": {"min_pairs": 20, "check_every": 20},
            "output": str(tmp_path / release),
        }
        scores = run_job(validate_job(job), client=two_workers_without_stealing, progress=False)
        assert (scores["status"] == "ok").all()
        return scores.set_index(scores["secret"] + "|" + scores["known"])["worker"]

    strong, weak = run("strong", 4), run("weak", 3)
    assert strong.nunique() == 2  # both workers trained baselines
    kept = strong.index.difference(sorted(moved))
    assert len(kept) >= len(strong) // 2 and weak.reindex(kept).equals(strong.reindex(kept))


@pytest.mark.long  # two local workers, one of them kept busy for 15 s
def test_scenarios_that_prefer_a_busy_worker_run_on_the_idle_one(tmp_path, two_workers_without_stealing):
    """A worker busy with other work (the check's utility classifier, another user's task) holds
    only the tasks sent to it before it was seen not to finish (``TASKS_PER_THREAD``), not every
    scenario that prefers it while the other worker idles (before: about half of them)."""
    client = two_workers_without_stealing
    busy, idle = sorted(client.nthreads())
    blocker = client.submit(time.sleep, 15, workers=[busy], pure=False)
    while not client.processing()[busy]:
        time.sleep(0.05)
    tables = make_demo_release(300, seed=0)
    for name in ("original", "weak"):
        tables[name].to_parquet(tmp_path / f"{name}.parquet")
    secrets = ["sex", "region", "education", "married", "condition", "occupation"]
    job = {
        "name": "weak",
        "release": {"original": str(tmp_path / "original.parquet"), "anonymized": [str(tmp_path / "weak.parquet")]},
        "scenarios": [{"secret": secret, "known": known} for secret in secrets for known in (["age", "income"], ["age", "hours_per_week"])],
        "attacks": ["best_row_match"],
        "baselines": ["ml"],
        "halting": {"min_pairs": 20, "check_every": 20},
        "output": str(tmp_path / "out"),
    }
    scores = run_job(validate_job(job), client=client, progress=False)
    names = {address: str(info["name"]) for address, info in client.scheduler_info()["workers"].items()}
    client.cancel(blocker)
    assert (scores["status"] == "ok").all() and (scores["worker"] == names[busy]).sum() <= runner.TASKS_PER_THREAD
