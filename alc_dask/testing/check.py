"""A family's contract as named checks, each runnable on its own, as scikit-learn's
``parametrize_with_checks`` runs an estimator's: ``family_checks(family)`` yields them,
``parametrize_with_checks`` makes each its own pytest test, and ``check_family`` runs them all and
reports every failure, not the first alone.

On a small demo release whose truth is known (``demo``), with the job entries the family gives
(``check_examples``). Without a cluster: ``declarations``; ``plan`` (stable ids and seeds);
``evaluate here`` (measures of the declared fields and types, a headline). On a local Dask
cluster of one worker process, then two (started once for the family's checks, by the first that
needs it): ``one worker and two`` (the same scores, and those of this process); ``resume``;
``audit`` (two nightly audits); ``copy against fresh`` (a release copying the original against a
fresh sample, when the family compares releases); ``report`` (its section). Work the checks share
(the plan, the runs) is done once, by the first check that needs it; a check that needs work
which failed fails with that work's error.

A class is checked as it is; but a job finds a family by its entry point, in this process and on
the cluster's workers alike, so every check but ``declarations`` needs the class installed as the
family of its name (each says so when it is not).
"""

from __future__ import annotations

import atexit
import logging
import os
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pandas as pd

from alc_dask.engine.addresses import WORKERS_TIMEOUT
from alc_dask.families import EvaluationFamily, family_names, get_family
from alc_dask.results import read_predictions
from alc_dask.testing.contract import ContractError, check_declarations, examples_of, expect, registered
from alc_dask.testing.demo import demo_columns, family_entries, write_demo, write_job
from alc_dask.testing.leak import check_copy_worse_than_fresh, check_exposure
from alc_dask.testing.outputs import check_audits, check_report
from alc_dask.testing.planning import evaluated_here, planned
from alc_dask.testing.runs import check_local_scores, check_resume, check_same_scores, run_checked

RELEASES = ("checked", "copy", "fresh")


@dataclass(frozen=True)
class NamedCheck:
    """One check of a family's contract: call it; a ``ContractError`` names what the family breaks.

    Examples
    --------
    >>> from alc_dask.testing import family_checks
    >>> declarations = next(family_checks("disclosure"))
    >>> declarations.id, declarations.needs_cluster, declarations()
    ('disclosure-declarations', False, None)
    """

    family: str
    name: str
    needs_cluster: bool
    run: Callable[[], None] = field(repr=False, compare=False)

    def __call__(self) -> None:
        self.run()

    @property
    def id(self) -> str:
        """The check as a pytest id, e.g. ``membership-one_worker_and_two``."""
        return f"{self.family}-{self.name.replace(' ', '_')}"


@dataclass(frozen=True)
class FamilyCheck:
    """What a passed ``check_family`` ran: how many evaluations, each check's seconds, and the
    scores of the run on two workers (indexed by scenario id).

    Examples
    --------
    ``str()`` of one is the line a script prints (tests/test_family_contract.py runs every check):

    >>> from alc_dask.testing import check_family
    >>> print(check_family("alc"))  # doctest: +SKIP
    alc: 2 evaluations checked in 25.3 s (declarations 0.0, plan 0.4, evaluate here 3.1, one worker and two 9.9, ...)
    """

    family: str
    scenarios: int
    seconds: dict[str, float]
    scores: pd.DataFrame = field(repr=False)

    def __str__(self) -> str:
        steps = ", ".join(f"{step} {seconds:.1f}" for step, seconds in self.seconds.items())
        return f"{self.family}: {self.scenarios} evaluations checked in {sum(self.seconds.values()):.1f} s ({steps})"


def family_checks(family: str | type[EvaluationFamily], folder: str | os.PathLike | None = None, *, seed: int = 0) -> Iterator[NamedCheck]:
    """The named checks of ``family`` (a registered name or a class), in the order they read best.

    Parameters
    ----------
    family : str or EvaluationFamily subclass
    folder : path, optional
        A new or empty folder for the releases, jobs and results (default: a temporary folder,
        removed once the last check on a cluster has run, or at exit).
    seed : int, default 0

    Examples
    --------
    >>> from alc_dask.testing import family_checks
    >>> [check.name for check in family_checks("disclosure") if not check.needs_cluster]
    ['declarations', 'plan', 'evaluate here']

    Returns
    -------
    iterator of NamedCheck
    """
    return _named_checks(FamilyUnderCheck(family, None if folder is None else Path(folder), seed))


