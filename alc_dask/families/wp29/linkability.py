"""Linkability (Anonymeter's evaluator, Giomi et al. 2023): can the release link two datasets that each hold
part of a person's attributes?

The attacker's auxiliary columns are split into two disjoint halves. For a target record, each half
finds its ``n_neighbors`` nearest anonymized rows (Gower distance, this project's missing-value
rule); the target is linked when the two neighbour sets share a row. Targets are original records
(members); the control repeats the attack on control records; the baseline draws both neighbour
sets at random. Rows at equal distance are ranked in a seeded random order, drawn apart for each half: a shared
order (by row number, say) would make both halves prefer the same rows, and a table that cannot
tell its rows apart would seem to link everyone.

Without a control table (``reference: original``) each member is linked through the release and
through the original's other people, at one size (``wp29.common.OthersOfTheOriginal``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import numpy as np
from pydantic import Field, model_validator

from alc_dask.data import ScenarioError
from alc_dask.families.base import CheckExamples, Evaluation
from alc_dask.families.wp29.common import (
    BATTERY_ATTACKS,
    OthersOfTheOriginal,
    Wp29Family,
    Wp29Params,
    attacked,
    attacked_table,
    attacked_tables,
    by_reference,
    check_columns,
    without_own_rows,
    wp29_measures,
)
from alc_dask.families.wp29.draws import samples_without_replacement
from alc_dask.measure import AttackCounts
from alc_dask.seeds import stream

if TYPE_CHECKING:
    from alc_dask.neighbors.nearest import ShuffledTable

Half = Annotated[tuple[str, ...], Field(min_length=1)]


class LinkabilityParams(Wp29Params):
    aux_cols: tuple[Half, Half]
    """The two halves of the attacker's columns: disjoint, neither empty."""
    n_neighbors: Annotated[int, Field(ge=1)] = 1

    @model_validator(mode="after")
    def _disjoint_halves(self):
        shared = sorted(set(self.aux_cols[0]) & set(self.aux_cols[1]))
        if shared:
            raise ValueError(f"aux_cols: the two halves must be disjoint; both hold {shared}")
        return self


