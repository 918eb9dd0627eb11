"""What the learner, the attacker and the random-worlds reasoner believe about each victim of a
group-anonymized release (Boreale et al. 2020, §III, §V), estimated by the chains of ``alc_dask.families.relative_threat.gibbs_kernels``.

``sample_chains`` runs the chains (each on its own Dask worker when called from a task, one after
the other otherwise); ``Posterior.build`` turns their draws into, per distinct quasi-identifier
tuple of the victims:

- the learner's p_L(s | r) (eq. 24): the population learned from the table;
- the attacker's p_A(s | r) (Lemma 1, eq. 8): the same, knowing the victim is one of the rows;
- the random-worlds p_RW(s | r): Lemma 1 with every compatible cleartext table equally likely.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from alc_dask.data.grouped import GroupedTable
from alc_dask.seeds import derived_seed
from alc_dask.shown import shown

SEED_SPACE = 2**31 - 1


@dataclass(frozen=True)
class ChainSettings:
    """How each chain runs: the paper ran 100 000 sweeps and discarded the first 50 000."""

    iterations: int = 100_000
    burn_in: int = 50_000
    thin: int = 100
    alpha: float = 1.0
    beta: float = 1.0
    swaps: int = 1
    """Metropolis swap proposals per group and sweep (Anatomy)."""

    def __post_init__(self):
        for name in ("iterations", "thin", "swaps"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"{name} must be a whole number of at least 1; got {shown(getattr(self, name))}")
        if not 0 <= self.burn_in <= self.iterations - self.thin:
            raise ValueError(f"iterations ({self.iterations}) leave no draw after burn_in ({self.burn_in}) at thin {self.thin}")
        if not (self.alpha > 0 and self.beta > 0):
            raise ValueError(f"alpha and beta must be positive; got {shown(self.alpha)}, {shown(self.beta)}")


@dataclass(frozen=True, eq=False)
class Chain:
    thetas: np.ndarray
    phis: np.ndarray
    seconds: float
    acceptance: float | None = None
    slot_counts: np.ndarray | None = None
    worker: str | None = None
    """The Dask worker that ran it (None: not on a worker)."""


class FlatModel:
    """A ``GroupedTable`` laid out for the kernels: the flat value axis, and for a generalized table
    its rows grouped into classes (same sensitive value and cells) and their cells numbered across
    attributes."""

    def __init__(self, grouped: GroupedTable):
        self.grouped = grouped
        self.offsets = np.concatenate([[0], np.cumsum(grouped.domain_sizes())]).astype(np.int64)
        self.n_sensitive = len(grouped.sensitive_values)
        self.sensitive_counts = np.bincount(grouped.sensitive_codes, minlength=self.n_sensitive).astype(np.float64)

    @cached_property
    def cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(first cell number of each attribute, cell offsets, flat value indices) of every cell."""
        g = self.grouped
        bases = np.concatenate([[0], np.cumsum([len(o) - 1 for o in g.cell_offsets])]).astype(np.int64)
        starts = [o[:-1] + sum(len(v) for v in g.cell_values[:a]) for a, o in enumerate(g.cell_offsets)]
        offsets = np.concatenate([*starts, [sum(len(v) for v in g.cell_values)]]).astype(np.int64)
        values = np.concatenate([v.astype(np.int64) + self.offsets[a] for a, v in enumerate(g.cell_values)])
        return bases, offsets, values

    @cached_property
    def classes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(sensitive code, row count, global cell per attribute) of each class of alike rows."""
        bases = self.cells[0]
        keys = np.column_stack([self.grouped.sensitive_codes, self.grouped.qi + bases[:-1]])
        unique, counts = np.unique(keys, axis=0, return_counts=True)
        return unique[:, 0].astype(np.int64), counts.astype(np.float64), np.ascontiguousarray(unique[:, 1:], dtype=np.int64)

    def combos(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(sensitive, value start, value end, rows) per pair of sensitive value and cell: the hidden
        values drawn together."""
        class_s, class_count, class_cells = self.classes
        cell_offsets = self.cells[1]
        keys = np.column_stack([np.repeat(class_s, class_cells.shape[1]), class_cells.ravel()])
        unique, inverse = np.unique(keys, axis=0, return_inverse=True)
        rows = np.bincount(inverse.ravel(), weights=np.repeat(class_count, class_cells.shape[1]))
        return unique[:, 0].copy(), cell_offsets[unique[:, 1]], cell_offsets[unique[:, 1] + 1], rows.astype(np.int64)

    def first_attribute_index(self) -> tuple[np.ndarray, np.ndarray]:
        """(offsets, classes): the classes whose cell of the first attribute holds each of its values."""
        _, cell_offsets, cell_values = self.cells
        _, _, class_cells = self.classes
        starts, ends = cell_offsets[class_cells[:, 0]], cell_offsets[class_cells[:, 0] + 1]
        classes = np.repeat(np.arange(len(class_cells)), ends - starts)
        values = cell_values[np.concatenate([np.arange(a, b) for a, b in zip(starts, ends)])] if len(starts) else np.empty(0, dtype=np.int64)
        order = np.argsort(values, kind="stable")
        offsets = np.concatenate([[0], np.cumsum(np.bincount(values, minlength=self.offsets[1]))]).astype(np.int64)
        return offsets, classes[order].astype(np.int64)

    def slot_offsets(self) -> np.ndarray:
        """Where each row's slot counts start: a row has one slot per row of its group."""
        sizes = np.repeat(self.grouped.group_sizes, self.grouped.group_sizes)
        return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def run_chain(grouped: GroupedTable, settings: ChainSettings, seed: int) -> Chain:
    """One chain of the Gibbs sampler (Numba, one core)."""
    from alc_dask.families.relative_threat.gibbs_kernels import anatomy_chain, generalized_chain  # Numba: imported to sample, not to check settings

    model, s = FlatModel(grouped), settings
    started = time.perf_counter()
    if grouped.scheme == "generalized":
        combo_s, start, end, rows = model.combos()
        values = model.cells[2]
        thetas, phis = generalized_chain(
            seed, s.iterations, s.burn_in, s.thin, s.alpha, s.beta, model.offsets, model.sensitive_counts, combo_s, start, end, rows, values
        )
        return Chain(thetas, phis, time.perf_counter() - started, worker=_worker_address())
    qi = np.ascontiguousarray(grouped.qi, dtype=np.int64)
    sensitive = grouped.sensitive_codes.astype(np.int64)
    group_offsets = grouped.group_offsets.astype(np.int64)
    thetas, phis, acceptance, slots = anatomy_chain(
        seed,
        s.iterations,
        s.burn_in,
        s.thin,
        s.alpha,
        s.beta,
        model.offsets,
        model.sensitive_counts,
        group_offsets,
        sensitive,
        qi,
        model.slot_offsets(),
        s.swaps,
    )
    return Chain(thetas, phis, time.perf_counter() - started, acceptance, slots, _worker_address())