def _named_checks(under: FamilyUnderCheck) -> Iterator[NamedCheck]:
    compares = _compares_releases(under)
    yield NamedCheck(under.name, "declarations", False, under.check_declarations)
    yield NamedCheck(under.name, "plan", False, lambda: under.plan)
    yield NamedCheck(under.name, "evaluate here", False, lambda: under.local)
    on_cluster = [("one worker and two", under.check_workers), ("resume", under.check_resume), ("audit", under.check_audit)]
    on_cluster += [("copy against fresh", under.check_copy)] if compares else []
    on_cluster += [("report", under.check_report)]
    under.cluster_checks_left = len(on_cluster)
    for name, run in on_cluster:
        yield NamedCheck(under.name, name, True, under.on_cluster(run))


def parametrize_with_checks(families: Iterable[str | type[EvaluationFamily]]):
    """A pytest decorator running every named check of each family as its own test, given to the
    test as ``check``.

    Parameters
    ----------
    families : iterable of str or EvaluationFamily subclasses

    Returns
    -------
    pytest.MarkDecorator

    Examples
    --------
    >>> from alc_dask.testing import parametrize_with_checks
    >>> @parametrize_with_checks(["disclosure"])
    ... def test_the_family_keeps_the_contract(check):
    ...     check()
    >>> [param.id for param in test_the_family_keeps_the_contract.pytestmark[0].args[1]][:3]
    ['disclosure-declarations', 'disclosure-plan', 'disclosure-evaluate_here']
    """
    import pytest

    checks = [check for family in families for check in family_checks(family)]
    return pytest.mark.parametrize("check", [pytest.param(check, id=check.id) for check in checks])


def check_family(family: str | type[EvaluationFamily], folder: str | os.PathLike | None = None, *, seed: int = 0) -> FamilyCheck:
    """Run every named check of ``family`` (see ``family_checks``), as scikit-learn's
    ``check_estimator`` runs an estimator's: for a family of your own before you publish it.

    Start it from a script's ``if __name__ == "__main__":`` block: the cluster's worker processes
    import the main module.

    Parameters
    ----------
    family : str or EvaluationFamily subclass
        A registered family (an entry point of the ``alc_dask.families`` group), or its class.
    folder : path, optional
        A new or empty folder that keeps the releases, jobs and results (default: a temporary
        folder, removed).
    seed : int, default 0

    Returns
    -------
    FamilyCheck
        What the checks ran and how long each took.

    Raises
    ------
    ContractError
        Every part of the contract the family breaks (an ``AssertionError``): each failed check's
        name and message.
    ValueError
        ``folder`` is not empty.

    Examples
    --------
    Not run as a doctest: tests/test_family_contract.py runs every check of every built-in family.

    >>> from alc_dask.testing import check_family
    >>> print(check_family("alc"))  # doctest: +SKIP
    alc: 2 evaluations checked in 25.3 s (declarations 0.0, plan 0.4, evaluate here 3.1, one worker and two 9.9, ...)
    """
    under = FamilyUnderCheck(family, None if folder is None else Path(folder), seed)
    checks = list(_named_checks(under))
    failures, seconds = [], {}
    for check in checks:
        started = time.perf_counter()
        try:
            check()
        except ContractError as error:
            failures.append((check.name, error))
        finally:
            seconds[check.name] = time.perf_counter() - started
    if failures:
        raise ContractError(under.name, ", ".join(name for name, _ in failures), " | ".join(_failure(name, error) for name, error in failures))
    return FamilyCheck(under.name, len(under.plan[0]), seconds, under.two)


def _failure(check: str, error: ContractError) -> str:
    """A failed check in the combined message: its name, the part of the contract when it says more, the problem."""
    return f"{error.part}: {error.problem}" if error.part.startswith(check) else f"{check}: {error.part}: {error.problem}"


