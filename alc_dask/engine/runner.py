"""Running a job: prepare the release once, expand the scenarios, fan them out, write results as
they finish, and skip what an earlier run already finished.
"""

import hashlib
import json
import logging
import os
from collections import Counter, deque
from pathlib import Path

import pandas as pd

from alc_dask.attacks.registry import registered_attacks
from alc_dask.data import Release
from alc_dask.data.fingerprint import data_digest
from alc_dask.engine.addresses import WORKERS_TIMEOUT, EngineError, check_dashboard
from alc_dask.engine.cluster import OnDemandClient
from alc_dask.engine.prepare import prepare_release, release_files
from alc_dask.engine.progress import Progress, say
from alc_dask.engine.task import JobContext, failed_outcome, run_scenarios, skipped_outcome
from alc_dask.families import get_family
from alc_dask.jobs import JobSpec, Scenario, check_files, expand, load_job
from alc_dask.results import COMPACT_ABOVE, ResultStore
from alc_dask.results.check import Damage
from alc_dask.verdict import verdict_of, write_verdict


def run_job(
    spec_or_path: JobSpec | str | os.PathLike,
    scheduler: str | None = None,
    workers: int | None = None,
    out: str | os.PathLike | None = None,
    *,
    progress: bool = True,
    verbose: bool = False,
    client=None,
    dashboard: bool | str = False,
    wait: bool = False,
) -> pd.DataFrame:
    """Run every scenario of a job not yet finished in its output directory; return all its scores.

    What ``alc-dask run`` does: a stopped run resumes where it stopped (finished scenarios are not
    run again), results are written as scenarios finish, and the job's verdict is written beside
    them (``verdict.json``). Start it from a script's ``if __name__ == "__main__":`` block when it
    starts a local cluster: the worker processes import the main module.

    Parameters
    ----------
    spec_or_path : JobSpec or path
        A job file (YAML or JSON; its paths are relative to it) or a validated spec (``alc_dask.jobs.validate_job``).
    scheduler : str, optional
        The address (or scheduler file) of a running Dask cluster; without it, a local cluster.
    workers : int, optional
        Single-threaded worker processes of the local cluster (default: one per core).
    out : path or URL, optional
        The output directory, instead of the spec's ``output``.
    progress, verbose : bool
        Show a progress bar; log each scenario.
    client : distributed.Client, optional
        Run on an existing Dask client instead (default: the current one, if the caller made a
        ``distributed.Client`` and gives neither ``scheduler`` nor ``workers``).
    dashboard : bool or str, default False
        Serve the local cluster's Dask dashboard (True, or an address ``HOST:PORT``).
    wait : bool, default False
        Wait for another run holding the output directory, instead of raising ``FolderBusy``.

    Returns
    -------
    pandas.DataFrame
        One row per scenario of the job, every family's columns; ``status`` is ``ok``, ``failed``
        or ``skipped`` (the release cannot support it; the reason in ``error``).

    Raises
    ------
    JobSpecError
        A job file that cannot be used as written.
    OptionError
        A malformed scheduler or dashboard address.
    FolderBusy
        Another run writes the output directory (unless ``wait``).
    ClusterError
        A cluster that cannot be reached or was lost.

    Examples
    --------
    >>> import yaml
    >>> from alc_dask import run_job
    >>> from alc_dask.testing.truth import truth_releases
    >>> truth = truth_releases(rows=500)
    >>> for name, table in [("members", truth.members), ("copy", truth.releases["copy"]), ("control", truth.control)]:
    ...     table.to_parquet(f"{name}.parquet")
    >>> job = {
    ...     "name": "copy",
    ...     "release": {"original": "members.parquet", "anonymized": ["copy.parquet"], "control": "control.parquet"},
    ...     "scenarios": [{"secret": "occupation", "known": ["age", "sex", "region"]}, {"family": "membership", "attack": "closest_distance"}],
    ...     "output": "results",
    ... }
    >>> with open("job.yaml", "w") as file:
    ...     yaml.safe_dump(job, file)
    >>> scores = run_job("job.yaml", workers=1, progress=False)
    >>> scores[["family", "status", "risk"]]
           family status     risk
    0         alc     ok  serious
    1  membership     ok  at risk
    """
    check_dashboard(dashboard, scheduler)
    spec, source = _as_spec(spec_or_path)
    check_files(spec, source)
    with ResultStore.create(out or spec.output, manifest(spec), wait=wait) as store:
        if store.damaged:
            say(f"{store.files.url}: {rerun_notice(store.damaged)}")
        counted = None
        try:
            with OnDemandClient(client, scheduler, workers, dashboard) as cluster:
                release = prepare_release(spec, cluster)
                scenarios = expand(spec, release, source)
                done = store.completed()
                for scenario in scenarios:
                    if scenario.skipped and scenario.id not in done:
                        store.write(skipped_outcome(scenario, job_context(spec)).scores, None)
                store.flush()
                todo = [s for s in scenarios if s.id not in done and not s.skipped]
                counted = Progress(len(todo), spec.name, progress, verbose)
                if todo:
                    fan_out(cluster.get(), release, todo, job_context(spec), store, counted)
            store.compact(above=COMPACT_ABOVE)
            scores = store.read_scores()
            wanted = {s.id for s in scenarios}
            scores = scores[scores["scenario_id"].isin(wanted)].sort_values("scenario_index").reset_index(drop=True)
            write_verdict(verdict_of(scores, spec.audit.thresholds), store.files.url)
        except KeyboardInterrupt:
            if counted is None or not counted.total:
                raise
            raise counted.interrupted() from None  # while the scenarios ran or after (the cluster closing, the verdict)
    return scores