def _worker_address() -> str | None:
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return None


def chain_seeds(seed: int, chains: int) -> list[int]:
    """Independent seeds of the chains of one evaluation, the same wherever they run."""
    return [derived_seed(seed, "chains", chain) % SEED_SPACE for chain in range(chains)]


def sample_chains(grouped: GroupedTable, settings: ChainSettings, seed: int, chains: int) -> list[Chain]:
    """``chains`` chains: from inside a Dask task, each submitted to a worker of its own (round robin,
    loosely); elsewhere, one after the other."""
    seeds = chain_seeds(seed, chains)
    try:
        from distributed import get_worker, worker_client

        get_worker()
    except (ImportError, ValueError):
        return [run_chain(grouped, settings, s) for s in seeds]
    with worker_client() as client:
        workers = sorted(client.scheduler_info()["workers"])
        futures = [
            client.submit(run_chain, grouped, settings, s, pure=False, workers=[workers[i % len(workers)]], allow_other_workers=True)
            for i, s in enumerate(seeds)
        ]
        return client.gather(futures)


@dataclass(frozen=True, eq=False)
class Posterior:
    """Per distinct victim tuple (``tuples``, domain codes), the three distributions over the
    sensitive values (rows of ``learner``, ``attacker``, ``random_worlds``; NaN where the release
    says nothing of the tuple)."""

    tuples: np.ndarray
    learner: np.ndarray
    attacker: np.ndarray
    random_worlds: np.ndarray

    @classmethod
    def build(cls, grouped: GroupedTable, chains: list[Chain], victims: np.ndarray) -> Posterior:
        model = FlatModel(grouped)
        release_tuples = grouped.qi if grouped.scheme == "anatomy" else np.empty((0, victims.shape[1]), dtype=victims.dtype)
        tuples, inverse = np.unique(np.concatenate([victims, release_tuples]).astype(np.int64), axis=0, return_inverse=True)
        tuples = np.ascontiguousarray(tuples)
        thetas = np.concatenate([c.thetas for c in chains])
        phis = np.concatenate([c.phis for c in chains])
        from alc_dask.families.relative_threat.gibbs_kernels import learner_posterior

        learner = learner_posterior(thetas, phis, model.offsets, tuples)
        if grouped.scheme == "generalized":
            attacker, worlds = _generalized(model, phis, tuples)
        else:
            attacker, worlds = _anatomy(model, sum(c.slot_counts for c in chains), inverse.ravel()[len(victims) :], len(tuples))
        return cls(tuples, learner, _normalised(attacker), _normalised(worlds))

    def rows_of(self, victims: np.ndarray) -> np.ndarray:
        """The index in ``tuples`` of each victim's tuple (-1: a tuple the posterior was not built for)."""
        index = {row.tobytes(): i for i, row in enumerate(self.tuples)}
        rows = np.ascontiguousarray(victims, dtype=np.int64)
        return np.array([index.get(row.tobytes(), -1) for row in rows], dtype=np.int64)


