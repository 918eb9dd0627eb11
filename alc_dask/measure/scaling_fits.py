"""Fitting how correctness scales (Rocher et al. 2025), and the rules of thumb they compare it with (Fig. 2).

- PYC-MB: the Pitman–Yor (h, γ) whose E[κ(n)] is closest to measured κ(n) points, Nelder–Mead on
  squared errors weighted by log n (larger samples are measured more precisely), from h = 12 nats,
  γ = 0.26; γ kept in [0, 1], or [−1, 1] when asked.
- MAP: the (h, γ) that make an observed partition into anonymity sets most likely under the
  Pitman–Yor exchangeable partition probability (a flat prior on h and γ), from its frequency
  profile alone (how many sets hold 1, 2, 3, ... records).
- ENT: a uniform population of e^h equally likely sets; EXP: κ(n) = a e^(−b√n) + 1 − a e^(−b);
  POL: κ(n) = a L³ + b L² + c L + 1 with L = log10 n. Each is 1 at n = 1 and fitted to the same
  κ(n) points with the same weights.

A fit that does not converge says so (``converged`` False and the optimiser's message), and so does
a fit that stops at a bound of its parameters (``bounds``): its figures are still given, never
silently replaced.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import gammaln

from alc_dask.measure.pitman_yor import PitmanYor, log_gamma_ratio

H_LOWEST, GAMMA_HIGHEST = 1e-6, 1.0 - 1e-9
"""The fits' bounds besides γ's lowest (0, or −1 when asked): h > 0 nats, γ < 1."""
AT_BOUND = 1e-6
"""How near a bound a fitted parameter is said to be at it."""

START = (12.0, 0.26)
OTHER_STARTS = ((3.0, 0.26), (1.0, 0.9), (12.0, 0.9), (25.0, 0.5))
"""Nelder–Mead is local: a flat loss (few sets, noisy small samples) can hold it far from the best
fit, so it also starts from these, and the lowest loss wins."""


@dataclass(frozen=True)
class Fit:
    """A fitted scaling model: ``model`` predicts ``correctness(n)``.

    Attributes
    ----------
    method : str
        ``PYC-MB``, ``MAP``, ``ENT``, ``EXP`` or ``POL``.
    model : PitmanYor or a rule of thumb
    converged : bool
        Whether the optimiser converged (a fit that did not is reported, not dropped).
    message : str
        The optimiser's message.
    bounds : tuple of str
        The parameters that ended at a bound of their range, as "gamma at its bound -1".

    Examples
    --------
    >>> from alc_dask.measure.scaling_fits import fit_profile
    >>> fit = fit_profile([1, 2, 3], [50, 20, 10])  # 50 sets of one record, 20 of two, 10 of three
    >>> fit.method, fit.converged, fit.bounds
    ('MAP', True, ('gamma at its bound 0',))
    """

    method: str
    model: object
    converged: bool
    message: str
    bounds: tuple[str, ...] = ()
    """The parameters that ended at a bound of their range, as "gamma at its bound -1"."""

    def correctness(self, n):
        """The fitted model's expected correctness at population sizes ``n``."""
        return self.model.correctness(n)


def fit_correctness(n, kappa, allow_negative_gamma: bool = False, start=START) -> Fit:
    """PYC-MB: Pitman–Yor (h, γ) fitted to measured correctness ``kappa`` at sizes ``n``
    (log n-weighted squared errors), to forecast it at the population's size.

    Parameters
    ----------
    n, kappa : array_like
        At least two sample sizes and the correctness measured at each.
    allow_negative_gamma : bool, default False
        Let γ go down to −1 (a tail lighter than geometric: few combinations of values).
    start : tuple of float, optional
        The first (h, γ) tried; other starts are tried too, the lowest loss wins.

    Returns
    -------
    Fit

    Raises
    ------
    ValueError
        Fewer than two points, or ``n`` and ``kappa`` of other lengths.

    Examples
    --------
    The fit finds the model that made the points:

    >>> from alc_dask.measure.pitman_yor import PitmanYor
    >>> from alc_dask.measure.scaling_fits import fit_correctness
    >>> n = [100, 1000, 10000, 100000]
    >>> fit = fit_correctness(n, PitmanYor.of_entropy(10.0, 0.5).correctness(n))
    >>> fit.converged, round(fit.model.h, 3), round(fit.model.gamma, 3)
    (True, 10.0, 0.5)
    """
    n, kappa = _points(n, kappa)
    weights = np.log(n)  # κ(1) = 1 always: it tells nothing
    low = -1.0 if allow_negative_gamma else 0.0

    def loss(params):
        model = _model(*params, low)
        if model is None:
            return 1e6
        return float(np.sum(weights * (model.correctness(n) - kappa) ** 2))

    return _pitman_yor_fit("PYC-MB", _best_of_starts(loss, start, low, fatol=1e-12), low)


