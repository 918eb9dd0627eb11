"""Near copies (``alc_dask.measure.nearer``): each released row's nearest neighbour, among the
members or among the release's other rows, searched among as many of each on every released column.

A release that copies, barely perturbs or swaps its members puts their rows next to them; a
release of other people, or of any generator that learned the population rather than its members,
does not. Where a membership attack scores people and needs people not in the release to compare
with, this test scores the released rows and needs none: the release is compared with itself, so it
catches a near copy without a control table (a 20% noisy copy of adult checked without one scored a
near-copy share of 0.35; every release of other people of the calibration −0.16 or less).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Annotated

import numpy as np
import pyarrow as pa
from pydantic import Field

from alc_dask.data import Release, ScenarioError
from alc_dask.families.base import CheckExamples, Evaluation, EvaluationFamily, FamilyParams, HeadlineInterval, column
from alc_dask.families.wp29.common import ChosenColumns, check_columns
from alc_dask.measure.interval import wilson_interval
from alc_dask.measure.nearer import nearer_share
from alc_dask.measure.verdict import Threshold, one_sided
from alc_dask.seeds import sample_rows, stream

NEAR_COPIES = Threshold(
    0.1,
    "alc_dask's: a tenth of released rows beside a member beyond chance; a release holding no member scores 0 at most (Schilling 1986, §2)",
)
"""From a tenth of the released rows sitting by a member beyond chance the release is flagged. A
release of other people scores at most 0 whatever made it (``measure.nearer``); the calibration's
scored −0.16 or less, and its 20% noisy copies and swaps 0.18 or more."""

NEAR_COPIES_FIELDS = (
    column("known", pa.string(), "the columns searched, as a sorted JSON list"),
    column("n_rows", pa.int64(), "released rows asked where their nearest neighbour is"),
    column("n_searched", pa.int64(), "rows searched on each side: as many members as other released rows"),
    column("nearer", pa.float64(), "share of the released rows asked whose nearest neighbour is a member rather than another released row (ties half)"),
    column("ties", pa.float64(), "share of the released rows asked as near to a member as to another released row"),
    column(
        "near_copy_share",
        pa.float64(),
        "2 x nearer - 1: the share of released rows sitting by a member beyond chance (at most 0 for a release of other people)",
    ),
    column("near_copy_share_low", pa.float64(), "lower end of the near-copy share's interval (Wilson's, of nearer)"),
    column("near_copy_share_high", pa.float64(), "upper end of the near-copy share's interval"),
    column("median_to_member", pa.float64(), "median Gower distance of a released row to its nearest member"),
    column("median_to_released", pa.float64(), "median Gower distance of a released row to its nearest other released row"),
    column("confidence_level", pa.float64(), "confidence level of the interval"),
)


class NearCopiesParams(FamilyParams):
    columns: ChosenColumns | None = None
    """Columns searched; default: every column of the anonymized table."""
    table: Annotated[int, Field(ge=0)] = 0
    """Which anonymized table of the release is measured."""
    n_rows: Annotated[int, Field(ge=1)] = 20_000
    """Released rows asked at most (a seeded sample of the rows searched)."""
    sample_seed: Annotated[int, Field(ge=0)] = 0
    confidence_level: Annotated[float, Field(gt=0, lt=1)] = 0.95


class NearCopies(EvaluationFamily):
    name = "near_copies"
    criterion = "membership"
    Params = NearCopiesParams
    fields = NEAR_COPIES_FIELDS
    headline = "near_copy_share"
    threshold = NEAR_COPIES
    scale = "the share of released rows nearer to a member than to another released row, beyond chance"

    @classmethod
    def battery(cls, tables):
        """Always, with a control table or without: the release is its own comparison."""
        return [{"family": cls.name}]

    @classmethod
    def headline_interval(cls, row):
        """The stored interval, and the one-sided upper bound a pass is read from (Wilson's, of the nearer share)."""
        n_rows, level = int(row["n_rows"]), one_sided(float(row["confidence_level"]))
        pass_high = 2 * wilson_interval(n_rows, float(row["nearer"]), level)[1] - 1 if n_rows else float("nan")
        return HeadlineInterval(float(row["near_copy_share"]), float(row["near_copy_share_low"]), float(row["near_copy_share_high"]), float(n_rows), pass_high)

    @classmethod
    def evidence(cls, row) -> str:
        return (
            f"{float(row['nearer']):.1%} of released rows lie nearer to a member than to another released row "
            f"(a release of other people: 50% at most), a near-copy share of {float(row['near_copy_share']):.3f}"
        )

    @classmethod
    def check_examples(cls, columns: tuple[str, ...]) -> CheckExamples:
        """Every column, and three of them."""
        return CheckExamples([{}, {"columns": list(columns[:3]), "n_rows": 200}])

    @classmethod
    def report_section(cls, scores):
        from alc_dask.families.near_copies.section import section

        return section(cls.name, scores)

    def describe(self) -> str:
        return "near copies"

    def check(self, release: Release) -> None:
        p = self.params
        if p.table >= len(release.anonymized):
            raise ScenarioError(f"near_copies: table: {p.table} is not an anonymized table of the release (it has {len(release.anonymized)})")
        anonymized = release.anonymized[p.table]
        check_columns(release, anonymized, "columns", self._columns(release))
        if anonymized.n_rows < 2:
            raise ScenarioError(f"near_copies: the anonymized table {anonymized.name} has {anonymized.n_rows} row: a row needs another to be compared with")

    def evaluate(self, release: Release, seed: int) -> Evaluation:
        self.check(release)
        from alc_dask.neighbors.nearest import k_nearest

        p, columns = self.params, self._columns(release)
        original, released = _on_one_range(release.original, release.anonymized[p.table])
        searched = min(original.n_rows, released.n_rows - 1)
        rng = stream(p.sample_seed, "near copies")
        pool = sample_rows(released.n_rows, searched + 1, rng)
        asked = np.sort(rng.choice(pool.size, min(p.n_rows, pool.size), replace=False))
        queries = released.rows(pool[asked])
        to_members, _ = k_nearest(queries, original.rows(sample_rows(original.n_rows, searched, rng)), columns, 1)
        candidates = released if pool.size == released.n_rows else released.rows(pool)
        to_pool, rows = k_nearest(queries, candidates, columns, 2)
        other = np.where(rows[:, 0] == asked, 1, 0)  # a row's own place, wherever a twin puts it, left out
        to_released = to_pool[np.arange(asked.size), other]
        share = nearer_share(to_members[:, 0], to_released, p.confidence_level)
        return Evaluation(
            {
                "known": json.dumps(sorted(columns)),
                "n_rows": share.n_rows,
                "n_searched": searched,
                "nearer": share.nearer,
                "ties": share.ties,
                "near_copy_share": share.near_copy_share,
                "near_copy_share_low": share.low,
                "near_copy_share_high": share.high,
                "median_to_member": float(np.median(to_members[:, 0])),
                "median_to_released": float(np.median(to_released)),
                "confidence_level": p.confidence_level,
            }
        )

    def _columns(self, release: Release) -> tuple[str, ...]:
        return tuple(self.params.columns) if self.params.columns else tuple(release.anonymized[self.params.table].columns)


def _on_one_range(original, released):
    """Both tables with each continuous column's range over the two, so that a distance to a member
    and a distance to a released row are on one scale (the search scales by the candidates' range)."""
    bounds = {}
    for table in (original, released):
        for i, name in enumerate(table.continuous):
            low, high = bounds.get(name, (np.nan, np.nan))
            bounds[name] = (np.fmin(low, table.value_min[i]), np.fmax(high, table.value_max[i]))

    def widened(table):
        low, high = (np.array([bounds[name][end] for name in table.continuous], dtype=float) for end in (0, 1))
        return replace(table, value_min=low, value_max=high)

    return widened(original), widened(released)
