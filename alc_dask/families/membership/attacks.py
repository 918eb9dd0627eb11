"""Membership attacks: each gives every record a score, higher for records more likely to be members.

Two are built in. ``closest_distance`` scores a record by how close the anonymized table comes to
it (minus the Gower distance to its closest anonymized row): a release that copies or barely
perturbs its members sits closer to them than to anyone else. ``distance_ratio`` corrects that for
how crowded the record's neighbourhood is in the population: the closest anonymized row's distance
over the closest control record's (the record itself left out), so a record in a dense region
(close to everything) is not mistaken for a member. A package adds its own as any attack
(``alc_dask.attacks.registry``): a ``MembershipAttack`` registered in the ``alc_dask.attacks`` group.

Distances are the costly part (every record against every anonymized row, partition by partition
on a cluster): each attack measures them when it is prepared, once per release and sample of
records in a worker process (``alc_dask.attacks.prepared``), and ``distance_ratio`` asks for
``closest_distance``'s, so both share one measurement. On a release kept on the workers the
search's tasks are keyed by the records searched, so two attacks preparing at the same time share
one search too.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from alc_dask.attacks.base import MembershipAttack
from alc_dask.attacks.prepared import prepared_state
from alc_dask.baseline.memo import digest
from alc_dask.data import EncodedTable, Release, ScenarioError
from alc_dask.seeds import stream

RATIO_FLOOR = 1e-9
"""Added to both distances of the ratio: two exact copies (0 over 0) score as neither member nor
non-member, and a copy in the release of a record with no copy in the population scores high."""


@dataclass(frozen=True, eq=False)
class MembershipTask:
    """What a membership attack is asked: score the original table's ``member_rows`` and the control
    table's ``control_rows`` (members first) against anonymized table ``table``, on ``columns``.

    With ``reference`` "original" (no control table) the non-members are other original rows
    (``control_rows`` index the original), each scored against the original's other people instead
    of the release: see ``closeness_without_control``."""

    table: int
    columns: tuple[str, ...]
    member_rows: np.ndarray
    control_rows: np.ndarray
    reference: str = "control"

    @cached_property
    def key(self) -> str:
        """Which records and columns (a digest): the same for every attack on the same people."""
        return digest(self.member_rows, self.control_rows, self.columns, self.table, self.reference)

    @property
    def n_members(self) -> int:
        return self.member_rows.size

    def records(self, release: Release) -> EncodedTable:
        """The records, members then non-members, as one table (searched as one batch, so every
        record's distances are scaled alike)."""
        others = release.original if self.reference == "original" else release.control
        first, second = release.original.rows(self.member_rows), others.rows(self.control_rows)
        if (first.categorical, first.continuous) != (second.categorical, second.continuous):
            raise ScenarioError(f"membership: tables {first.name} and {second.name} do not hold the same columns in the same kinds")
        return replace(first, codes=np.concatenate([first.codes, second.codes], axis=1), values=np.concatenate([first.values, second.values], axis=1))


@dataclass(frozen=True, eq=False)
class MembershipRecords:
    """The records a membership attack's ``score`` is given: the task's, in the release; and the
    evaluation's ``seed``, for attacks that draw random numbers."""

    release: Release
    task: MembershipTask
    seed: int

    @cached_property
    def encoded(self) -> EncodedTable:
        return self.task.records(self.release)

    @property
    def n_records(self) -> int:
        return self.task.member_rows.size + self.task.control_rows.size


class ClosestDistance(MembershipAttack):
    """Score: minus the Gower distance to the closest anonymized row."""

    def prepare(self, release: Release, task: MembershipTask) -> np.ndarray:
        """Each record's Gower distance to its closest row of the attacked anonymized table."""
        from alc_dask.neighbors.nearest import k_nearest  # Numba's: imported to measure, not to build the attack

        if task.reference == "original":
            return closeness_without_control(release, task)
        distances, _ = k_nearest(task.records(release), release.anonymized[task.table], task.columns, 1, shared_as=task.key)
        return distances[:, 0]

    def score(self, prepared: np.ndarray, records: MembershipRecords) -> np.ndarray:
        return -prepared


class DistanceRatio(MembershipAttack):
    """Score: minus the closest anonymized row's distance over the closest other control record's."""

    def prepare(self, release: Release, task: MembershipTask) -> tuple[np.ndarray, np.ndarray]:
        """(closest anonymized row's distance, closest other control record's) of each record."""
        released = prepared_state(ClosestDistance(), release, task)  # first: another attack on the same people may be searching it right now
        return released, _closest_other(release, task)

    def score(self, prepared: tuple[np.ndarray, np.ndarray], records: MembershipRecords) -> np.ndarray:
        released, other = prepared
        return -(released + RATIO_FLOOR) / (other + RATIO_FLOOR)


def _closest_other(release: Release, task: MembershipTask) -> np.ndarray:
    """Each record's distance to its closest control record, leaving a non-member's own row out."""
    from alc_dask.neighbors.nearest import k_nearest

    distances, rows = k_nearest(task.records(release), release.control, task.columns, 2)
    own = np.concatenate([np.full(task.n_members, -1), task.control_rows])
    first_other = np.where(rows[:, 0] == own, 1, 0)
    return distances[np.arange(len(own)), first_other]


def closeness_without_control(release: Release, task: MembershipTask) -> np.ndarray:
    """Each member's closest distance to the release over its second closest, and each non-member's
    (another original row) closest over second-closest distance to the original's other people:
    both searched among as many rows (``s − 1``, ``s`` = the smaller of the original's rows and
    the release's plus one). The attack scores minus these ratios.

    Whoever the release holds, a member's neighbours among ``s − 1`` of its rows look like its
    neighbours among ``s − 1`` other people of the population only if the release holds no row of
    its own: under that null both sides' ratios are alike (AUC 0.5), while a copy, a near copy or a
    swap puts each member's own row, or most of it, nearer than the next. The ratio, not the closest
    distance alone, because a perturbation moves every row away from everyone: the closest distance
    of a 20% swap of adult scores AUC 0.58, its ratio 0.65; a release of other people 0.43–0.53."""
    from alc_dask.neighbors.nearest import k_nearest

    original, released = release.original, release.anonymized[task.table]
    size = min(original.n_rows, released.n_rows + 1)
    rng = stream(0, "membership without control")
    release_rows = np.sort(rng.choice(released.n_rows, size - 1, replace=False))
    rest = np.setdiff1d(np.arange(original.n_rows), task.control_rows)
    people = np.sort(np.concatenate([task.control_rows, rng.choice(rest, size - task.control_rows.size, replace=False)]))
    to_release, _ = k_nearest(original.rows(task.member_rows), released.rows(release_rows), task.columns, 2)
    to_people, rows = k_nearest(original.rows(task.control_rows), original.rows(people), task.columns, 3)
    others = np.argsort(people[rows] == task.control_rows[:, None], axis=1, kind="stable")[:, :2]  # a person's own row, wherever a twin puts it, left out
    to_people = np.take_along_axis(to_people, others, axis=1)
    distances = np.concatenate([to_release, to_people])
    return (distances[:, 0] + RATIO_FLOOR) / (distances[:, 1] + RATIO_FLOOR)