def fit_profile(set_sizes, set_counts, allow_negative_gamma: bool = False, start=START) -> Fit:
    """MAP: Pitman–Yor (h, γ) most likely to have produced ``set_counts[i]`` sets of ``set_sizes[i]`` records.

    Parameters
    ----------
    set_sizes, set_counts : array_like
        The frequency profile of the anonymity sets of a sample.
    allow_negative_gamma : bool, default False
    start : tuple of float, optional
        As for `fit_correctness`.

    Returns
    -------
    Fit

    Raises
    ------
    ValueError
        An empty profile, sizes below 1 or negative counts.

    Examples
    --------
    >>> from alc_dask.measure.scaling_fits import fit_profile
    >>> fit = fit_profile([1, 2, 3], [50, 20, 10])
    >>> round(float(fit.correctness(100)), 3)
    0.703
    """
    sizes, counts = np.asarray(set_sizes, dtype=float), np.asarray(set_counts, dtype=float)
    if sizes.size == 0 or np.any(sizes < 1) or np.any(counts < 0) or counts.sum() == 0:
        raise ValueError("a frequency profile needs set sizes of at least 1 and non-negative counts, not all 0")
    low = -1.0 if allow_negative_gamma else 0.0

    def negative_log_likelihood(params):
        model = _model(*params, low)
        return 1e300 if model is None else -partition_log_likelihood(model, sizes, counts)

    return _pitman_yor_fit("MAP", _best_of_starts(negative_log_likelihood, start, low, fatol=1e-9), low)


def _pitman_yor_fit(method: str, result, low: float) -> Fit:
    """The Pitman–Yor model at the optimiser's (h, γ), whether it converged, and the bounds it stopped at."""
    h, gamma = result.x
    model = _model(h, gamma, low)
    bounds = [
        f"{name} at its bound {bound:g}"
        for name, value, bound in (("h", h, H_LOWEST), ("gamma", gamma, low), ("gamma", gamma, GAMMA_HIGHEST))
        if abs(value - bound) < AT_BOUND
    ]
    return Fit(method, model, bool(result.success and model is not None), str(result.message), tuple(bounds))


def partition_log_likelihood(model: PitmanYor, sizes: np.ndarray, counts: np.ndarray) -> float:
    """log of the Pitman–Yor probability of a partition of n records into K sets with this profile:
    ``Π_{i<K}(α + i d) / (α+1)_(n−1) · Π_sets (1−d)_(size−1)``."""
    d, alpha = model.d, model.alpha
    sets, records = counts.sum(), (sizes * counts).sum()
    if abs(d) < 1e-12:
        new_sets = (sets - 1) * np.log(alpha) if sets > 1 else 0.0
    elif d > 0:
        new_sets = (sets - 1) * np.log(d) + log_gamma_ratio(alpha / d + 1.0, sets - 1.0) if sets > 1 else 0.0
    else:  # a negative discount: a finite population of sets, alpha + i d stays positive
        i = np.arange(1, sets)
        if np.any(alpha + i * d <= 0):
            return -np.inf
        new_sets = float(np.sum(np.log(alpha + i * d)))
    within = float(np.sum(counts * (gammaln(sizes - d) - gammaln(1.0 - d))))
    return float(new_sets - log_gamma_ratio(alpha + 1.0, records - 1.0) + within)


