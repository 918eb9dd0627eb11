"""Numba kernels of the Bayesian model of group-anonymized tables (Boreale et al. 2020, §III, §V).

Parameters are laid out flat: the quasi-identifiers' values side by side on one axis of
``V = sum of the domain sizes`` (attribute ``a`` holds ``offsets[a]:offsets[a + 1]``), so
``phi[s, offsets[a] + v]`` is π(value v of a | sensitive s) and ``theta[s]`` is π(s). The model
is naive Bayes: the quasi-identifiers are independent given the sensitive value.

Each kernel seeds Numba's generator (one per thread, for the Dirichlet draws) and its own
SplitMix64 stream (for the hidden values) at its start, so a chain is the same on any worker. The chains are Gibbs samplers over (π, hidden table):

- generalized tables: given π, every row's hidden values are independent draws within its cells
  (eq. 36), so only their counts matter to the next π; rows alike (same sensitive value and cell)
  are drawn together as one multinomial.
- Anatomy: the hidden table is a permutation of each group's quasi-identifier tuples; one
  Metropolis swap of two tuples per group and sweep (eq. 37, symmetric proposal).
"""

from __future__ import annotations

import numba
import numpy as np

from alc_dask.families.relative_threat.numba_stream import DOUBLES, even_index, gamma_table, refill, standard_gamma, state_words


@numba.njit(nogil=True, cache=True, inline="always")
def _draw_phi(counts, shapes, offsets, phi, words, doubles):
    """phi[s, a-block] ~ Dirichlet(beta + counts[s, a-block]) for every s and attribute (eq. 32);
    ``shapes`` row n: the gamma constants of beta + n."""
    n_sensitive = counts.shape[0]
    index = even_index(words)
    for s in range(n_sensitive):
        for a in range(offsets.shape[0] - 1):
            total = 0.0
            for v in range(offsets[a], offsets[a + 1]):
                draw, index = standard_gamma(shapes, counts[s, v], words, doubles, index)
                phi[s, v] = draw
                total += draw
            for v in range(offsets[a], offsets[a + 1]):
                phi[s, v] /= total
    words[0] = index


@numba.njit(nogil=True, cache=True)
def _draw_theta(shapes, theta, words, doubles):
    """theta ~ Dirichlet(alpha + the sensitive counts); ``shapes`` row s: the gamma constants of s's."""
    total = 0.0
    index = even_index(words)
    for s in range(theta.shape[0]):
        theta[s], index = standard_gamma(shapes, s, words, doubles, index)
        total += theta[s]
    words[0] = index
    for s in range(theta.shape[0]):
        theta[s] /= total


@numba.njit(nogil=True, cache=True, inline="always")
def _shape_tables(alpha, beta, sensitive_counts):
    """The gamma constants of beta + n for every count n a cell can reach (up to a sensitive value's
    rows), and of alpha + each sensitive value's rows. Loops, as in every kernel here: array
    arithmetic, fancy indexing and slice assignment compile their broadcasting and its error
    messages, seconds per chain on a cold start."""
    most = 0.0
    for s in range(sensitive_counts.shape[0]):
        most = max(most, sensitive_counts[s])
    cell = np.empty(int(most) + 1)
    for n in range(cell.shape[0]):
        cell[n] = beta + n
    sensitive = np.empty(sensitive_counts.shape[0])
    for s in range(sensitive.shape[0]):
        sensitive[s] = alpha + sensitive_counts[s]
    return gamma_table(cell), gamma_table(sensitive)


@numba.njit(nogil=True, cache=True, inline="always")
def _keep(thetas, phis, stored, theta, phi):
    """Draw ``stored`` of the chain: theta and phi."""
    for s in range(phi.shape[0]):
        thetas[stored, s] = theta[s]
        for v in range(phi.shape[1]):
            phis[stored, s, v] = phi[s, v]


@numba.njit(nogil=True, cache=True, inline="always")
def _uniform(key):
    """A uniform in [0, 1) from SplitMix64, and the advanced key (a uint64 the caller keeps in a
    register): the hidden values take over a hundred million draws per chain, and this is several
    times quicker than NumPy's."""
    key += np.uint64(0x9E3779B97F4A7C15)
    z = key
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)) * (1.0 / 9007199254740992.0), key


FEW_ROWS = 32
LINEAR_SCAN = 32
"""Up to this many rows, drawing each row (a uniform and a bisection) beats a run of binomials."""


