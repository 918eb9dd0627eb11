"""Which known-column subsets the worst-columns search tries, and which it chooses.

Every subset of up to ``max_size`` columns first (exhaustive: small subsets are where a leak of a
few columns hides, and they are few), then greedy forward selection from the strongest subset of
``max_size`` columns: add the one column that makes the attack strongest, as long as that beats
the subset it extends. Never more than ``budget`` subsets in all: each is a full evaluation. When
the subsets of up to ``max_size`` columns do not all fit, those of the largest size are a seeded
sample, and there is no greedy step.

"Strongest" is judged on the selection half of the targets only (``alc_dask.apps.worst_columns_measures``);
this module sees only those figures, never the held-out half's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

from alc_dask.apps.worst_columns_measures import Measured
from alc_dask.seeds import stream

EXHAUSTIVE, GREEDY = "exhaustive", "greedy"


@dataclass(frozen=True)
class Tried:
    """One subset evaluated: its columns (in the table's order), the phase that tried it, its
    evaluation's id, and its measure on the selection half (None when the evaluation failed: ``error``)."""

    columns: tuple[str, ...]
    phase: str
    scenario_id: str
    selection: Measured | None
    error: str | None = None

    @property
    def strength(self) -> float:
        """The selection half's figure; -inf when there is none (failed, or not measurable)."""
        value = self.selection.value if self.selection is not None else math.nan
        return -math.inf if math.isnan(value) else value


@dataclass(frozen=True)
class SearchOutcome:
    """Every subset tried, in the order tried, and why the search stopped."""

    tried: list[Tried]
    stopped: str

    def count(self, phase: str) -> int:
        return sum(item.phase == phase for item in self.tried)

    @property
    def chosen(self) -> Tried | None:
        return strongest(self.tried)


def exhaustive_subsets(candidates: Sequence[str], max_size: int, budget: int, seed: int) -> list[tuple[str, ...]]:
    """Every subset of 1 to ``max_size`` candidates, smallest first, each in the candidates' order;
    at most ``budget``: of the first size that does not fit whole, a seeded sample of its subsets
    (the first in the table's order would favour the table's first columns)."""
    subsets: list[tuple[str, ...]] = []
    for size in range(1, max_size + 1):
        left = budget - len(subsets)
        if math.comb(len(candidates), size) <= left:
            subsets += combinations(candidates, size)
            continue
        rng = stream(seed, "worst columns sample", size)
        drawn: set[tuple[int, ...]] = set()
        while len(drawn) < left:
            drawn.add(tuple(sorted(rng.choice(len(candidates), size, replace=False).tolist())))
        return subsets + [tuple(candidates[i] for i in picked) for picked in sorted(drawn)]
    return subsets


def exhaustive_count(candidates: int, max_size: int) -> int:
    return sum(math.comb(candidates, size) for size in range(1, max_size + 1))


def fitting_size(candidates: int, budget: int, most: int) -> int:
    """The largest size, at most ``most`` (and at least 1), whose every subset fits in ``budget``."""
    return max([1, *(size for size in range(1, most + 1) if exhaustive_count(candidates, size) <= budget)])


def extensions(subset: tuple[str, ...], candidates: Sequence[str]) -> list[tuple[str, ...]]:
    """``subset`` with one more candidate, each in the candidates' order."""
    return [tuple(c for c in candidates if c in subset or c == extra) for extra in candidates if extra not in subset]


def strongest(tried: Sequence[Tried]) -> Tried | None:
    """The strongest on the selection half; a tie goes to fewer columns, then to the subset tried first."""
    measured = [(item, index) for index, item in enumerate(tried) if item.strength > -math.inf]
    if not measured:
        return None
    return max(measured, key=lambda pair: (pair[0].strength, -len(pair[0].columns), -pair[1]))[0]


Evaluate = Callable[[list[tuple[str, ...]], str], list[Tried]]
"""Evaluates subsets (one round of the engine) in the named phase; returns them tried, in order."""


def search(candidates: Sequence[str], max_size: int, budget: int, evaluate: Evaluate, seed: int = 0) -> SearchOutcome:
    """Exhaustive up to ``max_size`` columns, then greedy, within ``budget`` subsets (see the module)."""
    first = exhaustive_subsets(candidates, max_size, budget, seed)
    tried = evaluate(first, EXHAUSTIVE)
    if len(first) < exhaustive_count(len(candidates), max_size):
        return SearchOutcome(tried, f"budget spent before every subset of up to {max_size} columns was tried (a seeded sample of the largest)")
    current = strongest([item for item in tried if len(item.columns) == max_size])
    while True:
        left = budget - len(tried)
        if current is None:
            return SearchOutcome(tried, f"no subset of {max_size} columns could be measured to extend")
        following = extensions(current.columns, candidates)
        if not following:
            return SearchOutcome(tried, "every column is known")
        if left <= 0:
            return SearchOutcome(tried, "budget spent")
        step = evaluate(following[:left], GREEDY)
        tried += step
        best = strongest(step)
        if best is None or best.strength <= current.strength:
            return SearchOutcome(tried, f"no column added to {', '.join(current.columns)} made the attack stronger on the selection half")
        current = best