def _generalized(model: FlatModel, phis: np.ndarray, tuples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from alc_dask.families.relative_threat.gibbs_kernels import covering_pairs, generalized_attacker

    class_s, class_count, class_cells = model.classes
    _, cell_offsets, cell_values = model.cells
    pair_tuple, pair_class = covering_pairs(tuples, model.offsets, class_cells, cell_offsets, cell_values, *model.first_attribute_index())
    attacker = generalized_attacker(
        phis, model.offsets, tuples, pair_tuple, pair_class, class_s, class_count, class_cells, cell_offsets, cell_values, model.n_sensitive
    )
    cell_sizes = np.diff(cell_offsets)[class_cells].prod(axis=1).astype(np.float64)
    worlds = np.zeros_like(attacker)
    np.add.at(worlds, (pair_tuple, class_s[pair_class]), class_count[pair_class] / cell_sizes[pair_class])
    return attacker, worlds


def _anatomy(model: FlatModel, slot_counts: np.ndarray, release_tuple: np.ndarray, n_tuples: int) -> tuple[np.ndarray, np.ndarray]:
    g = model.grouped
    sizes = g.group_sizes
    row_group = np.repeat(np.arange(g.n_groups), sizes)
    starts = g.group_offsets[:-1]
    slot_offsets = model.slot_offsets()
    pair_row = np.repeat(np.arange(g.n_rows), sizes[row_group])  # every (row j, slot q), in the chain's order
    pair_slot = starts[row_group[pair_row]] + np.arange(slot_offsets[-1]) - slot_offsets[pair_row]
    attacker = np.zeros((n_tuples, model.n_sensitive))
    np.add.at(attacker, (release_tuple[pair_slot], g.sensitive_codes[pair_row]), slot_counts.astype(np.float64))
    worlds = np.zeros_like(attacker)
    np.add.at(worlds, (release_tuple[pair_slot], g.sensitive_codes[pair_row]), 1.0 / sizes[row_group[pair_row]])
    return attacker, worlds


def _normalised(weights: np.ndarray) -> np.ndarray:
    totals = weights.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(totals > 0, weights / totals, np.nan)