@numba.njit(nogil=True, cache=True, inline="always")
def _draw_each(phi, bounds, values, rows, counts, cumulative, key):
    """Add to ``counts`` (flat, as ``phi``) the hidden values of the combos drawn row by row: combo c
    draws ``rows[c]`` values among the flat indices ``values[bounds[c]:bounds[c + 1]]`` with
    probability ∝ phi. Returns the advanced key."""
    for c in range(rows.shape[0]):
        start, size = bounds[c], bounds[c + 1] - bounds[c]
        total = 0.0
        for i in range(size):
            total += phi[values[start + i]]
            cumulative[i] = total
        for _ in range(rows[c]):
            u, key = _uniform(key)
            u *= total
            if size <= LINEAR_SCAN:  # counted without branches: a random u mispredicts every bisection step
                low = 0
                for i in range(size - 1):
                    low += cumulative[i] <= u
            else:
                low, high = 0, size - 1
                while low < high:
                    middle = (low + high) // 2
                    if cumulative[middle] > u:
                        high = middle
                    else:
                        low = middle + 1
            counts[values[start + low]] += 1
    return key


@numba.njit(nogil=True, cache=True)
def _draw_multinomial(phi, s, cell_values, start, end, rows, counts):
    """``rows`` hidden rows among ``cell_values[start:end]`` as a multinomial: a run of binomials."""
    mass = 0.0
    for i in range(start, end):
        mass += phi[s, cell_values[i]]
    remaining = rows
    for i in range(start, end - 1):
        if remaining == 0:
            break
        p = phi[s, cell_values[i]]
        drawn = np.random.binomial(remaining, min(1.0, p / mass)) if mass > 0 else 0
        counts[s, cell_values[i]] += drawn
        remaining -= drawn
        mass -= p
    counts[s, cell_values[end - 1]] += remaining


@numba.njit(nogil=True, cache=True, inline="always")
def _split_combos(combo_s, combo_values_start, combo_values_end, combo_count, cell_values, fixed):
    """Adds to ``fixed`` the counts of the combos of one value; returns the other combos, those drawn
    row by row (few rows, or fewer rows than values), then those drawn as multinomials."""
    each = np.empty(combo_s.shape[0], dtype=np.int64)
    many = np.empty(combo_s.shape[0], dtype=np.int64)
    n_each = n_many = 0
    for c in range(combo_s.shape[0]):
        size, rows = combo_values_end[c] - combo_values_start[c], combo_count[c]
        if size == 1:
            fixed[combo_s[c], cell_values[combo_values_start[c]]] += rows
        elif size > 1 and (rows <= FEW_ROWS or rows < size):
            each[n_each] = c
            n_each += 1
        elif size > 1:
            many[n_many] = c
            n_many += 1
    return each[:n_each], many[:n_many]


@numba.njit(nogil=True, cache=True, inline="always")
def _flat_combos(chosen, combo_s, combo_values_start, combo_values_end, combo_count, cell_values, n_values):
    """The ``chosen`` combos laid out for ``_draw_each``: bounds, flat indices s * V + value, rows."""
    bounds = np.zeros(chosen.shape[0] + 1, dtype=np.int64)
    rows = np.empty(chosen.shape[0], dtype=np.int64)
    for k in range(chosen.shape[0]):
        bounds[k + 1] = bounds[k] + combo_values_end[chosen[k]] - combo_values_start[chosen[k]]
        rows[k] = combo_count[chosen[k]]
    values = np.empty(bounds[chosen.shape[0]], dtype=np.int64)
    for k in range(chosen.shape[0]):
        c = chosen[k]
        for i in range(bounds[k + 1] - bounds[k]):
            values[bounds[k] + i] = combo_s[c] * n_values + cell_values[combo_values_start[c] + i]
    return bounds, values, rows


