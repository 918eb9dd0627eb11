"""``alc-dask stress JOB``: how sensitive the job's baselines are to dependent records.

For every secret and known columns of the job's ALC scenarios, the replication stress test
(``baseline.dependence``) on the job's cluster, one task per secret; and, once for the release,
the share of original records with a suspiciously close neighbour. Written as a Parquet table
(every measurement) and a Markdown page (the table per secret and model).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from alc_dask.baseline import BaselineSettings
from alc_dask.baseline.dependence import COPIES, SHARES, TARGETS, NearDuplicates, check_replications, near_duplicates, replication_stress, stress_table
from alc_dask.data import Release
from alc_dask.families.alc.family import AlcFamily
from alc_dask.families.alc.settings import to_settings
from alc_dask.jobs import JobSpec, JobSpecError, expand
from alc_dask.report.render import markdown_table
from alc_dask.results.files import join, write_file

NEAR_DUPLICATE_RATIO = 0.5


@dataclass(frozen=True)
class StressReport:
    results: pd.DataFrame
    """Every measurement: secret, model, share, copies, precision."""
    near: NearDuplicates

    @property
    def table(self) -> pd.DataFrame:
        return stress_table(self.results)

    def markdown(self, job: str) -> str:
        near = self.near
        lines = [
            f"# Dependent records: {job}",
            "",
            f"Near duplicates: {near.suspicious} of {near.sampled} sampled original records ({near.share:.1%}) have a closest other record "
            f"nearer than {near.ratio:g} times the next closest (`baseline_settings.near_duplicate_ratio` leaves such records out of the baseline's training rows).",
            "",
            "Baseline precision (Wilson midpoint, every held-out target predicted) without copies and with a share of the rows copied n times; "
            "`largest move` is the largest change from no copies. A model whose precision climbs with the copies learns from dependent records.",
            "",
            markdown_table(self.table.round(3)),
        ]
        return "\n".join(lines) + "\n"


def stress_job(
    spec: JobSpec, release: Release, client, shares: Sequence[float] = SHARES, copies: Sequence[int] = COPIES, targets: int = TARGETS
) -> StressReport:
    """The stress test of every distinct (secret, known columns) of the job's ALC scenarios, one task each on ``client``."""
    check_replications(shares, copies)
    pairs, settings = {}, None
    for scenario in expand(spec, release):
        if isinstance(scenario.family, AlcFamily) and not scenario.skipped:
            p = scenario.params
            pairs.setdefault((p.secret, tuple(sorted(p.known))), None)
            settings = settings or to_settings(p.baseline_settings, BaselineSettings)
    if not pairs:
        raise JobSpecError("the job has no attribute-inference (alc) scenario to stress")
    shared = client.scatter(release, broadcast=True)
    tasks = [
        client.submit(replication_stress, shared, secret, known, settings, spec.seed, tuple(shares), tuple(copies), targets, pure=False)
        for secret, known in pairs
    ]
    results = pd.concat(client.gather(tasks), ignore_index=True)
    return StressReport(results, near_duplicates(release.original, release.original.columns, NEAR_DUPLICATE_RATIO, seed=spec.seed))


def write_stress(report: StressReport, folder: str, job: str) -> dict[str, str]:
    """``stress.parquet`` and ``stress.md`` in ``folder`` (a local folder or an fsspec URL)."""
    paths = {"results": join(folder, "stress.parquet"), "markdown": join(folder, "stress.md")}
    write_file(paths["results"], report.results.to_parquet(index=False))
    write_file(paths["markdown"], report.markdown(job).encode())
    return paths
