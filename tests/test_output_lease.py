"""One run at a time writes an output folder: two `alc-dask run` of one job started together never
lose or mix results, a lease left by a dead run is taken over, and every audit has its own folder.

Before the lease, two runs into one folder removed each other's unfinished parts (4 of 30
scenarios lost, both exiting 0) and runs of two seeds were both accepted.
"""

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import distributed
import pytest
import yaml

from alc_dask.apps.synthetic import make_demo_release
from alc_dask.jobs.scenarios import scenario_seed
from alc_dask.results import read_scores
from alc_dask.results.files import Files
from alc_dask.results.lease import EXPIRES, FolderBusy, FolderLease, LeaseWarning

N_SCENARIOS = 27


def write_job(folder, seed: int = 0, name: str = "job.yaml") -> str:
    for table_name, table in make_demo_release(400, seed=8).items():
        table.to_parquet(folder / f"{table_name}.parquet")
    job = {
        "name": "lease",
        "release": {"name": "weak", "original": "original.parquet", "anonymized": ["weak.parquet"]},
        "scenarios": [{"generate": "each_column"}, {"generate": "sampled_known", "per_secret": 2, "size": 2, "min_unique": 0.0}],
        "baseline_settings": {"candidates": ["majority"], "trees": 10},
        "seed": seed,
        "output": "out",
    }
    (folder / name).write_text(yaml.safe_dump(job))
    return str(folder / name)


@pytest.fixture(scope="module")
def scheduler():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster:
        yield cluster.scheduler_address


def start_run(job: str, scheduler: str, *options: str) -> subprocess.Popen:
    environment = {**os.environ, "ALC_DASK_PART_SCENARIOS": "1", "ALC_DASK_FLUSH_SECONDS": "0.2"}  # many parts, as in a long job
    return subprocess.Popen(
        [str(Path(sys.executable).parent / "alc-dask"), "run", job, "--scheduler", scheduler, *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )


def finish(runs: list[subprocess.Popen]) -> list[tuple[int, str]]:
    return [(run.wait(timeout=300), run.communicate()[1]) for run in runs]


def assert_each_scenario_once(out, job_seed: int = 0) -> None:
    """Every scenario once, done, and run with the seed this job seed gives it."""
    scores = read_scores(out)
    assert len(scores) == N_SCENARIOS and scores["scenario_id"].is_unique, f"{len(scores)} rows for {N_SCENARIOS} scenarios"
    assert (scores["status"] == "ok").all()
    assert scores["seed"].tolist() == [scenario_seed(job_seed, id) for id in scores["scenario_id"]]


@pytest.mark.long  # 11 s on 2 cores: out of the default run, in make test's second step
def test_two_runs_of_one_job_into_one_folder_lose_nothing(tmp_path, scheduler):
    job = write_job(tmp_path)
    outcomes = finish([start_run(job, scheduler), start_run(job, scheduler)])
    codes = sorted(code for code, _ in outcomes)
    assert codes in ([0, 0], [0, 2]), outcomes
    for code, stderr in outcomes:
        if code == 2:
            assert f"output folder {tmp_path / 'out'} is in use by a run on host {socket.gethostname()}, process" in stderr
    assert_each_scenario_once(tmp_path / "out")


@pytest.mark.long  # two runs one after the other: 15-35 s
def test_a_second_run_asked_to_wait_runs_after_the_first(tmp_path, scheduler):
    job = write_job(tmp_path)
    outcomes = finish([start_run(job, scheduler, "--wait"), start_run(job, scheduler, "--wait")])
    assert [code for code, _ in outcomes] == [0, 0], outcomes
    assert_each_scenario_once(tmp_path / "out")


def test_runs_of_two_seeds_never_share_a_folder(tmp_path, scheduler):
    first, second = write_job(tmp_path, seed=0), write_job(tmp_path, seed=1, name="other-seed.yaml")
    outcomes = finish([start_run(first, scheduler, "--wait"), start_run(second, scheduler, "--wait")])
    assert sorted(code for code, _ in outcomes) == [0, 2], outcomes
    refused = next(stderr for code, stderr in outcomes if code == 2)
    assert "measured with other settings or data (changed: seed)" in refused
    assert_each_scenario_once(tmp_path / "out", job_seed=[0, 1][[code for code, _ in outcomes].index(0)])


def dead_process() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def write_lease(files: Files, **holder) -> None:
    files.makedirs(files.root)
    record = {
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "process_started": 0.0,
        "started": "2026-01-01 00:00:00 UTC",
        "heartbeat": time.time(),
        "token": "x",
    }
    files.put_bytes(files.path(".lease-1.json"), json.dumps(record | holder).encode())


def test_a_lease_left_by_a_dead_run_is_taken_over_with_a_message(tmp_path, scheduler):
    job = write_job(tmp_path)
    write_lease(Files(tmp_path / "out"), pid=dead_process())
    code, stderr = finish([start_run(job, scheduler)])[0]
    assert code == 0, stderr
    assert f"warning: output folder {tmp_path / 'out'}: taking it over from a run on host {socket.gethostname()}" in stderr and "which is gone" in stderr
    assert_each_scenario_once(tmp_path / "out")
    assert not [name for name in os.listdir(tmp_path / "out") if name.startswith(".lease")], "the lease is given up at the end"


@pytest.mark.parametrize("where", ["memory", "s3"])
def test_a_folder_on_an_object_store_has_one_holder(tmp_path, request, where):
    root = f"{request.getfixturevalue('s3')}/leased" if where == "s3" else f"memory://leased-{tmp_path.name}"
    files = Files(root)
    with FolderLease(files).acquire():
        with pytest.raises(FolderBusy, match=rf"output folder {root} is in use by a run on host {socket.gethostname()}, process {os.getpid()}"):
            FolderLease(files).acquire()
    with FolderLease(files).acquire():  # given up: free again
        pass
    write_lease(files, host="another-host", heartbeat=time.time() - EXPIRES - 1)
    with pytest.warns(LeaseWarning, match="taking it over from a run on host another-host"):
        FolderLease(files).acquire().release()


def test_of_two_processes_creating_one_lease_exactly_one_holds_it(tmp_path):
    """Many threads racing for one folder: the exclusive create lets exactly one through at a time."""
    files, holders, lock = Files(tmp_path / "out"), [], threading.Lock()
    files.makedirs(files.root)

    def contend():
        try:
            lease = FolderLease(files).acquire()
        except FolderBusy:
            return
        with lock:
            holders.append(lease)

    threads = [threading.Thread(target=contend) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(holders) == 1
    holders[0].release()