@numba.njit(nogil=True, cache=True)
def generalized_chain(
    seed, iterations, burn_in, thin, alpha, beta, offsets, sensitive_counts, combo_s, combo_values_start, combo_values_end, combo_count, cell_values
):
    """A chain on a generalized table; returns the kept draws of theta (m, S) and phi (m, S, V).

    A combo is rows sharing a sensitive value ``combo_s`` and one attribute's cell: they hold
    ``combo_count`` hidden values, drawn among ``cell_values[combo_values_start:combo_values_end]``
    (flat value indices) with probability proportional to phi. A cell of one value draws nothing:
    its counts are the same at every sweep. A sweep draws the hidden table's counts given π (the
    fixed cells', then the combos drawn row by row, then those drawn as multinomials: the row-by-row
    loop calls nothing that uses NumPy's generator, which alone made it five times slower), then π.
    """
    np.random.seed(seed)
    words, doubles = state_words(), np.zeros(DOUBLES)
    n_sensitive, n_values = sensitive_counts.shape[0], offsets[-1]
    kept = max(0, (iterations - burn_in) // thin)
    thetas = np.empty((kept, n_sensitive))
    phis = np.empty((kept, n_sensitive, n_values))
    fixed = np.zeros((n_sensitive, n_values), dtype=np.int64)
    each, many = _split_combos(combo_s, combo_values_start, combo_values_end, combo_count, cell_values, fixed)
    each_bounds, each_values, each_rows = _flat_combos(each, combo_s, combo_values_start, combo_values_end, combo_count, cell_values, n_values)
    counts = np.zeros((n_sensitive, n_values), dtype=np.int64)
    count_shapes, sensitive_shapes = _shape_tables(alpha, beta, sensitive_counts)
    phi = np.empty((n_sensitive, n_values))
    flat_phi, flat_counts, flat_fixed = phi.reshape(n_sensitive * n_values), counts.reshape(n_sensitive * n_values), fixed.reshape(n_sensitive * n_values)
    theta = np.empty(n_sensitive)
    cumulative = np.empty(n_values)
    key = np.uint64(seed)
    stored = 0
    for iteration in range(-1, iterations):  # -1: a first π from the prior (counts of zero), by the same inlined draw
        if iteration >= 0:
            for i in range(flat_counts.shape[0]):
                flat_counts[i] = flat_fixed[i]
            key = _draw_each(flat_phi, each_bounds, each_values, each_rows, flat_counts, cumulative, key)
            for c in many:
                _draw_multinomial(phi, combo_s[c], cell_values, combo_values_start[c], combo_values_end[c], combo_count[c], counts)
        refill(words, doubles)  # the multinomials drew from Numba's generator
        _draw_phi(counts, count_shapes, offsets, phi, words, doubles)
        if iteration >= burn_in and (iteration - burn_in) % thin == thin - 1 and stored < kept:
            _draw_theta(sensitive_shapes, theta, words, doubles)
            _keep(thetas, phis, stored, theta, phi)
            stored += 1
    return thetas, phis


@numba.njit(nogil=True, cache=True, inline="always")
def _swap_sweep(phi, tuples, group_starts, group_sizes, sensitive, assign, counts, swaps, key, proposed, accepted, held, now):
    """One Metropolis swap proposal per group of two rows or more (``swaps`` of them): two rows
    exchange their tuples (``tuples``: flat value indices) with probability min(1, likelihood ratio)
    (eq. 37) during sweep ``now``; ``held``: see ``_close_span``. Returns the advanced key and
    the running proposal and acceptance counts."""
    n_attributes = tuples.shape[1]
    for g in range(group_starts.shape[0]):
        start, size = group_starts[g], group_sizes[g]
        for _ in range(swaps):
            u, key = _uniform(key)
            p = start + int(u * size)
            u, key = _uniform(key)
            q = start + int(u * (size - 1))
            if q >= p:
                q += 1
            sp, sq = sensitive[p], sensitive[q]
            proposed += 1
            if sp == sq:
                accepted += 1  # the same likelihood: always accepted, nothing changes in the counts
                _close_span(held, p, start, assign, now)
                _close_span(held, q, start, assign, now)
                assign[p], assign[q] = assign[q], assign[p]
                continue
            x, y = assign[p], assign[q]
            ratio = 1.0
            for a in range(n_attributes):
                vx, vy = tuples[x, a], tuples[y, a]
                ratio *= (phi[sp, vy] * phi[sq, vx]) / (phi[sp, vx] * phi[sq, vy])
            if not ratio >= 1.0:  # not "ratio < 1": a NaN ratio draws a uniform and is refused, as before
                u, key = _uniform(key)
                if not u < ratio:
                    continue
            accepted += 1
            _close_span(held, p, start, assign, now)
            _close_span(held, q, start, assign, now)
            assign[p], assign[q] = y, x
            for a in range(n_attributes):
                vx, vy = tuples[x, a], tuples[y, a]
                counts[sp, vx] -= 1
                counts[sp, vy] += 1
                counts[sq, vy] -= 1
                counts[sq, vx] += 1
    return key, proposed, accepted


@numba.njit(nogil=True, cache=True, inline="always")
def _close_span(held, j, group_start, assign, now):
    """Row j's tuple is about to change during sweep ``now``: count the sweeps it held it.

    ``held`` = (slot counts, slot offsets, since): how many counted sweeps each row held each tuple
    of its group (flat, row j's slots at ``slot_offsets[j]``), kept by spans: a row's count grows when
    its tuple changes and at the end, not at every sweep. ``since[j]``: the first counted sweep (from
    burn-in on) of row j's tuple; the tuple a row holds after sweep t is counted for t."""
    slot_counts, slot_offsets, since = held
    if now > since[j]:
        slot_counts[slot_offsets[j] + assign[j] - group_start] += now - since[j]
        since[j] = now


@numba.njit(nogil=True, cache=True, inline="always")
def _swapped_groups(group_offsets):
    """The starts and sizes of the groups of two rows or more (a group of one row proposes nothing)."""
    starts = np.empty(group_offsets.shape[0] - 1, dtype=np.int64)
    sizes = np.empty(group_offsets.shape[0] - 1, dtype=np.int64)
    n = 0
    for g in range(group_offsets.shape[0] - 1):
        if group_offsets[g + 1] - group_offsets[g] >= 2:
            starts[n], sizes[n] = group_offsets[g], group_offsets[g + 1] - group_offsets[g]
            n += 1
    return starts[:n], sizes[:n]


@numba.njit(nogil=True, cache=True)
def anatomy_chain(seed, iterations, burn_in, thin, alpha, beta, offsets, sensitive_counts, group_offsets, sensitive, qi, slot_offsets, swaps):
    """A chain on an Anatomy table; returns kept theta (m, S), phi (m, S, V), the acceptance rate, and
    per row j and slot q of its group how many sweeps after burn-in gave row j the group's q-th tuple
    (flat, row j's slots at ``slot_offsets[j]``)."""
    np.random.seed(seed)
    words, doubles = state_words(), np.zeros(DOUBLES)
    n_sensitive, n_values = sensitive_counts.shape[0], offsets[-1]
    n_rows, n_attributes = qi.shape
    kept = max(0, (iterations - burn_in) // thin)
    thetas = np.empty((kept, n_sensitive))
    phis = np.empty((kept, n_sensitive, n_values))
    assign = np.arange(n_rows)  # row j holds tuple qi[assign[j]], always of its own group
    held = (np.zeros(slot_offsets[-1], dtype=np.int64), slot_offsets, np.full(n_rows, burn_in, dtype=np.int64))
    tuples = np.empty((n_rows, n_attributes), dtype=np.int64)
    counts = np.zeros((n_sensitive, n_values), dtype=np.int64)
    for j in range(n_rows):
        for a in range(n_attributes):
            tuples[j, a] = offsets[a] + qi[j, a]
            counts[sensitive[j], tuples[j, a]] += 1
    group_starts, group_sizes = _swapped_groups(group_offsets)
    row_sensitive = sensitive.copy()
    count_shapes, sensitive_shapes = _shape_tables(alpha, beta, sensitive_counts)
    phi = np.empty((n_sensitive, n_values))
    theta = np.empty(n_sensitive)
    proposed = accepted = 0
    stored = 0
    key = np.uint64(seed)
    for iteration in range(iterations):
        _draw_phi(counts, count_shapes, offsets, phi, words, doubles)
        key, proposed, accepted = _swap_sweep(
            phi, tuples, group_starts, group_sizes, row_sensitive, assign, counts, swaps, key, proposed, accepted, held, iteration
        )
        if iteration >= burn_in and (iteration - burn_in) % thin == thin - 1 and stored < kept:
            _draw_theta(sensitive_shapes, theta, words, doubles)
            _keep(thetas, phis, stored, theta, phi)
            stored += 1
    for g in range(group_offsets.shape[0] - 1):
        for j in range(group_offsets[g], group_offsets[g + 1]):
            _close_span(held, j, group_offsets[g], assign, iterations)
    return thetas, phis, accepted / max(proposed, 1), held[0]


@numba.njit(nogil=True, cache=True)
def learner_posterior(thetas, phis, offsets, tuples):
    """p_L(s | r) for each tuple r (rows of codes per attribute): the mean over draws of
    θ_s Π_a φ(r_a | s) normalised over s (eq. 24). A tuple with a code < 0 gets NaN."""
    n_draws, n_sensitive = thetas.shape
    n_tuples, n_attributes = tuples.shape
    out = np.zeros((n_tuples, n_sensitive))
    weights = np.empty(n_sensitive)
    for u in range(n_tuples):
        outside = False
        for a in range(n_attributes):
            outside |= tuples[u, a] < 0
        if outside:
            out[u, :] = np.nan
            continue
        for m in range(n_draws):
            total = 0.0
            for s in range(n_sensitive):
                w = thetas[m, s]
                for a in range(n_attributes):
                    w *= phis[m, s, offsets[a] + tuples[u, a]]
                weights[s] = w
                total += w
            for s in range(n_sensitive):
                out[u, s] += weights[s] / total
        for s in range(n_sensitive):
            out[u, s] /= n_draws
    return out


@numba.njit(nogil=True, cache=True)
def learner_joint(thetas, phis, offsets, tuples, sensitive):
    """p_L(s, r) for each pair (eq. 23): the mean over draws of θ_s Π_a φ(r_a | s)."""
    n_draws = thetas.shape[0]
    n_pairs, n_attributes = tuples.shape
    out = np.zeros(n_pairs)
    for i in range(n_pairs):
        s = sensitive[i]
        for m in range(n_draws):
            w = thetas[m, s]
            for a in range(n_attributes):
                w *= phis[m, s, offsets[a] + tuples[i, a]]
            out[i] += w
        out[i] /= n_draws
    return out


@numba.njit(nogil=True, cache=True)
def covering_pairs(tuples, offsets, class_cells, cell_offsets, cell_values, index_offsets, index_classes):
    """(tuple, class) pairs where every cell of the class covers the tuple's value.

    class_cells (C, A): each class's cell per attribute (cells numbered across attributes, each
    holding sorted flat value indices ``cell_values[cell_offsets[c]:cell_offsets[c + 1]]``). The
    classes whose first attribute's cell holds value v are ``index_classes[index_offsets[v]:
    index_offsets[v + 1]]``: only those are tried for a tuple, so the cost follows the overlaps of
    the groups, not their number.
    """
    n_tuples, n_attributes = tuples.shape
    pair_tuple = []
    pair_class = []
    for u in range(n_tuples):
        if tuples[u, 0] < 0:
            continue
        first = tuples[u, 0]
        for i in range(index_offsets[first], index_offsets[first + 1]):
            c = index_classes[i]
            covered = True
            for a in range(1, n_attributes):
                v = tuples[u, a]
                if v < 0 or not _holds(cell_values, cell_offsets[class_cells[c, a]], cell_offsets[class_cells[c, a] + 1], offsets[a] + v):
                    covered = False
                    break
            if covered:
                pair_tuple.append(u)
                pair_class.append(c)
    return np.array(pair_tuple, dtype=np.int64), np.array(pair_class, dtype=np.int64)


@numba.njit(nogil=True, cache=True)
def _holds(values, start, end, value):
    """Whether the sorted ``values[start:end]`` hold ``value`` (bisection)."""
    low, high = start, end
    while low < high:
        middle = (low + high) // 2
        if values[middle] < value:
            low = middle + 1
        else:
            high = middle
    return low < end and values[low] == value


@numba.njit(nogil=True, cache=True)
def generalized_attacker(phis, offsets, tuples, pair_tuple, pair_class, class_s, class_count, class_cells, cell_offsets, cell_values, n_sensitive):
    """Σ_{rows j of sensitive s covering r} f(R_j = r | t*) per tuple r and s (Lemma 1, eq. 8),
    Rao-Blackwellised: given π, f(R_j = r) = Π_a φ(r_a | s_j) / Σ_{x in cell_a} φ(x | s_j).

    Cells are numbered across attributes; cell c holds the flat value indices
    ``cell_values[cell_offsets[c]:cell_offsets[c + 1]]``.
    """
    n_draws = phis.shape[0]
    n_attributes = tuples.shape[1]
    out = np.zeros((tuples.shape[0], n_sensitive))
    n_classes = class_s.shape[0]
    norm = np.empty((n_classes, n_attributes))
    for m in range(n_draws):
        for c in range(n_classes):
            s = class_s[c]
            for a in range(n_attributes):
                cell = class_cells[c, a]
                total = 0.0
                for i in range(cell_offsets[cell], cell_offsets[cell + 1]):
                    total += phis[m, s, cell_values[i]]
                norm[c, a] = total
        for i in range(pair_tuple.shape[0]):
            u, c = pair_tuple[i], pair_class[i]
            s = class_s[c]
            w = class_count[c]
            for a in range(n_attributes):
                w *= phis[m, s, offsets[a] + tuples[u, a]] / norm[c, a]
            out[u, s] += w
    return out