def _best_of_starts(objective, start, low: float, fatol: float):
    """Bounded Nelder–Mead from ``start`` and ``OTHER_STARTS``; the result of lowest objective."""
    bounds = [(H_LOWEST, None), (low, GAMMA_HIGHEST)]
    results = [
        minimize(objective, np.asarray(point, dtype=float), method="Nelder-Mead", bounds=bounds, options={"xatol": 1e-8, "fatol": fatol, "maxiter": 4000})
        for point in (start, *OTHER_STARTS)
    ]
    return min(results, key=lambda result: result.fun)


def _model(h: float, gamma: float, low: float) -> PitmanYor | None:
    if not (h > 0 and low <= gamma < 1):
        return None
    try:
        model = PitmanYor.of_entropy(h, gamma)
    except ValueError:
        return None
    return model if np.isfinite(model.alpha) and np.isfinite(model.d) else None


@dataclass(frozen=True)
class Entropy:
    """ENT: e^h equally likely anonymity sets (h in nats)."""

    h: float

    def correctness(self, n):
        sets = np.exp(self.h)
        n = np.asarray(n, dtype=float)
        return np.clip(sets / n * -np.expm1(n * np.log1p(-1.0 / sets)) if sets > 1 else 1.0 / n, 0.0, 1.0)


@dataclass(frozen=True)
class ExponentialDecay:
    """EXP: κ(n) = a e^(−b√n) + 1 − a e^(−b)."""

    a: float
    b: float

    def correctness(self, n):
        n = np.asarray(n, dtype=float)
        return np.clip(self.a * np.exp(-self.b * np.sqrt(n)) + 1.0 - self.a * np.exp(-self.b), 0.0, 1.0)


@dataclass(frozen=True)
class Polynomial:
    """POL: κ(n) = a L³ + b L² + c L + 1, L = log10 n, clipped to [0, 1]."""

    a: float
    b: float
    c: float

    def correctness(self, n):
        level = np.log10(np.asarray(n, dtype=float))
        return np.clip(((self.a * level + self.b) * level + self.c) * level + 1.0, 0.0, 1.0)


def fit_baselines(n, kappa) -> dict[str, Fit]:
    """The rules of thumb PYC-MB is compared with (Rocher et al. 2025, Fig. 2): entropy (ENT),
    exponential decay (EXP) and a polynomial in log n (POL), fitted to the same points.

    Parameters
    ----------
    n, kappa : array_like
        As for `fit_correctness`.

    Returns
    -------
    dict of str to Fit
        ``ENT``, ``EXP`` and ``POL``.

    Raises
    ------
    ValueError
        Fewer than two points.

    Examples
    --------
    >>> from alc_dask.measure.pitman_yor import PitmanYor
    >>> from alc_dask.measure.scaling_fits import fit_baselines
    >>> n = [100, 1000, 10000, 100000]
    >>> sorted(fit_baselines(n, PitmanYor.of_entropy(10.0, 0.5).correctness(n)))
    ['ENT', 'EXP', 'POL']
    """
    n, kappa = _points(n, kappa)
    weights = np.log(n)
    fits = {}
    for name, build, start in (
        ("ENT", lambda p: Entropy(p[0]), [np.log(max(n.max(), 2.0))]),
        ("EXP", lambda p: ExponentialDecay(*p), [1.0, 1.0]),
        ("POL", lambda p: Polynomial(*p), [0.0, -1.0, -1.0]),
    ):
        result = minimize(
            lambda p, build=build: float(np.sum(weights * (build(p).correctness(n) - kappa) ** 2)), start, method="Nelder-Mead", options={"maxiter": 4000}
        )
        fits[name] = Fit(name, build(result.x), bool(result.success), str(result.message))
    return fits


def _points(n, kappa) -> tuple[np.ndarray, np.ndarray]:
    n, kappa = np.asarray(n, dtype=float), np.asarray(kappa, dtype=float)
    if n.shape != kappa.shape or n.ndim != 1 or n.size < 2:
        raise ValueError("a fit needs at least two (n, kappa) points of the same length")
    if np.any(n < 1) or np.any(~np.isfinite(kappa)) or np.any((kappa < 0) | (kappa > 1)):
        raise ValueError("sizes must be at least 1 and correctness within [0, 1]")
    return n, kappa
