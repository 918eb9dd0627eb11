"""The demo's own run: a Ctrl-C is counted over the three jobs it runs one after the other."""

from contextlib import nullcontext

import pandas as pd
import pytest

from alc_dask.apps import demo
from alc_dask.engine.progress import Interrupted


def interrupted_demo(tmp_path, monkeypatch, stop_in_job: int | None) -> Interrupted:
    """``run_demo`` with jobs that finish at once with 26, 26 and 2 scenarios, a Ctrl-C halfway
    through job ``stop_in_job`` (counting from 0), or while the report is written when None."""
    sizes = iter([26, 26, 2])
    calls = []

    def run_job(spec, **_):
        size = next(sizes)
        if len(calls) == stop_in_job:
            raise Interrupted(size // 2, size)
        calls.append(spec.name)
        return pd.DataFrame({"scenario_id": range(size)})

    def write_report(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(demo, "connect", lambda **_: nullcontext(None))
    monkeypatch.setattr(demo, "run_job", run_job)
    monkeypatch.setattr(demo, "summarize", lambda scores: scores)
    monkeypatch.setattr(demo, "exposure_of_results", lambda *outputs: None)
    monkeypatch.setattr(demo, "write_report", write_report)
    with pytest.raises(KeyboardInterrupt) as stopped:
        demo.run_demo(tmp_path, rows=400, progress=False)
    return stopped.value


@pytest.mark.parametrize(("stop_in_job", "done", "total"), [(0, 13, 26), (1, 39, 52), (2, 53, 54)])
def test_a_ctrl_c_in_a_job_counts_the_scenarios_of_the_jobs_before_it(tmp_path, monkeypatch, stop_in_job, done, total):
    """The second job's Ctrl-C said "13 of 26 scenarios done" with the first job's 26 saved too."""
    stopped = interrupted_demo(tmp_path, monkeypatch, stop_in_job)
    assert isinstance(stopped, Interrupted) and (stopped.done, stopped.total) == (done, total)


def test_a_ctrl_c_during_the_report_says_every_scenario_is_done(tmp_path, monkeypatch):
    """It said "no scenario done" though the three jobs' 54 scenarios were saved."""
    stopped = interrupted_demo(tmp_path, monkeypatch, None)
    assert isinstance(stopped, Interrupted) and (stopped.done, stopped.total) == (54, 54)


def test_a_ctrl_c_before_any_job_ended_is_left_as_it_is():
    interrupt = KeyboardInterrupt()
    assert demo.counted_over_jobs(interrupt, 0) is interrupt