def rerun_notice(damaged: list[Damage]) -> str:
    """How many scenarios run again because their results were damaged, and why, in one line."""
    counts = [damage.scenarios for damage in damaged]
    known = sum(count for count in counts if count is not None)
    scenarios = f"{known} scenario{'' if known == 1 else 's'}" + (f" and those of {counts.count(None)} unlisted part(s)" if None in counts else "")
    return f"running {scenarios} again, as their results were damaged: {'; '.join(damage.reason for damage in damaged)}"


def fan_out(client, release: Release, scenarios: list[Scenario], context: JobContext, store: ResultStore, progress: Progress) -> None:
    """Scenarios run as tasks on ``client``'s cluster, a batch of them per task (see ``BatchSizing``);
    each outcome is handed to the store as it arrives (which writes them in batched parts, and
    flushes on the way out, Ctrl-C included).

    The release and the job's context are sent once to every worker (again if the cluster loses
    every copy: see ``ScenarioTasks``); tasks receive them as futures, so nothing is re-read per
    scenario. A bounded number of tasks is in flight, so a job of 100 000 scenarios keeps a few
    hundred futures. A task lost with its worker is rerun elsewhere by the scheduler; the client
    writes each scenario once, when its task completes. On Ctrl-C the finished ones are written
    (``run_job`` says how many).
    """
    from distributed import as_completed  # a cluster runs: distributed is loaded already

    tasks = ScenarioTasks(client, release, context)
    threads = sum(client.nthreads().values()) or 1
    sizing = BatchSizing(threads)
    waiting = Backlog(scenarios, tasks.preferred_worker)
    running = as_completed(with_results=True, raise_errors=False, loop=client.loop)

    def submit_next() -> None:
        if waiting:
            worker = tasks.least_busy()
            running.add(tasks.submit(waiting.take(sizing.size(len(waiting)), worker), worker))

    for _ in range((TASKS_PER_THREAD_PARTITIONED if release.partitioned else TASKS_PER_THREAD) * threads):
        submit_next()
    progress.start()
    try:
        for finished in running.batches():
            for future, result in finished:
                tasks.ended(future)
                if future.status == "finished":
                    outcomes = result
                elif again := tasks.retry(future):
                    running.update(again)
                    continue
                else:
                    outcomes = [failed_outcome(scenario, context, tasks.failure(future)) for scenario in tasks.batch_of(future)]
                for outcome in outcomes:
                    store.write(outcome.scores, outcome.predictions)
                    sizing.record(outcome)
                    progress.finished(outcome)
                future.release()
                submit_next()
    except KeyboardInterrupt:
        logging.getLogger("tornado.application").addFilter(_results_cut_off)
        raise
    finally:
        progress.close()
        tasks.cancel()
        store.flush()  # what finished before Ctrl-C or an error is saved


