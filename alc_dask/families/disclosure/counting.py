"""The disclosure measures of coded tables over their blocks: each table counted per (key, target)
and hash bucket of the key (``alc_dask.data.key_counts``), each bucket measured by one task
against the release's counts of the same bucket, the buckets' counts summed; then, in a second
pass, the original's records that are DiSCO (their key and target is a release key's only target).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from alc_dask.data.key_counts import BUCKETS, bucket_counts, first_rows, rows_in
from alc_dask.data.partitioned import compute
from alc_dask.measure.disclosure import COUNT, DisclosureCounts, disclosure_counts


@dataclass(frozen=True)
class DisclosureFound:
    original: DisclosureCounts
    control: DisclosureCounts | None
    disco_rows: np.ndarray
    """The first DiSCO records of the original (their rows), at most the limit asked."""
    n_disco_rows: int


def _bucket(original: pd.DataFrame, release: pd.DataFrame, control: pd.DataFrame | None, keys: tuple, target: str | None):
    """One bucket's counts for the original and the control, and the release's disclosive cells."""
    counts = disclosure_counts(original, release, list(keys), target)
    against_control = disclosure_counts(control, release, list(keys), target) if control is not None else None
    if target is None:
        return counts, against_control, release.iloc[:0][list(keys)]
    cells = release[release[COUNT] > 0]
    single = cells.groupby(list(keys), sort=False)[target].transform("size") == 1
    return counts, against_control, cells.loc[single, [*keys, target]]


def _summed(results: Sequence) -> tuple[DisclosureCounts, DisclosureCounts | None]:
    original = sum((r[0] for r in results), DisclosureCounts())
    control = sum((r[1] for r in results), DisclosureCounts()) if results and results[0][1] is not None else None
    return original, control


def _disclosive(results: Sequence) -> pd.DataFrame:
    return pd.concat([r[2] for r in results], ignore_index=True)


def measure_disclosure(
    blocks: Sequence,
    original: Sequence,
    release: Sequence,
    control: Sequence | None,
    keys: Sequence[str],
    target: str | None,
    max_records: int,
    buckets: int = BUCKETS,
) -> DisclosureFound:
    """The measures of the delayed coded frames of the original, the release and the control
    (None: no control table). ``blocks``: what the frames are made from (a cluster's futures make
    the work run on that cluster)."""
    import dask

    keys = tuple(keys)
    by = (*keys, target) if target else keys
    tables = [bucket_counts(frames, by, keys, buckets) for frames in (original, release) + ((control,) if control is not None else ())]
    per_bucket = [
        dask.delayed(_bucket, pure=False)(tables[0][b], tables[1][b], tables[2][b] if control is not None else None, keys, target) for b in range(buckets)
    ]
    summed = dask.delayed(_summed, pure=False)(per_bucket)
    if target is None or max_records == 0:
        (counts, control_counts), *_ = compute(blocks, summed)
        return DisclosureFound(counts, control_counts, np.zeros(0, dtype=np.int64), counts.disco)
    (counts, control_counts), *found = compute(blocks, summed, *rows_in(original, dask.delayed(_disclosive, pure=False)(per_bucket), max_records))
    rows, n_rows = first_rows(found, max_records)
    return DisclosureFound(counts, control_counts, rows, n_rows)
