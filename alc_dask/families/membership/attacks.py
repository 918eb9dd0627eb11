"""Membership attacks: each gives every record a score, higher for records more likely to be members.

Two are built in. ``closest_distance`` scores a record by how close the anonymized table comes to
it (minus the Gower distance to its closest anonymized row): a release that copies or barely
perturbs its members sits closer to them than to anyone else. ``distance_ratio`` corrects that for
how crowded the record's neighbourhood is in the population: the closest anonymized row's distance
over the closest control record's (the record itself left out), so a record in a dense region
(close to everything) is not mistaken for a member. A package adds its own with an entry point in
the ``alc_dask.membership_attacks`` group: a class built from the job's ``attack_params`` with a
``score(targets)`` method.

Distances to the anonymized table are the costly part (every record against every anonymized row,
partition by partition on a cluster): both attacks need the same ones, so a worker process
remembers them for the table they were measured on, as long as it holds that table, and on a
release kept on the workers the search's tasks are keyed by the records searched, so two attacks
running at the same time share one search.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from alc_dask.baseline.memo import digest
from alc_dask.data import EncodedTable
from alc_dask.plugins import installed, load_object

MEMBERSHIP_ATTACK_GROUP = "alc_dask.membership_attacks"
RATIO_FLOOR = 1e-9
"""Added to both distances of the ratio: two exact copies (0 over 0) score as neither member nor
non-member, and a copy in the release of a record with no copy in the population scores high."""


@dataclass(frozen=True, eq=False)
class MembershipTargets:
    """The records attacked, members first: rows of the original table, then rows of the control table."""

    records: EncodedTable
    n_members: int
    control_rows: np.ndarray
    """Row numbers in the control table of the non-members (the records after the members)."""
    anonymized: object
    """The attacked anonymized table (`EncodedTable` or `PartitionedTable`)."""
    control: object
    columns: tuple[str, ...]
    key: str
    """What identifies these records and columns (a digest), for remembering their distances."""
    seed: int
    """The evaluation's seed, for attacks that draw random numbers."""


class ClosestDistance:
    """Score: minus the Gower distance to the closest anonymized row."""

    def score(self, targets: MembershipTargets) -> np.ndarray:
        return -anonymized_distance(targets)


class DistanceRatio:
    """Score: minus the closest anonymized row's distance over the closest other control record's."""

    def score(self, targets: MembershipTargets) -> np.ndarray:
        released = anonymized_distance(targets)  # first: another attack on the same people may be searching it right now
        return -(released + RATIO_FLOOR) / (_closest_other(targets) + RATIO_FLOOR)


_BUILT_IN = {"closest_distance": ClosestDistance, "distance_ratio": DistanceRatio}


def membership_attack_names() -> list[str]:
    return [*_BUILT_IN, *sorted(set(installed(MEMBERSHIP_ATTACK_GROUP)) - set(_BUILT_IN))]


def build_membership_attack(name: str, params: dict):
    """The attack ``name`` built from ``params``; a ``ValueError`` names an unknown attack or parameter."""
    factory = _BUILT_IN.get(name)
    if factory is None and name in installed(MEMBERSHIP_ATTACK_GROUP):
        factory = load_object(installed(MEMBERSHIP_ATTACK_GROUP)[name])
    if factory is None:
        raise ValueError(f"unknown membership attack {name!r}; known: {', '.join(membership_attack_names())}")
    try:
        return factory(**params)
    except TypeError as error:
        raise ValueError(f"attack_params {params!r} do not fit membership attack {name!r}: {error}") from None


class _Remembered:
    """Per anonymized table held by this process, the last few distance arrays measured on it."""

    ENTRIES = 8

    def __init__(self):
        self._tables: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self, table, key: str, compute):
        with self._lock:
            found = self._tables.get(table, {}).get(key)
        if found is not None:
            return found
        value = compute()
        with self._lock:
            entries = self._tables.setdefault(table, OrderedDict())
            entries[key] = value
            while len(entries) > self.ENTRIES:
                entries.popitem(last=False)
        return value


_DISTANCES = _Remembered()


def anonymized_distance(targets: MembershipTargets) -> np.ndarray:
    """Each record's Gower distance to its closest row of the attacked anonymized table."""

    def measure():
        from alc_dask.neighbors.nearest import k_nearest  # Numba's: imported to measure, not to build the attack

        distances, _ = k_nearest(targets.records, targets.anonymized, targets.columns, 1, shared_as=targets.key)
        return distances[:, 0]

    return _DISTANCES.get(targets.anonymized, targets.key, measure)


def _closest_other(targets: MembershipTargets) -> np.ndarray:
    """Each record's distance to its closest control record, leaving a non-member's own row out."""
    from alc_dask.neighbors.nearest import k_nearest

    distances, rows = k_nearest(targets.records, targets.control, targets.columns, 2)
    own = np.concatenate([np.full(targets.n_members, -1), targets.control_rows])
    first_other = np.where(rows[:, 0] == own, 1, 0)
    return distances[np.arange(len(own)), first_other]


def targets_key(member_rows: np.ndarray, control_rows: np.ndarray, columns: tuple[str, ...]) -> str:
    return digest(member_rows, control_rows, columns)
