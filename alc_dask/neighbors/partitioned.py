"""One map over a table's blocks and one tree reduce, for every search of the nearest-rows stack.

A search (`BestMatchSearch`, `KNearestSearch`) knows how to search one block of rows with the
kernel and how to combine the partial results of several blocks. A whole table (`EncodedTable`) is
searched in process; a `PartitionedTable` with one Dask task per block, where the block is held,
and the blocks' results are combined in a tree of `split_every` partials per task. Every combination
is exact (minimum, equality, integer addition, ordering by distance and row index), so the answer
is the same for one partition or a thousand, in process or on a cluster.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Protocol

import dask
from dask.base import tokenize

from alc_dask.data import EncodedTable
from alc_dask.data.partitioned import SPLIT_EVERY, PartitionedTable, compute, tree_reduce


class Search(Protocol):
    """A batch of queries laid out for one table, with the kernel's reducer for it."""

    def block(self, block: EncodedTable, start: int):
        """The result over one block whose first row is row `start` of the table."""

    @staticmethod
    def combine(*partials):
        """The result over the blocks of `partials`."""


def search_tables(searches: Sequence[tuple[EncodedTable | PartitionedTable, Search]], split_every: int = SPLIT_EVERY, shared_as: Hashable = None) -> list:
    """The result of each search over its table, the partitioned tables' searches computed
    together on the cluster holding their blocks (in process when they are not futures: a block's
    future carries its client, so no client is passed down).

    `shared_as` names the searches (the caller vouches that the same name means the same queries):
    a partitioned table's tasks are then keyed by it and the table, so evaluations running the same
    search at the same time on a cluster get it computed once.
    """
    results, delayed = {}, {}
    for i, (table, search) in enumerate(searches):
        if isinstance(table, PartitionedTable):
            delayed[i] = tree_reduce(_block_tasks(table, search, shared_as), search.combine, split_every)
        else:
            results[i] = search.block(table, 0)
    if delayed:
        blocks = searches[next(iter(delayed))][0].blocks
        results.update(zip(delayed, compute(blocks, *delayed.values()), strict=True))
    return [results[i] for i in range(len(searches))]


def search_block(block: EncodedTable, search: Search, start: int):
    """The task of one block (its key says what runs where)."""
    return search.block(block, start)


def _block_tasks(table: PartitionedTable, search: Search, shared_as: Hashable) -> list:
    blocks_and_starts = zip(table.blocks, table.starts, strict=True)
    if shared_as is None:
        shared = dask.delayed(search, pure=False)  # a block held on a worker is searched there, so it never moves
        return [dask.delayed(search_block, pure=False)(b, shared, start) for b, start in blocks_and_starts]
    blocks = [getattr(b, "key", b) for b in table.blocks]  # a future by its key: the same in every process
    token = tokenize(shared_as, table.name, table.starts, blocks)
    shared = dask.delayed(search, name=f"search-{token}")
    return [dask.delayed(search_block)(b, shared, start, dask_key_name=f"search_block-{token}-{i}") for i, (b, start) in enumerate(blocks_and_starts)]
