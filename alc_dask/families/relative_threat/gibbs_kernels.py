"""Numba kernels of the Bayesian model of group-anonymized tables (Boreale et al. 2020, §III, §V).

Parameters are laid out flat: the quasi-identifiers' values side by side on one axis of
``V = sum of the domain sizes`` (attribute ``a`` holds ``offsets[a]:offsets[a + 1]``), so
``phi[s, offsets[a] + v]`` is π(value v of a | sensitive s) and ``theta[s]`` is π(s). The model
is naive Bayes: the quasi-identifiers are independent given the sensitive value.

Each kernel seeds its SplitMix64 key (``variates``: the Dirichlet draws' gamma variates, the hidden
values, the swaps) and, for the generalized chain's multinomials, Numba's generator at its start,
so a chain is the same on any worker. The chains are Gibbs samplers over (π, hidden table):

- generalized tables: given π, every row's hidden values are independent draws within its cells
  (eq. 36), so only their counts matter to the next π; rows alike (same sensitive value and cell)
  are drawn together as one multinomial.
- Anatomy: the hidden table is a permutation of each group's quasi-identifier tuples; one
  Metropolis swap of two tuples per group and sweep (eq. 37, symmetric proposal).

Indices read from arrays are made unsigned (``np.uint64``, ``np.uint32`` tuples) before they index:
Numba checks a signed index for a negative value (counted from the end) at every access, and an
unsigned one cannot be negative. The draws are the same; a Mondrian chain of 100 000 sweeps on the
5 692 rows of the benchmark took 16–17% less time, an Anatomy chain 7–10% less.
"""

from __future__ import annotations

import numba
import numpy as np

from alc_dask.families.relative_threat.variates import gamma, gamma_table
from alc_dask.splitmix import next_word, uniform


@numba.njit(nogil=True, cache=True, inline="always")
def _draw_phi(counts, shapes, phi, key):
    """phi[i] ~ Gamma(beta + counts[i]) for every flat index i = s * V + v: each attribute's block of
    phi[s] is a Dirichlet draw (eq. 32) once divided by its sum (``_normalise``). Unnormalised, it
    serves the hidden draws and the swaps as it is: both read phi within one s and attribute only as
    ratios. ``shapes`` row n: the gamma constants of beta + n. Returns the advanced key."""
    for i in range(counts.shape[0]):
        phi[i], key = gamma(shapes, np.uint64(counts[i]), key)
    return key


@numba.njit(nogil=True, cache=True, inline="always")
def _prefix_sums(phi, prefix):
    """``prefix[i]``: the sum of phi before flat index i (``prefix[-1]`` all of it), once per sweep,
    for the generalized chain's cells of consecutive values."""
    total = 0.0
    for i in range(phi.shape[0]):
        prefix[i] = total
        total += phi[i]
    prefix[phi.shape[0]] = total


@numba.njit(nogil=True, cache=True)
def _normalise(phi, offsets):
    """Each attribute's block of each phi[s] divided by its sum: the Dirichlet draw, for keeping."""
    for s in range(phi.shape[0]):
        for a in range(offsets.shape[0] - 1):
            total = 0.0
            for v in range(offsets[a], offsets[a + 1]):
                total += phi[s, v]
            for v in range(offsets[a], offsets[a + 1]):
                phi[s, v] /= total


@numba.njit(nogil=True, cache=True)
def _draw_theta(shapes, theta, key):
    """theta ~ Dirichlet(alpha + the sensitive counts); ``shapes`` row s: the gamma constants of s's."""
    total = 0.0
    for s in range(theta.shape[0]):
        theta[s], key = gamma(shapes, s, key)
        total += theta[s]
    for s in range(theta.shape[0]):
        theta[s] /= total
    return key


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


@numba.njit(nogil=True, cache=True)
def _keep(thetas, phis, stored, theta, phi):
    """Draw ``stored`` of the chain: theta and phi."""
    for s in range(phi.shape[0]):
        thetas[stored, s] = theta[s]
        for v in range(phi.shape[1]):
            phis[stored, s, v] = phi[s, v]


