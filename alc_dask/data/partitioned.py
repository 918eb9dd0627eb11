"""`PartitionedTable`: an encoded table as blocks of consecutive rows, held in process or by the
workers of a Dask cluster (each row held once), with what the search needs to know of the whole
table without gathering it: row count, where each block starts, and every continuous column's
min/max over the whole table.

Rows and columns are gathered on demand (targets, training samples, a secret's codes), each block
contributing its share through one Dask task. Dask is imported then: loading a job needs none of it.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np

from alc_dask.data.table import EncodedTable

SPLIT_EVERY = 8
"""Partial results combined per task of the reduction tree of a search over partitions."""


@dataclass(frozen=True, eq=False)
class PartitionedTable:
    name: str
    categorical: tuple[str, ...]
    continuous: tuple[str, ...]
    value_min: np.ndarray
    value_max: np.ndarray
    n_rows: int
    starts: tuple[int, ...]
    """Index of each block's first row in the table."""
    blocks: tuple
    """`EncodedTable`s, or futures of them on a Dask cluster."""

    @property
    def columns(self) -> tuple[str, ...]:
        return self.categorical + self.continuous

    def rows(self, index: slice | np.ndarray) -> EncodedTable:
        """The given rows (indices in their order, a slice or a boolean mask), gathered from the blocks that hold them."""
        import dask

        wanted = np.arange(self.n_rows)[index] if isinstance(index, slice) or np.asarray(index).dtype == bool else np.asarray(index, dtype=np.int64)
        if wanted.size and (wanted.min() < 0 or wanted.max() >= self.n_rows):
            raise IndexError(f"row index out of range for {self.name} ({self.n_rows} rows)")
        block_of = np.searchsorted(self.starts, wanted, side="right") - 1
        touched = np.unique(block_of)
        pieces = [dask.delayed(_block_rows, pure=False)(self.blocks[b], _compact(wanted[block_of == b] - self.starts[b])) for b in touched]
        gathered = compute(self.blocks, *pieces)
        code_type = np.result_type(np.int8, *(piece_codes.dtype for piece_codes, _ in gathered))  # the blocks' narrow codes, as a table held whole keeps them
        codes = np.empty((len(self.categorical), wanted.size), dtype=code_type)
        values = np.empty((len(self.continuous), wanted.size), dtype=np.float64)
        for b, (piece_codes, piece_values) in zip(touched, gathered, strict=True):
            codes[:, block_of == b] = piece_codes
            values[:, block_of == b] = piece_values
        return EncodedTable(self.name, self.categorical, self.continuous, codes, values, self.value_min, self.value_max)

    def column_array(self, name: str) -> np.ndarray:
        """Every row's codes (categorical) or values (continuous) of column `name`."""
        import dask

        return np.concatenate(compute(self.blocks, *(dask.delayed(_block_column, pure=False)(b, name) for b in self.blocks)))

    def map_blocks(self, function, *args) -> list:
        """`function(block, *args)` of every block, computed where the blocks are."""
        import dask

        return list(compute(self.blocks, *(dask.delayed(function, pure=False)(b, *args) for b in self.blocks)))


def whole(table) -> EncodedTable:
    """`table` in this process: as it is, or gathered from its blocks (for evaluations that need
    every row at hand, such as the WP29 evaluators; memory permitting).

    Gathered from a cluster's blocks, it is shared: every evaluation in this process that asks for
    it while another holds it gets the same copy, read-only (a worker running several evaluations
    of a 1e7-row release held one copy per evaluation, and ran out of memory). It is freed when the
    last of them lets it go."""
    if isinstance(table, EncodedTable):
        return table
    key = tuple(getattr(block, "key", None) for block in table.blocks)
    if None in key:  # blocks held in this process: gathered for the caller alone
        return table.rows(slice(None))
    with _out_of_the_thread_pool():  # waiting for another task's gathering frees this thread for its part tasks
        return _gathered_once(key, table)


_GATHERED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
"""Whole tables gathered from a cluster's blocks, by their blocks' keys, while anyone holds them."""
_BEING_GATHERED: set[tuple] = set()
_GATHERING = threading.Condition()


def _gathered_once(key: tuple, table: PartitionedTable) -> EncodedTable:
    """``table`` gathered, or the copy gathered already (waiting while another thread gathers it)."""
    with _GATHERING:
        _GATHERING.wait_for(lambda: key not in _BEING_GATHERED)
        held = _GATHERED.get(key)
        if held is not None:
            return held
        _BEING_GATHERED.add(key)
    try:
        held = _read_only(table.rows(slice(None)))
        return held
    finally:
        with _GATHERING:
            if held is not None:
                _GATHERED[key] = held
            _BEING_GATHERED.discard(key)
            _GATHERING.notify_all()


def _read_only(table: EncodedTable) -> EncodedTable:
    for array in (table.codes, table.values):
        array.flags.writeable = False
    return table