class Linkability(Wp29Family):
    name = "linkability"
    criterion = "linkability"
    Params = LinkabilityParams

    @classmethod
    def evidence(cls, row) -> str:
        others = by_reference(row, "of people not in it", "through the original's other people, of the same people")
        return f"{float(row['attack_rate']):.1%} of people of the original are linked across the two halves of their columns through the release; {others}, {float(row['control_rate']):.1%}"

    @classmethod
    def exposure(cls, row) -> str:
        return "linked across the two halves of its columns"

    @classmethod
    def battery(cls, tables):
        """The first half of the release's columns against the other half, as Anonymeter's examples
        split them (on the generators benchmark four quasi-identifiers against three other columns
        linked a copy of tx2019's 24 columns for 10% of people where the halves link it for 99.7%);
        without a control table, against the original's other people (``reference: original``)."""
        columns = [c for c in tables.columns if c in tables.release.columns]
        half = len(columns) // 2
        if half == 0:
            return []
        reference = {} if tables.has_control else {"reference": "original"}
        return [{"family": cls.name, "aux_cols": [columns[:half], columns[half:]], "n_neighbors": 10, "n_attacks": BATTERY_ATTACKS, **reference}]

    @classmethod
    def check_examples(cls, columns: tuple[str, ...]) -> CheckExamples:
        """Two halves of three columns each, linked by the nearest row and by the five nearest."""
        halves = [list(columns[:3]), list(columns[3:6])]
        return CheckExamples([{"aux_cols": halves, "n_attacks": 100}, {"aux_cols": halves, "n_neighbors": 5, "n_attacks": 100}])

    def describe(self) -> str:
        return "-".join(self.params.aux_cols[0][:1] + self.params.aux_cols[1][:1])

    def check(self, release) -> None:
        anonymized = attacked_table(release, self.params, self.name)
        for i, half in enumerate(self.params.aux_cols):
            check_columns(release, anonymized, f"aux_cols[{i}]", half)
        if self.params.n_neighbors > anonymized.n_rows:
            raise ScenarioError(f"n_neighbors: {self.params.n_neighbors} is more than the {anonymized.n_rows} rows of {anonymized.name}")

    def evaluate(self, release, seed: int) -> Evaluation:
        p = self.params
        self.check(release)
        anonymized, control = attacked_tables(release, p, self.name)
        rng = stream(seed, "linkability")
        if control is None:
            return self._against_others(release, anonymized, rng)
        n_main, n_control = min(p.n_attacks, release.original.n_rows), min(p.n_attacks, control.n_rows)
        from alc_dask.neighbors.nearest import ShuffledTable  # Numba's: imported to attack, not to check parameters

        orders = [ShuffledTable.of(anonymized, rng) for _ in p.aux_cols]
        targets = {"attack": np.sort(rng.choice(release.original.n_rows, n_main, replace=False))}
        main_links = self._links(release.original, orders, targets["attack"])
        targets["control"] = np.sort(rng.choice(control.n_rows, n_control, replace=False))
        control_links = self._links(control, orders, targets["control"])
        random_sets = [_random_neighbours(anonymized.n_rows, p.n_attacks, p.n_neighbors, rng) for _ in range(2)]
        counts = AttackCounts(n_main, int(main_links.sum()), p.n_attacks, int(_shared(*random_sets).sum()), n_control, int(control_links.sum()))
        warnings = [
            f"only {n} of the {p.n_attacks} attacks asked for: {name} has {n} rows"
            for name, n in (("the original", n_main), ("the control", n_control))
            if n < p.n_attacks
        ]
        return Evaluation(wp29_measures(counts, p.confidence_level, warnings), attacked(targets, {"attack": main_links, "control": control_links}))

    def _against_others(self, release, anonymized, rng: np.random.Generator) -> Evaluation:
        """Without a control table: each member linked through the release and through the
        original's other people, at one size (``OthersOfTheOriginal``); the random baseline as ever."""
        from alc_dask.neighbors.nearest import ShuffledTable  # Numba's: imported to attack, not to check parameters

        p = self.params
        sides = OthersOfTheOriginal.of(release.original, anonymized, rng)
        positions = sides.attacked(p.n_attacks, rng)
        n_main = positions.size
        members, k = sides.others.rows(positions), min(p.n_neighbors, sides.released.n_rows)
        through_release = [ShuffledTable.of(sides.released, rng).k_nearest(members, half, k) for half in p.aux_cols]
        through_others = [without_own_rows(ShuffledTable.of(sides.others, rng).k_nearest(members, half, k + 1), positions) for half in p.aux_cols]
        links = {"attack": _shared(*through_release), "others": _shared(*through_others)}
        random_sets = [_random_neighbours(sides.released.n_rows, p.n_attacks, k, rng) for _ in range(2)]
        both = int((links["attack"] & links["others"]).sum())
        counts = AttackCounts(n_main, int(links["attack"].sum()), p.n_attacks, int(_shared(*random_sets).sum()), n_main, int(links["others"].sum()), both)
        warnings = [f"only {n_main} of the {p.n_attacks} attacks asked for: the original has {n_main} rows to compare"] if n_main < p.n_attacks else []
        people = sides.rows[positions]
        return Evaluation(wp29_measures(counts, p.confidence_level, warnings), attacked({"attack": people, "others": people}, links))

    def _links(self, table, orders: list[ShuffledTable], rows: np.ndarray) -> np.ndarray:
        """Per row of ``table`` (in increasing order), whether it is linked."""
        targets = table.rows(rows)
        return _shared(*(order.k_nearest(targets, half, self.params.n_neighbors) for order, half in zip(orders, self.params.aux_cols)))


def _random_neighbours(n_rows: int, count: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """(count, k): per attack, k distinct random rows (``rng.choice(n_rows, k, replace=False)`` per attack, drawn at once)."""
    return samples_without_replacement(rng, n_rows, k, count)


def _shared(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Per target, whether its two neighbour sets share a row (padding -1 never counts)."""
    same = (first[:, :, None] == second[:, None, :]) & (first[:, :, None] >= 0)
    return same.any(axis=(1, 2))
