"""The disclosure family's scenario generator: every key set of a list of quasi-identifiers up to a size."""

from __future__ import annotations

from itertools import combinations
from math import comb
from typing import Annotated, Literal

from pydantic import Field

from alc_dask.errors import JobSpecError
from alc_dask.families.planning import Generator, PlanContext, Planned, checked, column_named

MAX_SETS = 10_000
"""Key sets one entry may make: beyond, the entry is refused rather than planned for hours."""


class KeySets(Generator):
    """Every set of ``min_size`` to ``max_size`` of ``columns``, each an evaluation of the
    ``disclosure`` family with the other keys as its parameters."""

    family: Literal["disclosure"] = "disclosure"
    generate: Literal["key_sets"]
    columns: Annotated[list[str], Field(min_length=1)]
    min_size: Annotated[int, Field(ge=1)] = 1
    max_size: Annotated[int, Field(ge=1)] = 3
    target: str | None = None
    bins: dict[str, Annotated[tuple[float, ...], Field(min_length=1)]] = {}
    table: Annotated[int, Field(ge=0)] = 0
    confidence_level: Annotated[float, Field(gt=0, lt=1)] = 0.95
    max_records: Annotated[int, Field(ge=0, le=10_000_000)] = 100_000

    def plan(self, context: PlanContext, where: str) -> list[Planned]:
        for i, name in enumerate(self.columns):
            column_named(context.release, name, f"{where}.columns[{i}]")
        if len(set(self.columns)) != len(self.columns):
            raise JobSpecError(f"{where}.columns: {self.columns} names a column twice")
        if self.target is not None and self.target in self.columns:
            raise JobSpecError(f"{where}.target: {self.target!r} is among the key columns {self.columns}")
        stray = [c for c in self.bins if c not in self.columns and c != self.target]
        if stray:
            raise JobSpecError(f"{where}.bins: {stray} are neither key columns nor the target")
        if self.max_size > len(self.columns):
            raise JobSpecError(f"{where}.max_size: {self.max_size} is more than the {len(self.columns)} columns to make key sets of")
        if self.min_size > self.max_size:
            raise JobSpecError(f"{where}.min_size: {self.min_size} is more than max_size {self.max_size}")
        count = sum(comb(len(self.columns), size) for size in range(self.min_size, self.max_size + 1))
        if count > MAX_SETS:
            raise JobSpecError(f"{where}.max_size: {count} key sets of {len(self.columns)} columns, more than {MAX_SETS}; lower max_size")
        params = self.model_dump(exclude={"family", "generate", "columns", "min_size", "max_size"})
        return [
            Planned(
                checked(
                    self.evaluation({"keys": keys, **params, "bins": {c: e for c, e in self.bins.items() if c in keys or c == self.target}}),
                    context.release,
                    where,
                ),
                f"{where} key_sets",
            )
            for size in range(self.min_size, self.max_size + 1)
            for keys in combinations(self.columns, size)
        ]
