"""``check_family``: a registered family run through its whole contract, as scikit-learn's
``check_estimator`` runs an estimator through its.

On a small demo release whose truth is known (``demo``), with the job entries the family gives
(``check_examples``): its declarations; its plan (stable ids and seeds); each evaluation in this
process (measures of the declared fields and types, a known risk label); the job on a local Dask
cluster of one worker process, then of two (the same scores, and those of this process); resuming;
two nightly audits; the release copying the original against a fresh sample; the report section.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from alc_dask.engine.cluster import WORKERS_TIMEOUT
from alc_dask.results import read_predictions
from alc_dask.testing.contract import check_declarations, examples_of, expect, registered
from alc_dask.testing.demo import demo_columns, family_entries, write_demo, write_job
from alc_dask.testing.leak import check_copy_worse_than_fresh, check_exposure
from alc_dask.testing.outputs import check_audits, check_report
from alc_dask.testing.planning import evaluated_here, planned
from alc_dask.testing.runs import check_local_scores, check_resume, check_same_scores, run_checked

RELEASES = ("checked", "copy", "fresh")


@dataclass(frozen=True)
class FamilyCheck:
    """What a passed check ran: how many evaluations, each step's seconds, and the scores of the
    run on two workers (indexed by scenario id).

    Attributes
    ----------
    family : str
    scenarios : int
        Evaluations checked.
    seconds : dict of str to float
        Each step's time.
    scores : pandas.DataFrame

    Examples
    --------
    ``str()`` of one is the line a script prints (tests/test_family_contract.py runs this check):

    >>> from alc_dask.testing import check_family
    >>> print(check_family("alc"))  # doctest: +SKIP
    alc: 2 evaluations checked in 25.3 s (declarations 0.0, plan 0.4, evaluate here 3.1, 1 worker 6.9, ...)
    """

    family: str
    scenarios: int
    seconds: dict[str, float]
    scores: pd.DataFrame = field(repr=False)

    def __str__(self) -> str:
        steps = ", ".join(f"{step} {seconds:.1f}" for step, seconds in self.seconds.items())
        return f"{self.family}: {self.scenarios} evaluations checked in {sum(self.seconds.values()):.1f} s ({steps})"


def check_family(name: str, folder: str | os.PathLike | None = None, *, seed: int = 0) -> FamilyCheck:
    """Run the family registered as ``name`` through its contract, as scikit-learn's
    ``check_estimator`` runs an estimator through its: for a family of your own before you publish it.

    Start it from a script's ``if __name__ == "__main__":`` block: the cluster's worker processes
    import the main module.

    Parameters
    ----------
    name : str
        A registered family (an entry point of the ``alc_dask.families`` group).
    folder : path, optional
        A new or empty folder that keeps the releases, jobs and results (default: a temporary
        folder, removed).
    seed : int, default 0

    Returns
    -------
    FamilyCheck
        What the check ran and how long each step took.

    Raises
    ------
    ContractError
        The part of the contract the family breaks (an ``AssertionError``).
    ValueError
        ``folder`` is not empty.

    Examples
    --------
    Not run as a doctest: tests/test_family_contract.py runs this check for every built-in family.

    >>> from alc_dask.testing import check_family
    >>> print(check_family("alc"))  # doctest: +SKIP
    alc: 2 evaluations checked in 25.3 s (declarations 0.0, plan 0.4, evaluate here 3.1, 1 worker 6.9, ...)
    """
    if folder is not None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        if any(folder.iterdir()):
            raise ValueError(f"{folder}: not empty; check_family writes its releases and results in a folder of its own (results there would be resumed)")
        return _check(name, folder, seed)
    with tempfile.TemporaryDirectory(prefix=f"check-{name}-") as scratch:
        return _check(name, Path(scratch), seed)


def _check(name: str, folder: Path, seed: int) -> FamilyCheck:
    steps = Steps()
    with steps("declarations"):
        cls = registered(name)
        check_declarations(cls)
        examples = examples_of(cls, demo_columns())
    with steps("plan"):
        demo = write_demo(folder, examples.release)
        entries = family_entries(name, examples.entries)
        jobs = {which: write_job(folder, f"{name}-{which}", getattr(demo, which), entries, examples.job_settings, seed) for which in RELEASES}
        scenarios, release = planned(cls, jobs["checked"])
    with steps("evaluate here"):
        local = evaluated_here(cls, scenarios, release)
    with parts_per_scenario(), ExitStack() as running:
        with steps("1 worker"):
            cluster, client = running.enter_context(local_cluster())
            one = run_checked(cls, jobs["checked"], client, folder / "one-worker")
        with steps("2 workers"):
            scale(name, cluster, client, 2)
            two = run_checked(cls, jobs["checked"], client, folder / "two-workers")
            check_same_scores(cls, one, two, "one worker and two")
            check_local_scores(cls, local, two)
        with steps("resume"):
            check_resume(cls, jobs["checked"], client, folder / "two-workers", two)
        with steps("audit"):
            check_audits(cls, jobs["checked"], client.scheduler.address, 2, folder / "audits", two)
        if examples.compares_releases:
            with steps("copy against fresh"):
                copy, fresh = (run_checked(cls, jobs[which], client, folder / which) for which in ("copy", "fresh"))
                check_copy_worse_than_fresh(cls, copy, fresh)
                check_exposure(cls, copy.reset_index(), read_predictions(folder / "copy"), demo.original)
    with steps("report"):
        check_report(cls, two, folder / "report")
    return FamilyCheck(name, len(scenarios), steps.seconds, two)


@contextmanager
def local_cluster() -> Iterator:
    """A local Dask cluster of one single-threaded worker process, and its client."""
    from distributed import Client, LocalCluster

    from alc_dask.engine.clients import main_module_not_reimported

    with (
        main_module_not_reimported(),
        LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # its HTTP server on a free port, never a taken 8787
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        yield cluster, client


def scale(name: str, cluster, client, workers: int) -> None:
    """``cluster`` grown to ``workers`` worker processes."""
    cluster.scale(workers)
    client.wait_for_workers(workers, timeout=WORKERS_TIMEOUT)
    running = len(client.scheduler_info()["workers"])
    expect(running == workers, name, "cluster", f"asked for {workers} worker processes, {running} are running")


@contextmanager
def parts_per_scenario() -> Iterator[None]:
    """Results written a part per evaluation (``ALC_DASK_PART_SCENARIOS``), so that losing one part
    loses some evaluations, not all; the setting is restored after."""
    before = os.environ.get("ALC_DASK_PART_SCENARIOS")
    os.environ["ALC_DASK_PART_SCENARIOS"] = "1"
    try:
        yield
    finally:
        if before is None:
            del os.environ["ALC_DASK_PART_SCENARIOS"]
        else:
            os.environ["ALC_DASK_PART_SCENARIOS"] = before


class Steps:
    """Seconds per step of a check."""

    def __init__(self):
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, step: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[step] = self.seconds.get(step, 0.0) + time.perf_counter() - start
