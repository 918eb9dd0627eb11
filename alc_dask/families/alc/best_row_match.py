"""The best row match attack (Francis & Wagner 2025, §5.2, eq. 9).

A target's matches are the rows, over every anonymized table holding the secret and at least one
known column, at the minimum Gower distance on the known columns (known columns a table lacks
count 0.5 each, as in the reference implementation, where the paper's text counts 1; see
`alc_dask.neighbors.best_match` for the reference's rounding). The prediction is the modal secret
among the matches and the confidence `(1 - d_min) * (modal count / matches)`, rounded to 3 decimals.

When several values are modal, the one more frequent in the searched anonymized tables wins, and
among equally frequent ones a draw seeded by the target's row (and the secret's name): the same
on every run and any number of workers, and leaning toward no value. (Taking the lowest code, as
earlier versions did, leans every tie toward the value sorted first; the reference takes the value
met first among the matches, which depends on the table's row order.)
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace

import numpy as np

from alc_dask.attacks.base import ABSTAINED, AttributeAttack, AttributeTask, Predictions, TargetBlock
from alc_dask.data import Column, Release, ScenarioError
from alc_dask.data.partitioned import SPLIT_EVERY
from alc_dask.measure._checks import check_count


@dataclass(frozen=True, eq=False)
class MatchedTables:
    """What every batch of a scenario's targets is matched against: the usable anonymized tables (none:
    every target abstains), the secret's column and the known columns' names; and the secret's count
    per code in the tables (ties go to the more frequent value) or, predicting numbers, the values
    it takes there."""

    tables: tuple
    secret: Column
    known: list[str]
    frequency: np.ndarray | None = None
    points: object = None


class BestRowMatch(AttributeAttack):
    """Predict a target's secret from its best-matching anonymized rows.

    Parameters follow scikit-learn: set here, never learned. Targets are searched `batch_size` at
    a time (each batch holds a histogram of the secret's codes per target); `split_every` is the
    fan-in of the reduction over partitions.
    """

    def __init__(self, batch_size: int = 1000, split_every: int = SPLIT_EVERY):
        check_count("batch_size", batch_size)
        check_count("split_every", split_every, minimum=2)  # fewer never reduces the partitions
        self.batch_size = batch_size
        self.split_every = split_every

    def prepare(self, release: Release, task: AttributeTask) -> MatchedTables:
        """The tables to search and the secret's counts in them.

        Raises `ScenarioError` when the scenario does not fit the release (see `Release.usable_tables`).
        """
        from alc_dask.neighbors.best_match import secret_frequencies, secret_value_points  # Numba's: imported to search, not to build or check

        if not release.anonymized:
            raise ScenarioError(
                "best_row_match: the release has no anonymized table to match rows in (a group-anonymized release is attacked by bayesian_group)"
            )
        tables = release.usable_tables(task.secret, task.known)
        column, known = release.column(task.secret), [release.column(c).name for c in task.known]
        if not tables:
            return MatchedTables((), column, known)
        if task.tolerance is not None:
            return MatchedTables(tables, column, known, points=secret_value_points(tables, column))
        return MatchedTables(tables, column, known, frequency=secret_frequencies(tables, column))

    def predict(self, prepared: MatchedTables, targets: TargetBlock) -> Predictions:
        """Predictions for the targets; every one abstains when no table holds both the secret and a known column."""
        from alc_dask.neighbors.best_match import best_matches

        release, tolerance = targets.release, targets.task.tolerance
        rows = release.targets(targets.rows, targets.source)
        if not prepared.tables:
            n = rows.n_rows
            return Predictions(np.full(n, ABSTAINED, dtype=np.int32), np.zeros(n), np.ones(n, dtype=bool), np.full(n, np.nan) if tolerance else None)
        if tolerance is not None:
            return self._numbers(prepared, release, rows, tolerance)
        column = prepared.secret
        row_ids = _row_ids(targets.rows, release, targets.source)
        salt = zlib.crc32(f"{targets.source}:{column.name}".encode())
        codes, confidence = [np.empty(0, dtype=np.int32)], [np.empty(0)]
        for start in range(0, rows.n_rows, self.batch_size):
            batch = rows.rows(slice(start, start + self.batch_size))
            matches = best_matches(batch, prepared.tables, column, prepared.known, split_every=self.split_every)
            modal_code = modal_codes(matches.histogram, prepared.frequency, row_ids[start : start + self.batch_size], salt)
            modal = np.take_along_axis(matches.histogram, modal_code[:, None], axis=1)[:, 0]
            codes.append(modal_code)
            fraction = modal / matches.histogram.sum(axis=1)
            confidence.append(np.array([round(float(c), 3) for c in (1.0 - matches.distance) * fraction]))
        return Predictions(np.concatenate(codes), np.concatenate(confidence), np.zeros(rows.n_rows, dtype=bool))

    def _numbers(self, prepared: MatchedTables, release: Release, rows, tolerance) -> Predictions:
        """The median of the matches' values; confidence ``(1 - d_min) * share of matches within the
        tolerance of that median``, the numeric counterpart of the modal share."""
        from alc_dask.neighbors.best_match import best_matches

        column, points = prepared.secret, prepared.points
        span = release.value_span(column.name)
        as_points = replace(column, bins=points)
        values, confidence = [np.empty(0)], [np.empty(0)]
        for start in range(0, rows.n_rows, self.batch_size):
            batch = rows.rows(slice(start, start + self.batch_size))
            matches = best_matches(batch, prepared.tables, as_points, prepared.known, split_every=self.split_every)
            median, share = median_of_matches(matches.histogram, points.points, tolerance, span, column.origin)
            values.append(median)
            confidence.append(np.array([round(float(c), 3) for c in (1.0 - matches.distance) * share]))
        n = rows.n_rows
        return Predictions(np.full(n, ABSTAINED, dtype=np.int32), np.concatenate(confidence), np.zeros(n, dtype=bool), np.concatenate(values))


def median_of_matches(histogram: np.ndarray, points: np.ndarray, tolerance, span: float, origin: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Per row of `histogram` (targets x value codes, the last missing): the lower median of the
    matches' values (NaN when all are missing) and the share of matches within the tolerance of it."""
    present = histogram[:, :-1]
    counts = present.sum(axis=1)
    median_code = np.argmax(2 * np.cumsum(present, axis=1) >= counts[:, None], axis=1)
    median = np.where(counts > 0, points[median_code] if points.size else np.nan, np.nan)
    near = tolerance.correct(points[None, :], median[:, None], span, origin)
    agreeing = np.where(counts > 0, (present * near).sum(axis=1), histogram[:, -1])
    return median, agreeing / histogram.sum(axis=1)


def _row_ids(target_rows, release: Release, source: str) -> np.ndarray:
    """The targets' row numbers in their table, whether given as indices, a slice or a mask."""
    if isinstance(target_rows, slice):
        return np.arange(*target_rows.indices((release.control if source == "control" else release.original).n_rows))
    rows = np.asarray(target_rows)
    return np.flatnonzero(rows) if rows.dtype == bool else rows


def modal_codes(histogram: np.ndarray, frequency: np.ndarray, row_ids: np.ndarray, salt: int) -> np.ndarray:
    """Per row of `histogram` (targets x codes), its modal code; ties go to the code of higher
    `frequency`, then to the code of higher draw, a hash of (target row id, code, salt) in [0, 1)."""
    modal = histogram == histogram.max(axis=1, keepdims=True)
    codes = np.arange(histogram.shape[1], dtype=np.uint64)
    draw = _unit_hash(row_ids.astype(np.uint64)[:, None], codes[None, :], np.uint64(salt))
    key = np.where(modal, frequency[None, :] + draw, -1.0)
    return key.argmax(axis=1).astype(np.int32)


def _unit_hash(rows: np.ndarray, codes: np.ndarray, salt: np.uint64) -> np.ndarray:
    """SplitMix64 of the three, as a float in [0, 1): unrelated to code order or row order."""
    x = rows * np.uint64(0x9E3779B97F4A7C15) + codes * np.uint64(0xBF58476D1CE4E5B9) + salt
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    return (x >> np.uint64(11)).astype(np.float64) / float(2**53)