def tree_reduce(parts: list, combine, split_every: int = SPLIT_EVERY):
    """``parts`` (delayed) combined ``split_every`` at a time by ``combine(*parts)``, level by level,
    to one delayed result: no task holds more than ``split_every`` parts' results at once."""
    import dask

    while len(parts) > 1:
        parts = [dask.delayed(combine, pure=True)(*parts[i : i + split_every]) for i in range(0, len(parts), split_every)]
    return parts[0]


def holding_client(release):
    """The Dask client whose cluster holds the release's partitioned tables (their blocks' futures
    carry it), or None when every table is in this process."""
    tables = (release.original, *release.anonymized, release.control)
    clients = (_client_of(t.blocks) for t in tables if isinstance(t, PartitionedTable))
    return next((client for client in clients if client is not None), None)


def _client_of(blocks: Sequence):
    """The client the blocks' futures carry; None for blocks held in this process."""
    return getattr(blocks[0], "client", None) if blocks else None


def compute(blocks: Sequence, *delayed) -> tuple:
    """Compute `delayed` where `blocks` are: futures bound to a client on it, tables held in this
    process in this thread, anything else (a future sent to a worker, whose client binds late) by
    Dask's default, which in a worker's task is that worker's client.

    Tables held here in this thread, not by Dask's default: in a task on a worker the default sent
    a scenario's small tasks (a disclosure's counts of in-memory tables) to the scheduler, to wait
    behind every other scenario while the task held its thread (a check of 30 000 rows: 7.6 s for
    0.1 s of work)."""
    import dask

    client = _client_of(blocks)
    if client is None:
        held_here = all(isinstance(block, EncodedTable) for block in blocks)
        return dask.compute(*delayed, scheduler="synchronous" if held_here else None)
    with _out_of_the_thread_pool():
        return tuple(client.compute(list(delayed), sync=True))


@contextmanager
def _out_of_the_thread_pool():
    """In a task on a worker (a scenario), leave the worker's thread pool while the block tasks run
    and rejoin it after: they need its threads, and the task's own work (training a baseline, say)
    must keep to its thread rather than compete with the searches of other scenarios for the cores."""
    from distributed import get_worker, worker_client  # a cluster's blocks: distributed is loaded already

    try:
        get_worker()
    except ValueError:  # on the client
        yield
        return
    with worker_client():
        yield


@dataclass(frozen=True)
class RowMask:
    """Increasing rows of a block as one bit per row up to the last (``np.packbits``)."""

    bits: np.ndarray
    length: int

    def positions(self) -> np.ndarray:
        return np.flatnonzero(np.unpackbits(self.bits, count=self.length))


def _block_rows(block: EncodedTable, local: np.ndarray | slice | RowMask) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(local, RowMask):
        local = local.positions()
    return block.codes[:, local], block.values[:, local]


def _compact(local: np.ndarray) -> np.ndarray | slice | RowMask:
    """The rows a task gathers from a block, as few bytes as the graph can carry them in: consecutive
    rows as a slice (3e6 rows' indices made every gathering graph 23 MiB), increasing rows of which
    more than one in 64 is taken as a bit mask (the density-ratio attack's random half of a control
    of 1e7 rows made a graph of 38 MiB), others as they are."""
    consecutive = local.size > 1 and local[-1] - local[0] == local.size - 1 and bool(np.all(np.diff(local) == 1))
    if consecutive:
        return slice(int(local[0]), int(local[-1]) + 1)
    if local.size > 1 and 64 * local.size > local[-1] and bool(np.all(np.diff(local) > 0)):
        mask = np.zeros(int(local[-1]) + 1, dtype=bool)
        mask[local] = True
        return RowMask(np.packbits(mask), mask.size)
    return local


def _block_column(block: EncodedTable, name: str) -> np.ndarray:
    return block.column_array(name)


def partition_table(table: EncodedTable, rows_per_partition: int, client=None) -> PartitionedTable:
    """Split `table` into blocks; with a `distributed.Client`, scatter them to its workers."""
    if rows_per_partition < 1:
        raise ValueError(f"rows_per_partition must be at least 1, got {rows_per_partition}")
    blocks = table.split(rows_per_partition)
    starts = tuple(range(0, max(table.n_rows, 1), rows_per_partition))
    if client is not None:
        blocks = client.scatter(blocks)
    return PartitionedTable(table.name, table.categorical, table.continuous, table.value_min, table.value_max, table.n_rows, starts, tuple(blocks))


def partition(release, rows_per_partition: int, client=None):
    """`release` with every table partitioned (and scattered, given a client)."""
    control = release.control
    return replace(
        release,
        original=partition_table(release.original, rows_per_partition, client),
        anonymized=tuple(partition_table(t, rows_per_partition, client) for t in release.anonymized),
        control=None if control is None else partition_table(control, rows_per_partition, client),
    )