class FamilyUnderCheck:
    """What one family's checks share, made when first asked for: its class, examples, demo release
    and jobs, the plan, the evaluations in this process, and the runs on one and two workers."""

    def __init__(self, family: str | type[EvaluationFamily], folder: Path | None, seed: int):
        self.given = family
        self.name = family if isinstance(family, str) else getattr(family, "name", family.__name__)
        self.seed = seed
        self._folder = folder
        self._resources = ExitStack()
        self.cluster_checks_left = 0
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            if any(folder.iterdir()):
                raise ValueError(f"{folder}: not empty; check_family writes its releases and results in a folder of its own (results there would be resumed)")
        atexit.register(self.close)

    @cached_property
    def family(self) -> type[EvaluationFamily]:
        return registered(self.given) if isinstance(self.given, str) else self.given

    @cached_property
    def examples(self):
        return examples_of(self.family, demo_columns())

    def check_declarations(self) -> None:
        check_declarations(self.family)
        examples_of(self.family, demo_columns())

    @cached_property
    def folder(self) -> Path:
        if self._folder is not None:
            return self._folder
        return Path(self._resources.enter_context(tempfile.TemporaryDirectory(prefix=f"check-{self.name}-")))

    @cached_property
    def demo(self):
        return write_demo(self.folder, self.examples.release)

    @cached_property
    def jobs(self) -> dict[str, Path]:
        self._require_registration()
        entries = family_entries(self.name, self.examples.entries)
        settings = self.examples.job_settings
        return {which: write_job(self.folder, f"{self.name}-{which}", getattr(self.demo, which), entries, settings, self.seed) for which in RELEASES}

    @cached_property
    def plan(self):
        """(scenarios, release) of the checked job, once found stable."""
        return planned(self.family, self.jobs["checked"])

    @cached_property
    def local(self) -> dict[str, dict]:
        return evaluated_here(self.family, *self.plan)

    def _require_registration(self) -> None:
        expect(
            self.name in family_names() and get_family(self.name) is self.family,
            self.name,
            "registration",
            f"a job finds a family by its entry point (group alc_dask.families), here and on a cluster's workers: {self.family.__name__} "
            f"is not the family installed as {self.name!r}; install the package that declares it",
        )

    @cached_property
    def cluster(self):
        """(cluster, client): one worker process, until ``two`` scales it."""
        self._require_registration()
        self._resources.enter_context(parts_per_scenario())
        return self._resources.enter_context(local_cluster())

    @cached_property
    def one(self) -> pd.DataFrame:
        return run_checked(self.family, self.jobs["checked"], self.cluster[1], self.folder / "one-worker")

    @cached_property
    def two(self) -> pd.DataFrame:
        _ = self.one  # first, on the cluster's one worker
        scale(self.name, *self.cluster, 2)
        return run_checked(self.family, self.jobs["checked"], self.cluster[1], self.folder / "two-workers")

    def check_workers(self) -> None:
        check_same_scores(self.family, self.one, self.two, "one worker and two")
        check_local_scores(self.family, self.local, self.two)

    def check_resume(self) -> None:
        check_resume(self.family, self.jobs["checked"], self.cluster[1], self.folder / "two-workers", self.two)

    def check_audit(self) -> None:
        check_audits(self.family, self.jobs["checked"], self.cluster[1].scheduler.address, 2, self.folder / "audits", self.two)

    def check_copy(self) -> None:
        copy, fresh = (run_checked(self.family, self.jobs[which], self.cluster[1], self.folder / which) for which in ("copy", "fresh"))
        check_copy_worse_than_fresh(self.family, copy, fresh)
        check_exposure(self.family, copy.reset_index(), read_predictions(self.folder / "copy"), self.demo.original)

    def check_report(self) -> None:
        check_report(self.family, self.two, self.folder / "report")

    def on_cluster(self, run: Callable[[], None]) -> Callable[[], None]:
        """``run``, after which the cluster and the folder are let go once no check on a cluster is left."""

        def checked() -> None:
            try:
                run()
            finally:
                self.cluster_checks_left -= 1
                if self.cluster_checks_left == 0:
                    self.close()

        return checked

    def close(self) -> None:
        self._resources.close()


def _compares_releases(under: FamilyUnderCheck) -> bool:
    """Whether the family's examples compare a copy with a fresh sample (a broken ``check_examples``
    is the declarations check's to report: the copy check then runs, and fails with it)."""
    try:
        return under.examples.compares_releases
    except ContractError:
        return True


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
