"""The disclosure measures of coded tables over their blocks, for several key sets in one shared
pass (``alc_dask.data.packed_keys``): every block coded once, each key set's records counted per
packed key (and target) in the same task, the blocks' counts summed by a tree of tasks per key set
and table, then each key set measured by one task against the release's counts; in a last pass,
the original's records that are DiSCO (their key and target is a release key's only target).

Counts are integers summed in any order and codes are ranks among the values of every block, so
the measures are the same on any number of partitions and workers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from alc_dask.data.key_counts import first_rows, matching_rows
from alc_dask.data.packed_keys import Packing, Vocabulary, distinct_values, summed
from alc_dask.data.partitioned import SPLIT_EVERY, compute, tree_reduce
from alc_dask.measure.disclosure import COUNT, DisclosureCounts, disclosure_counts


@dataclass(frozen=True)
class DisclosureFound:
    original: DisclosureCounts
    control: DisclosureCounts | None
    disco_rows: np.ndarray
    """The first DiSCO records of the original (their rows), at most the limit asked."""
    n_disco_rows: int


def _block_counts(frame: pd.DataFrame, vocabulary: Vocabulary, packings: Sequence[Packing]) -> list[pd.Series]:
    """One block's counts for every key set, its columns coded once."""
    codes = vocabulary.codes(frame, vocabulary.values.keys())
    return [packing.counts(codes) for packing in packings]


def _table_counts(frames: Sequence, vocabulary: Vocabulary, packings: Sequence[Packing], split_every: int) -> list:
    """Delayed counts of a table for each key set, summed over its blocks by a tree of tasks."""
    import dask

    per_block = [dask.delayed(_block_counts, pure=False, nout=len(packings))(f, vocabulary, packings) for f in frames]
    return [tree_reduce([counts[i] for counts in per_block], summed, split_every) for i in range(len(packings))]


def _measured(packing: Packing, original: pd.Series, release: pd.Series, control: pd.Series | None):
    """A key set's counts for the original and the control, and the release's disclosive cells."""
    names, target = list(packing.names), packing.target
    original, release = packing.frame(original), packing.frame(release)
    counts = disclosure_counts(original, release, names, target)
    against_control = disclosure_counts(packing.frame(control), release, names, target) if control is not None else None
    if target is None:
        return counts, against_control, release.iloc[:0][names]
    cells = release[release[COUNT] > 0]
    single = cells.groupby(names, sort=False)[target].transform("size") == 1
    return counts, against_control, cells.loc[single, [*names, target]]


def _disco_rows(frame: pd.DataFrame, vocabulary: Vocabulary, packings: Sequence[Packing], results: Sequence, limit: int) -> list:
    """One block's first DiSCO rows and their count, per key set."""
    codes = vocabulary.codes(frame, vocabulary.values.keys())
    return [matching_rows(packing.key_frame(codes, frame.index), cells, limit) for packing, (_, _, cells) in zip(packings, results)]


def measure_key_sets(
    blocks: Sequence,
    original: Sequence,
    release: Sequence,
    control: Sequence | None,
    key_sets: Sequence[Sequence[str]],
    target: str | None,
    max_records: int,
    split_every: int = SPLIT_EVERY,
) -> list[DisclosureFound]:
    """The measures of each key set (with ``target``) of the delayed coded frames of the original,
    the release and the control (None: no control table), in one pass over the blocks.

    ``blocks``: what the frames are made from (a cluster's futures make the work run on that
    cluster). A key set whose codes do not pack into an int64 is counted on its code columns.
    """
    import dask

    tables = (original, release) + ((control,) if control is not None else ())
    columns = tuple(dict.fromkeys(c for keys in key_sets for c in (*keys, *((target,) if target else ()))))
    parts = compute(blocks, *(dask.delayed(distinct_values, pure=False)(f, columns) for frames in tables for f in frames))
    vocabulary = Vocabulary.of(parts)
    packings = [Packing.of(vocabulary, keys, target) for keys in key_sets]
    counts = [_table_counts(frames, vocabulary, packings, split_every) for frames in tables]
    measured = [
        dask.delayed(_measured, pure=False)(packing, counts[0][i], counts[1][i], counts[2][i] if control is not None else None)
        for i, packing in enumerate(packings)
    ]
    if target is None or max_records == 0:
        results = compute(blocks, *measured)
        return [DisclosureFound(o, c, np.zeros(0, dtype=np.int64), o.disco) for o, c, _ in results]
    rows = [dask.delayed(_disco_rows, pure=False)(f, vocabulary, packings, measured, max_records) for f in original]
    computed = compute(blocks, *measured, *rows)
    results, per_block = computed[: len(measured)], computed[len(measured) :]
    found = []
    for i, (o, c, _) in enumerate(results):
        first, n_rows = first_rows([block[i] for block in per_block], max_records)
        found.append(DisclosureFound(o, c, first, n_rows))
    return found


def measure_disclosure(
    blocks: Sequence, original: Sequence, release: Sequence, control: Sequence | None, keys: Sequence[str], target: str | None, max_records: int
) -> DisclosureFound:
    """``measure_key_sets`` of one key set."""
    return measure_key_sets(blocks, original, release, control, [tuple(keys)], target, max_records)[0]
