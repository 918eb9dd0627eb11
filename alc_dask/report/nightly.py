"""Running a job as an audit: a fresh dated run per audit, compared with the release's previous one.

Audits live under ``<output>/audits/<release>/<stamp>/`` (a local folder or an fsspec URL); each
holds its results, its ``verdict.json``, the release's history up to it (``history.md``,
``history.png``; the latest also in the release's folder) and ``audit-<stamp>.md``, written last. An
audit is complete when its report exists, so an interrupted audit is never taken as the previous one
nor shown in the history; nor is one whose results no longer read back taken as the previous one.
"""

import os
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd

from alc_dask.engine import run_job
from alc_dask.engine.progress import say
from alc_dask.jobs import load_job
from alc_dask.report.audit import AuditDiff, audit_markdown, compare
from alc_dask.report.history import audit_history, complete_audits, history_rows, write_history
from alc_dask.results import ResultsError, read_scores
from alc_dask.results.files import Files, join, read_text, write_file
from alc_dask.verdict import Verdict, read_verdict, verdict_of

STAMP = "%Y-%m-%dT%H%M%SZ"
CLAIM = ".audit-claim"


@dataclass(frozen=True)
class AuditOutcome:
    diff: AuditDiff
    report: Path | str  # a URL when the output is one
    previous: str | None
    verdict: Verdict

    @property
    def markdown(self) -> str:
        return read_text(self.report)

    @property
    def passed(self) -> bool:
        return self.diff.passed and self.verdict.verdict != "flagged"


def run_audit(
    job_path,
    scheduler: str | None = None,
    workers: int | None = None,
    out: str | os.PathLike | None = None,
    *,
    stamp: str | None = None,
    progress: bool = True,
    dashboard: bool | str = False,
    wait: bool = False,
) -> AuditOutcome:
    """Audit the job in ``job_path``; bad input is an error naming that file (the release label is a
    safe folder name, see ``ReleaseSpec.label``). Every audit has a folder of its own: one started
    in the same second as another takes the next free second."""
    spec = load_job(job_path)
    release = spec.release.label
    folder = join(out or spec.output, "audits", release)
    stamp = claim_stamp(folder, stamp or datetime.now(UTC).strftime(STAMP))
    previous, previous_scores, skipped = last_readable_audit(folder, before=stamp)
    scores = run_job(job_path, scheduler=scheduler, workers=workers, out=join(folder, stamp), progress=progress, dashboard=dashboard, wait=wait)
    verdict = verdict_of(scores, spec.audit.thresholds)
    before = None if previous is None else read_verdict(join(folder, previous)) or verdict_of(previous_scores, spec.audit.thresholds)
    diff = compare(scores, verdict, before, worse_by=spec.audit.worse_by, flag_pi_at=spec.audit.flag_pi_at)
    history = pd.concat([audit_history(folder, before=stamp), history_rows(stamp, verdict)], ignore_index=True)
    write_history(history, release, join(folder, stamp), folder)
    report = join(folder, stamp, f"audit-{stamp}.md")
    write_file(report, audit_markdown(diff, release, stamp, previous, skipped, verdict).encode())
    return AuditOutcome(diff, report, previous, verdict)


def claim_stamp(folder: str | os.PathLike, stamp: str) -> str:
    """``stamp``, or the first later second no other audit has claimed (claims are exclusive creates)."""
    files = Files(folder)
    while True:
        files.makedirs(files.path(stamp))
        if files.create_exclusive(files.path(stamp, CLAIM), b""):
            return stamp
        stamp = (datetime.strptime(stamp, STAMP) + timedelta(seconds=1)).strftime(STAMP)


def last_readable_audit(folder: str | os.PathLike, before: str) -> tuple[str | None, pd.DataFrame | None, list[str]]:
    """The latest complete audit earlier than ``before`` whose scores read back, its scores, and the
    later ones skipped because theirs do not (a part cut short since, say), each named on stderr."""
    skipped = []
    for stamp in reversed(complete_audits(folder, before)):
        try:
            return stamp, read_scores(join(folder, stamp)), skipped
        except ResultsError as error:
            say(f"{join(folder, stamp)}: audit skipped, comparing with an earlier one: {error}")
            skipped.append(stamp)
    return None, None, skipped