class Backlog:
    """The scenarios not yet submitted, queued by the worker each prefers (``ScenarioTasks.preferred_worker``).

    A worker with room takes a batch of its own queue, where the work its scenarios share is
    remembered (a weak release's ML baselines, trained for the strong release of the same original);
    with its queue empty, of the scenarios no worker prefers; with none of those either, of the
    longest queue of another worker: those scenarios redo the shared work here rather than wait
    behind a busy worker while this one idles. A batch holds the scenarios of one queue."""

    def __init__(self, scenarios: list[Scenario], preferred_worker):
        self._queues: dict[str | None, deque[Scenario]] = {None: deque()}
        for scenario in scenarios:
            self._queues.setdefault(preferred_worker(scenario), deque()).append(scenario)
        self._left = len(scenarios)

    def __len__(self) -> int:
        return self._left

    def take(self, most: int, worker: str | None) -> list[Scenario]:
        """Up to ``most`` scenarios for ``worker``: of its own queue, else of no worker's, else of the longest."""
        queue = self._queues.get(worker) or self._queues[None] or max(self._queues.values(), key=len)
        batch = [queue.popleft() for _ in range(min(most, len(queue)))]
        self._left -= len(batch)
        return batch


def _results_cut_off(record: logging.LogRecord) -> bool:
    """False for the error a result still being fetched logs when Ctrl-C closes its connection
    (the scenario is not written and reruns on resume), so the interrupted run ends in one line."""
    from distributed.comm import CommClosedError
    from tornado.iostream import StreamClosedError

    error = record.exc_info[1] if record.exc_info else None
    return not isinstance(error, CommClosedError | StreamClosedError)


TASKS_PER_THREAD = 2
"""Tasks in flight per worker thread on a copied release: one running, the next already there (a
task is about ``BatchSizing.TASK_SECONDS`` of work, far more than a round trip to the scheduler).
Deeper queues only wait behind a worker that turned out slower: at 4, a 2 000-row check's last
second was one worker's queued scenarios while the other idled."""
TASKS_PER_THREAD_PARTITIONED = 2
"""On a release kept on the workers each scenario's searches are tasks of their own, so two per
thread let one scenario's search run while another trains its baseline."""


class BatchSizing:
    """How many scenarios a task takes: about ``TASK_SECONDS`` of work by the mean time of the
    scenarios finished so far (one until the first finishes), at most a fair share of those left so
    that the workers finish together, and at most ``MOST``.

    Submitting, scheduling and collecting a task costs the client and scheduler milliseconds: for a
    job of many quick scenarios batches make that cost per task, not per scenario, while slow
    scenarios keep a task each. Scores do not depend on the batching: every scenario has its own seed.
    """

    TASK_SECONDS = 0.25
    MOST = 100

    def __init__(self, threads: int):
        self.threads = threads
        self.seconds = 0.0
        self.finished = 0

    def record(self, outcome) -> None:
        elapsed = outcome.scores.get("elapsed_seconds")
        if outcome.ok and elapsed is not None and elapsed >= 0:
            self.seconds += elapsed
            self.finished += 1

    def size(self, remaining: int) -> int:
        if not self.finished:
            return 1
        by_time = int(self.TASK_SECONDS * self.finished / max(self.seconds, 1e-9))
        fair_share = remaining // (2 * self.threads)
        return max(1, min(by_time, fair_share, self.MOST))