FEW_ROWS = 32
LINEAR_SCAN = 64
"""Up to this many rows, drawing each row (a uniform and a search) beats a run of binomials; up to
this many values, the search counts without branches (a random uniform mispredicts every
bisection step)."""
HALF = np.uint64(0xFFFFFFFF)


@numba.njit(nogil=True, cache=True, inline="always")
def _search(cumulative, size, target):
    """The position in 0..size-1 (``size`` and the result unsigned) of the first of
    ``cumulative[:size]`` above ``target`` (the last if none is: rounding). Callers pass a slice
    rather than an offset into a longer array."""
    one = np.uint64(1)
    if size <= LINEAR_SCAN:
        low = np.uint64(0)
        for i in range(size - one):
            low += np.uint64(cumulative[i] <= target)
        return low
    low, high = np.uint64(0), size - one
    while low < high:
        middle = (low + high) >> one
        if cumulative[middle] > target:
            high = middle
        else:
            low = middle + one
    return low


@numba.njit(nogil=True, cache=True, inline="always")
def _two_values(first, second, rows, key):
    """How many of ``rows`` draws between two values of weights ``first`` and ``second`` take the
    first: each 64-bit word gives two 32-bit uniforms (a threshold within 2**-32 of the exact
    probability). Returns the count and the advanced key."""
    threshold = np.uint64(first / (first + second) * 4294967296.0)
    hits = 0
    for _ in range(rows >> 1):
        word, key = next_word(key)
        hits += (word & HALF) < threshold
        hits += (word >> np.uint64(32)) < threshold
    if rows & 1:
        word, key = next_word(key)
        hits += (word & HALF) < threshold
    return hits, key


@numba.njit(nogil=True, cache=True, inline="always")
def _draw_each(phi, prefix, bounds, values, rows, counts, cumulative, key):
    """Add to ``counts`` (flat, as ``phi``) the hidden values of the combos drawn row by row: combo c
    draws ``rows[c]`` values among the flat indices ``values[bounds[c]:bounds[c + 1]]`` (ascending)
    with probability ∝ phi. Two values compare 32-bit uniforms with a threshold; a cell of
    consecutive indices searches the prefix sums of phi (``_prefix_sums``, not summed per cell);
    another, the cumulative sums of its own values. Returns the advanced key."""
    one = np.uint64(1)
    for c in range(rows.shape[0]):
        start, size, n = np.uint64(bounds[c]), np.uint64(bounds[c + 1] - bounds[c]), rows[c]
        first = np.uint64(values[start])
        if size == 2:
            second = np.uint64(values[start + one])
            hits, key = _two_values(phi[first], phi[second], n, key)
            counts[first] += hits
            counts[second] += n - hits
        elif np.uint64(values[start + size - one]) - first == size - one:  # ascending: no wrap-around
            base = prefix[first]
            width = prefix[first + size] - base
            window = prefix[first + one :]
            for _ in range(n):
                u, key = uniform(key)
                counts[first + _search(window, size, base + u * width)] += 1
        else:
            total = 0.0
            for i in range(size):
                total += phi[np.uint64(values[start + i])]
                cumulative[i] = total
            for _ in range(n):
                u, key = uniform(key)
                counts[np.uint64(values[start + _search(cumulative, size, u * total)])] += 1
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
    np.random.seed(seed)  # the multinomials' binomials
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
    cumulative, prefix = np.empty(n_values), np.empty(n_sensitive * n_values + 1)
    key = np.uint64(seed)
    stored = 0
    for iteration in range(-1, iterations):  # -1: a first π from the prior (counts of zero), by the same inlined draw
        if iteration >= 0:
            for i in range(flat_counts.shape[0]):
                flat_counts[i] = flat_fixed[i]
            key = _draw_each(flat_phi, prefix, each_bounds, each_values, each_rows, flat_counts, cumulative, key)
            for c in many:
                _draw_multinomial(phi, combo_s[c], cell_values, combo_values_start[c], combo_values_end[c], combo_count[c], counts)
        key = _draw_phi(flat_counts, count_shapes, flat_phi, key)
        _prefix_sums(flat_phi, prefix)
        if iteration >= burn_in and (iteration - burn_in) % thin == thin - 1 and stored < kept:
            key = _draw_theta(sensitive_shapes, theta, key)
            _normalise(phi, offsets)
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
            word, key = next_word(key)  # two 32-bit halves: the two rows, each within 2**-32 of uniform
            p = np.uint64(start) + (((word & HALF) * np.uint64(size)) >> np.uint64(32))
            q = np.uint64(start) + (((word >> np.uint64(32)) * np.uint64(size - 1)) >> np.uint64(32))
            if q >= p:
                q += np.uint64(1)
            sp, sq = sensitive[p], sensitive[q]
            proposed += 1
            if sp == sq:
                accepted += 1  # the same likelihood: always accepted, nothing changes in the counts
                _close_span(held, p, start, assign, now)
                _close_span(held, q, start, assign, now)
                assign[p], assign[q] = assign[q], assign[p]
                continue
            x, y = assign[p], assign[q]
            after = before = 1.0  # the likelihood ratio after / before, as two products: no division
            for a in range(n_attributes):
                vx, vy = tuples[x, a], tuples[y, a]
                after *= phi[sp, vy] * phi[sq, vx]
                before *= phi[sp, vx] * phi[sq, vy]
            if before < TINY or after < TINY:  # a product near underflow: the ratio attribute by attribute
                after, before = _ratio(phi, tuples, x, y, sp, sq), 1.0
            u, key = uniform(key)  # drawn whatever the ratio: a branch fewer to mispredict
            if not u * before < after:  # accepted with probability min(1, after / before); a NaN is refused
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


