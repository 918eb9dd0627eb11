"""Exact copies: how many rows of an anonymized table copy a person of the original, beyond chance?

A released row equal to an original row on every compared column may be that person's record,
released unchanged. People alike coincide by chance too, so the same share is measured on the
control table (people of the same population kept out of the release): the risk is the excess,
``(copy share - control share) / (1 - control share)``, as Anonymeter counts the members' success
beyond the control's (Giomi et al. 2023). Each share has its Wilson score interval (Wilson 1927),
and the risk's interval takes each share at the end of its own that widens it (both shares' error
counted: conservative). The control table should be about as large as the original: a larger one
holds more chance copies.

The verdict flags an evaluation whose risk's interval lies at or above ``threshold`` (a share of
people re-identified: the 0.09 that EMA Policy 0070 uses), passes one wholly below it, and
calls the rest inconclusive, as it does for every family.
"""

from __future__ import annotations

import json
from typing import Annotated

import numpy as np
import pyarrow as pa
from pydantic import Field

from alc_dask.data import ScenarioError
from alc_dask.families import CheckExamples, Evaluation, EvaluationFamily, FamilyParams, HeadlineInterval, Threshold, column
from alc_dask.measure import wilson_interval


class ExactCopiesParams(FamilyParams):
    """What a job's entry of this family may say (unknown keys are errors)."""

    table: Annotated[int, Field(ge=0)] = 0
    """Which anonymized table of the release: its position in ``release.anonymized``."""
    columns: Annotated[tuple[str, ...], Field(min_length=1)] | None = None
    """The columns two rows must agree on; default: every column of the anonymized table."""
    confidence_level: Annotated[float, Field(gt=0, lt=1)] = 0.95


class ExactCopies(EvaluationFamily):
    name = "exact_copies"
    Params = ExactCopiesParams
    headline = "copy_risk"
    fields = (  # each with the one-line description reports and column lists show
        column("compared_columns", pa.string(), "the columns two rows must agree on (JSON list)"),
        column("n_released", pa.int64(), "rows of the anonymized table"),
        column("n_copies", pa.int64(), "released rows equal to a row of the original"),
        column("copy_share", pa.float64(), "share of released rows equal to a row of the original"),
        column("copy_share_low", pa.float64(), "lower end of the copy share's Wilson interval"),
        column("copy_share_high", pa.float64(), "upper end of the copy share's Wilson interval"),
        column("n_control_copies", pa.int64(), "released rows equal to a row of the control table (chance copies)"),
        column("control_share", pa.float64(), "share of released rows equal to a row of the control table"),
        column("control_share_low", pa.float64(), "lower end of the control share's Wilson interval"),
        column("control_share_high", pa.float64(), "upper end of the control share's Wilson interval"),
        column("copy_risk", pa.float64(), "the copy share's excess over the control's: (copy - control) / (1 - control)"),
        column("confidence_level", pa.float64(), "confidence level of the intervals"),
    )

    criterion = "singling out"
    """A released copy of a person's row isolates them (the WP29 criterion it answers in the report)."""
    threshold = Threshold(0.09, "the re-identification risk threshold of EMA Policy 0070 (0.09)")
    scale = "the share of released rows copying a person of the original, beyond the share copying people kept out"

    @classmethod
    def headline_interval(cls, row) -> HeadlineInterval:
        """The risk with its interval: the copy share's low end against the control share's high
        end, and the other way round (0 when the control copies everyone: nothing to tell)."""
        control_low, control_high = float(row["control_share_low"]), float(row["control_share_high"])
        low = max(0.0, (float(row["copy_share_low"]) - control_high) / (1 - control_high)) if control_high < 1 else 0.0
        high = min(1.0, max(0.0, (float(row["copy_share_high"]) - control_low) / (1 - control_low))) if control_low < 1 else 0.0
        return HeadlineInterval(float(row["copy_risk"]), low, high, float(row["n_released"]))

    @classmethod
    def check_examples(cls, columns: tuple[str, ...]) -> CheckExamples:
        """Rows compared on every column, and on four (where chance copies are common)."""
        return CheckExamples([{}, {"columns": list(columns[:4])}])

    @classmethod
    def report_section(cls, scores):
        from exact_copies.section import section

        return section(scores)

    def describe(self) -> str:
        return "exact copies"

    def check(self, release) -> None:
        p = self.params
        if p.table >= len(release.anonymized):
            raise ScenarioError(f"table: {p.table} is not an anonymized table of the release (it has {len(release.anonymized)})")
        if release.control is None:
            raise ScenarioError("exact_copies: the release has no control table (release.control): chance copies are counted on it")
        for table in (release.anonymized[p.table], release.original, release.control):
            missing = [c for c in self._columns(release) if c not in table.columns]
            if missing:
                raise ScenarioError(f"columns: {missing} are not columns of {table.name}")

    def evaluate(self, release, seed: int) -> Evaluation:
        """No randomness: every released row is compared with every row of the original and of the control."""
        self.check(release)
        p = self.params
        columns = self._columns(release)
        released = _rows(release.anonymized[p.table], columns)
        n = len(released)
        copies = _copies(released, _rows(release.original, columns))
        control_copies = _copies(released, _rows(release.control, columns))
        share, control_share = copies / n, control_copies / n
        risk = (share - control_share) / (1 - control_share) if control_share < 1 else float("nan")
        low, high = wilson_interval(n, share, p.confidence_level)
        control_low, control_high = wilson_interval(n, control_share, p.confidence_level)
        return Evaluation(
            {
                "compared_columns": json.dumps(list(columns)),
                "n_released": n,
                "n_copies": copies,
                "copy_share": share,
                "copy_share_low": float(low),
                "copy_share_high": float(high),
                "n_control_copies": control_copies,
                "control_share": control_share,
                "control_share_low": float(control_low),
                "control_share_high": float(control_high),
                "copy_risk": risk,
                "confidence_level": p.confidence_level,
            }
        )

    def _columns(self, release) -> tuple[str, ...]:
        return self.params.columns or tuple(release.anonymized[self.params.table].columns)


def _rows(table, columns: tuple[str, ...]) -> list[bytes]:
    """Each row of ``table`` on ``columns`` as bytes: category codes (shared by the tables of a
    release) and numbers side by side. A table kept on a cluster's workers is gathered whole."""
    whole = table.rows(slice(None))
    return [row.tobytes() for row in np.column_stack([whole.column_array(c).astype(np.float64) for c in columns])]


def _copies(released: list[bytes], people: list[bytes]) -> int:
    """How many released rows equal one of ``people``'s rows."""
    known = set(people)
    return sum(row in known for row in released)