class ScenarioTasks:
    """The scenario tasks of one fan-out and what they share: the release and the job's context.

    Scattered data cannot be recomputed: when every worker holding it is gone (the only worker died
    and its nanny restarted it, say), the scheduler cancels the tasks that need it. They are
    resubmitted, the shared data scattered again from the runner's memory (never re-read). A batch
    that fails (a scenario took its worker down, say) is retried one scenario per task, so that only
    the scenario at fault fails.
    """

    RESUBMITS = 3

    def __init__(self, client, release: Release, context: JobContext):
        self.client = client
        self.release = release
        self.context = context
        self.token = os.urandom(4).hex()
        self.submitted: dict[str, tuple[list[Scenario], int, str | None]] = {}
        """Each task's batch, attempt and the worker it was sent to."""
        self.futures = []
        self.shared = self._scatter()
        self.threads = client.nthreads()
        self.workers = sorted(self.threads)
        self._in_flight: Counter[str | None] = Counter()

    def least_busy(self) -> str | None:
        """The worker with the fewest of this fan-out's tasks in flight per thread (None: no worker yet)."""
        return min(self.workers, key=lambda worker: self._in_flight[worker] / self.threads[worker], default=None)

    def submit(self, batch: list[Scenario], worker: str | None, attempt: int = 0):
        """Send ``batch`` to ``worker`` (a preference: the scheduler runs it elsewhere if that worker
        is gone). Keys name the family, so the scheduler learns each family's task durations."""
        key = f"scenarios-{''.join(filter(str.isalpha, batch[0].family.name))}-{self.token}-{len(self.futures)}"
        workers = None if worker is None else [worker]
        future = self.client.submit(run_scenarios, *self.shared, batch, key=key, workers=workers, allow_other_workers=worker is not None)
        self.submitted[key] = (batch, attempt, worker)
        self._in_flight[worker] += 1
        self.futures.append(future)
        return future

    def ended(self, future) -> None:
        """``future`` finished, failed or was cancelled: its worker has room again."""
        self._in_flight[self.submitted[future.key][2]] -= 1

    def batch_of(self, future) -> list[Scenario]:
        return self.submitted[future.key][0]

    def retry(self, future) -> list:
        """New tasks for a cancelled or failed batch (none when it is given up), for no worker in
        particular: the scheduler then hands them out one at a time (tasks sent to a worker all wait
        there, and all fail with it if one of them takes it down again)."""
        batch, attempt, _ = self.submitted[future.key]
        if future.cancelled():
            if attempt >= self.RESUBMITS:
                return []
            if any(shared.status != "finished" for shared in self.shared):
                self.shared = self._scatter()
            return [self.submit(batch, None, attempt + 1)]
        return [self.submit([scenario], None, attempt) for scenario in batch] if len(batch) > 1 else []

    def failure(self, future) -> str:
        """Why a batch given up by ``retry`` failed."""
        if future.cancelled():
            return f"cancelled {self.RESUBMITS + 1} times: the cluster kept losing its copies of the release"
        error = future.exception()  # e.g. KilledWorker: the task took down workers repeatedly
        return f"{type(error).__name__}: {error}"

    def cancel(self) -> None:
        self.client.cancel(self.futures)

    def preferred_worker(self, scenario: Scenario) -> str | None:
        """The worker that runs every scenario with the same reusable work (``shared_work``): a
        preference, never a requirement (``Backlog`` gives such scenarios to a worker that would
        otherwise idle, the scheduler to another worker when this one is gone)."""
        work = scenario.family.shared_work(scenario.seed)
        if work is None or self.release.partitioned or not self.workers:
            return None
        return self.workers[int.from_bytes(hashlib.sha256(work.encode()).digest()[:8], "big") % len(self.workers)]

    def _scatter(self) -> list:
        try:
            return self.client.scatter([self.release, self.context], broadcast=True, hash=False, timeout=WORKERS_TIMEOUT)
        except TimeoutError:
            raise EngineError(f"the cluster had no worker to send the release to for {WORKERS_TIMEOUT}s") from None


def job_context(spec: JobSpec) -> JobContext:
    return JobContext(job=spec.name, release=spec.release.label, attacks=registered_attacks())


def manifest(spec: JobSpec) -> dict:
    """What every stored score depends on, with its fingerprint: the settings (scenarios may be added),
    the data of each release file and the alc_dask version."""
    from alc_dask import __version__  # read when called: the package imports this module as it initializes

    unset = {name for name in ("grouped", "generator") if getattr(spec.release, name) is None}  # releases of earlier versions had none: they still resume
    settings = spec.model_dump(
        mode="json",
        include={"name", "release", "seed"},
        exclude={"release": {"broadcast_limit", "rows_per_part", *unset}},  # where the release is held never changes a score
    )
    for name, family_settings in spec.family_settings().items():
        settings |= get_family(name).scored_settings(family_settings)
    data = {field: data_digest(path, field) for field, path in release_files(spec)}
    fingerprint = hashlib.sha256(json.dumps([settings, data, __version__], sort_keys=True).encode()).hexdigest()[:16]
    return {"job": spec.name, "release": spec.release.label, "fingerprint": fingerprint, "settings": settings, "data": data, "alc_dask": __version__}


def _as_spec(spec_or_path) -> tuple[JobSpec, str]:
    if isinstance(spec_or_path, JobSpec):
        return spec_or_path, spec_or_path.name
    return load_job(spec_or_path), str(Path(spec_or_path))
