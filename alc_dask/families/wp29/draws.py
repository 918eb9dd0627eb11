"""Many small ``Generator.choice`` calls replayed at once, giving the very numbers the calls give.

The WP29 baselines draw thousands of tiny random samples (two neighbour sets per linkability
attack, a few columns, values and operators per random predicate), one ``rng.choice`` call each.
A call costs microseconds of Python for one or two draws, more than everything else the baseline
does. Here the draws are made in bulk with numpy's own integer routine (Lemire's bounded draws on
the generator's 32-bit stream, as ``choice`` makes them), so the baselines, and so every score,
stay what the loops made them, while the loops' cost goes. ``tests/test_wp29_draws.py`` checks
each replay against the loop it stands for.
"""

from __future__ import annotations

import numpy as np

TAIL_SHUFFLE_POPULATION = 10_000
"""Above this population, ``choice(n, k, replace=False)`` samples a large ``k`` by shuffling the tail
of ``arange(n)`` instead of by Floyd's algorithm (numpy's rule: ``k > n // 50``)."""


def samples_without_replacement(rng: np.random.Generator, n: int, k: int, count: int) -> np.ndarray:
    """(count, k): row i is what the i-th of ``count`` calls ``rng.choice(n, k, replace=False)`` returns."""
    if count == 0:
        return np.zeros((0, k), dtype=np.int64)
    if n > TAIL_SHUFFLE_POPULATION and k > n // 50:  # numpy's tail shuffle: rare here, left to numpy
        return np.array([rng.choice(n, k, replace=False) for _ in range(count)]).reshape(count, k)
    # Floyd's algorithm draws one integer in [0, j] for j = n-k .. n-1, then shuffles the k picks
    # drawing one integer in [0, i] for i = k-1 .. 1; integers() with per-draw bounds makes the same
    # draws in the same order.
    highs = np.concatenate([np.arange(n - k, n), np.arange(k - 1, 0, -1)])
    draws = rng.integers(0, np.tile(highs, count), endpoint=True).reshape(count, len(highs))
    picked = np.empty((count, k), dtype=np.int64)
    for t in range(k):
        taken = (picked[:, :t] == draws[:, t, None]).any(axis=1)
        picked[:, t] = np.where(taken, n - k + t, draws[:, t])  # a value drawn before: Floyd takes j
    rows = np.arange(count)
    for step, i in enumerate(range(k - 1, 0, -1)):
        j = draws[:, k + step]
        at_i = picked[:, i].copy()
        picked[:, i] = picked[rows, j]
        picked[rows, j] = at_i
    return picked


def random_conditions(rng: np.random.Generator, n_columns: int, n_cols: int, count: int, n_values: np.ndarray, n_ops: np.ndarray) -> tuple[np.ndarray, ...]:
    """What ``count`` random predicates draw, as this loop would (``values[j]``, ``ops[j]`` of sizes
    ``n_values[j]``, ``n_ops[j]``)::

        for _ in range(count):
            for j in sorted(rng.choice(n_columns, n_cols, replace=False)):
                value = rng.choice(values[j]); op = rng.choice(ops[j])

    Returns columns, value indices and op indices, each (count, n_cols); ``rng`` is left where the loop leaves it.
    """
    if count == 0 or n_cols == 0:
        return tuple(np.zeros((count, n_cols), dtype=np.int64) for _ in range(3))
    if (np.asarray(n_values) < 1).any() or (np.asarray(n_ops) < 1).any():
        raise ValueError("random_conditions: every column needs at least one value and one operator to draw from")
    from alc_dask.families.wp29.draws_kernel import replay_conditions  # Numba: loaded when a baseline is drawn

    saved = rng.bit_generator.state
    lead = [saved["uinteger"]] if saved["has_uint32"] else []
    words = count * (4 * n_cols) + 64
    while True:
        rng.bit_generator.state = saved
        stream = np.concatenate([np.array(lead, dtype=np.uint32), rng.bit_generator.random_raw(words).view(np.uint32)])
        columns, values, ops, used = replay_conditions(stream, n_columns, n_cols, count, n_values.astype(np.int64), n_ops.astype(np.int64))
        if used >= 0:
            break
        words *= 2  # ran out (many rejections): start again with more
    _leave_after(rng, saved, len(lead), used)
    return columns, values, ops


def _leave_after(rng: np.random.Generator, saved: dict, lead: int, used: int) -> None:
    """Put ``rng`` where it is after ``used`` 32-bit draws from ``saved`` (``lead`` of them the
    buffered half), its buffer as numpy leaves it (the last 64-bit draw's upper half, used or not)."""
    rng.bit_generator.state = saved
    from_raw = used - min(used, lead)
    state = dict(saved)
    if from_raw:
        raw = rng.bit_generator.random_raw((from_raw + 1) // 2)
        state = rng.bit_generator.state
        state["uinteger"] = int(raw[-1] >> np.uint64(32))
    state["has_uint32"] = int(from_raw % 2 == 1 or (used == 0 and lead == 1))
    rng.bit_generator.state = state