TINY = 1e-250
"""Below this, a product of the swap's likelihoods may have lost its digits to underflow."""


@numba.njit(nogil=True, cache=True)
def _ratio(phi, tuples, x, y, sp, sq):
    """The swap's likelihood ratio as a product of per-attribute ratios: safe from underflow."""
    ratio = 1.0
    for a in range(tuples.shape[1]):
        vx, vy = tuples[x, a], tuples[y, a]
        ratio *= (phi[sp, vy] * phi[sq, vx]) / (phi[sp, vx] * phi[sq, vy])
    return ratio


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
    n_sensitive, n_values = sensitive_counts.shape[0], offsets[-1]
    n_rows, n_attributes = qi.shape
    kept = max(0, (iterations - burn_in) // thin)
    thetas = np.empty((kept, n_sensitive))
    phis = np.empty((kept, n_sensitive, n_values))
    assign = np.arange(n_rows)  # row j holds tuple qi[assign[j]], always of its own group
    held = (np.zeros(slot_offsets[-1], dtype=np.int64), slot_offsets, np.full(n_rows, burn_in, dtype=np.int64))
    tuples = np.empty((n_rows, n_attributes), dtype=np.uint32)
    counts = np.zeros((n_sensitive, n_values), dtype=np.int64)
    for j in range(n_rows):
        for a in range(n_attributes):
            tuples[j, a] = offsets[a] + qi[j, a]
            counts[sensitive[j], tuples[j, a]] += 1
    group_starts, group_sizes = _swapped_groups(group_offsets)
    row_sensitive = sensitive.astype(np.uint32)
    count_shapes, sensitive_shapes = _shape_tables(alpha, beta, sensitive_counts)
    phi = np.empty((n_sensitive, n_values))
    theta = np.empty(n_sensitive)
    proposed = accepted = 0
    stored = 0
    key = np.uint64(seed)
    flat_phi, flat_counts = phi.reshape(n_sensitive * n_values), counts.reshape(n_sensitive * n_values)
    for iteration in range(iterations):
        key = _draw_phi(flat_counts, count_shapes, flat_phi, key)
        key, proposed, accepted = _swap_sweep(
            phi, tuples, group_starts, group_sizes, row_sensitive, assign, counts, swaps, key, proposed, accepted, held, iteration
        )
        if iteration >= burn_in and (iteration - burn_in) % thin == thin - 1 and stored < kept:
            key = _draw_theta(sensitive_shapes, theta, key)
            _normalise(phi, offsets)
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
