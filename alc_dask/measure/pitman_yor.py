"""Identification at population scale (Rocher et al. 2025): anonymity sets as a Pitman–Yor process.

People are drawn from a population whose records fall into anonymity sets (records sharing their
quasi-identifiers). Correctness κ(n) is the expected share of people a matching attack identifies
correctly among n: each record is picked from its set at random, so κ is the number of sets over n.
With set frequencies π ~ PY(d, α) (discount d, concentration α):

- correctness ``E[κ(n)] = (Γ(α+1)Γ(α+d+n) / (Γ(α+d)Γ(α+n)) − α) / (n d)`` (``α (ψ(α+n) − ψ(α)) / n`` at d = 0),
- uniqueness ``E[Ξ(n)] = Γ(α+1)Γ(α+d+n−1) / (Γ(α+d)Γ(α+n))`` (the share of records alone in their set),
- k-anonymity violations ``V_k(n)``: the share of records in sets of fewer than k, a sum over the
  first k − 1 terms of a beta-binomial.

The model is also written with two readable parameters: the expected Shannon entropy of π in nats,
``h = ψ(α+1) − ψ(1−d)``, and the tail complexity ``γ = (ψ(1) − ψ(1−d)) / h`` (0: a geometric tail,
1: a heavy one; negative γ, a negative discount, is a finite population of sets). Rocher et al.'s web
fingerprints (Results), h = 41.54 and γ = 0.68, give κ ≈ 0.75 among 4e9 devices only with h in nats.

Gamma-function ratios are taken as differences of log-gammas written so that they stay exact to
~1e-12 for arguments up to 1e10 and beyond (Stirling's series of a difference, not a difference of
two huge log-gammas). A negative discount can be huge (γ < 0 at large h: −d ~ e^(h|γ|)); its ratios
are integrals of a digamma difference, by quadrature.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import digamma, exprel, gammaln, polygamma

_STIRLING_FROM = 10.0


def log_gamma_ratio(z, m):
    """``log Γ(z+m) − log Γ(z)`` for z > 0 and z + m > 0, element-wise."""
    z, m = np.broadcast_arrays(np.asarray(z, dtype=float), np.asarray(m, dtype=float))
    if np.any(z <= 0) or np.any(z + m <= 0):
        raise ValueError("log_gamma_ratio needs z > 0 and z + m > 0")
    large = np.minimum(z, z + m) >= _STIRLING_FROM
    zl, ml = np.where(large, z, _STIRLING_FROM), np.where(large, m, 0.0)
    zm = zl + ml
    stirling = (zl - 0.5) * np.log1p(ml / zl) + ml * np.log(zm) - ml + _series(zm) - _series(zl)
    direct = gammaln(np.where(large, 1.0, z + m)) - gammaln(np.where(large, 1.0, z))
    result = np.where(large, stirling, direct)
    return float(result) if result.ndim == 0 else result


def _excess(z, m):
    """``log Γ(z+m) − log Γ(z) − m log z`` for z ≥ 10, about m(m−1)/2z. From z = 1e3 the
    Bernoulli-polynomial series of the difference, exact relative to its own size; below, the
    difference of Stirling's series."""
    z, m = np.asarray(z, dtype=float), np.asarray(m, dtype=float)
    inverse = 1.0 / z  # powers of 1/z fade to 0 where powers of z would overflow
    series = m * (m - 1.0) / 2.0 * inverse - m * (m - 0.5) * (m - 1.0) / 6.0 * inverse**2 + (m * (m - 1.0)) ** 2 / 12.0 * inverse**3
    stirling = (z + m - 0.5) * np.log1p(m / z) - m + _series(z + m) - _series(z)
    return np.where(z >= 1e3, series, stirling)


def _series(x):
    inverse = 1.0 / np.asarray(x, dtype=float)  # x**5 would overflow past 1e61; 1/x**5 fades to 0
    return inverse / 12.0 - inverse**3 / 360.0 + inverse**5 / 1260.0


def digamma_difference(x: float, n):
    """``ψ(x + n) − ψ(x)``, exact also when x is huge and n small (where two digammas near ln x
    would cancel): from the asymptotic series of ψ, each term's difference taken in closed form, in
    powers of 1/x and 1/(x+n), which fade to 0 where powers of a huge x would overflow."""
    n = np.asarray(n, dtype=float)
    if x < 1e3:
        return digamma(x + n) - digamma(x)
    over_x, over_y = 1.0 / np.asarray(x, dtype=float), 1.0 / (x + n)
    return np.log1p(n * over_x) + n / 2.0 * over_x * over_y + n / 12.0 * over_x * over_y * (over_x + over_y) + (over_y**4 - over_x**4) / 120.0


def inverse_digamma(y, iterations: int = 8):
    """The x > 0 with ψ(x) = y (Newton's method from Minka's starting point), element-wise."""
    y = np.asarray(y, dtype=float)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        x = np.where(y >= -2.22, np.exp(y) + 0.5, -1.0 / (y - digamma(1.0)))
        for _ in range(iterations):
            x = x - (digamma(x) - y) / polygamma(1, x)
    return float(x) if x.ndim == 0 else x


@dataclass(frozen=True)
class PitmanYor:
    """A Pitman–Yor model of anonymity-set frequencies (Rocher et al. 2025): how identifiable people
    remain as the population they hide in grows.

    Parameters
    ----------
    d : float
        The discount, below 1 (negative for a tail lighter than geometric).
    alpha : float
        The concentration, above ``-d``.

    Raises
    ------
    ValueError
        Parameters out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from alc_dask.measure.pitman_yor import PitmanYor
    >>> model = PitmanYor.of_entropy(h=10.0, gamma=0.5)
    >>> round(model.d, 4), round(model.alpha, 2)
    (0.8104, 82.83)
    >>> np.round(model.correctness([1, 1e3, 1e6]), 4).tolist()  # the chance a match is the right person
    [1.0, 0.7192, 0.2078]
    >>> np.round(model.uniqueness([1e3, 1e6]), 4).tolist()
    [0.6149, 0.1685]
    >>> np.round(model.k_violations([1e3, 1e6], k=5), 4).tolist()
    [0.8216, 0.2333]
    """

    d: float
    alpha: float

    def __post_init__(self):
        if not (np.isfinite(self.d) and self.d < 1):
            raise ValueError(f"d must be below 1; got {self.d!r}")
        if not (np.isfinite(self.alpha) and self.alpha > -self.d):
            raise ValueError(f"alpha must be above -d ({-self.d!r}); got {self.alpha!r}")

    @classmethod
    def of_entropy(cls, h: float, gamma: float) -> PitmanYor:
        """From the expected entropy ``h`` (nats, > 0) and tail complexity ``gamma`` (at most 1)."""
        if not h > 0:
            raise ValueError(f"h must be positive (nats); got {h!r}")
        if not gamma < 1:
            raise ValueError(f"gamma must be below 1; got {gamma!r}")
        d = 1.0 - inverse_digamma(digamma(1.0) - h * gamma)
        alpha = inverse_digamma(h * (1.0 - gamma) + digamma(1.0)) - 1.0
        return cls(float(d), float(alpha))

    @property
    def h(self) -> float:
        """Expected Shannon entropy of the set frequencies, in nats."""
        return float(digamma(self.alpha + 1.0) - digamma(1.0 - self.d))

    @property
    def gamma(self) -> float:
        """Tail complexity: how much of the entropy lies in the tail of rare sets (at most 1)."""
        return float((digamma(1.0) - digamma(1.0 - self.d)) / self.h)

    def correctness(self, n):
        """Expected correctness E[κ(n)], n ≥ 1 (1 at n = 1), element-wise."""
        n = _sizes(n)
        d, alpha = self.d, self.alpha
        if abs(d) < 1e-9:
            result = np.where(n > 1, alpha * digamma_difference(alpha, n) / n, 1.0) if alpha > 0 else np.where(n > 1, 0.0, 1.0)
        elif abs(d) < 1e-4 and alpha > 0:  # log(R/α) = d Δψ + d²/2 Δψ' + d³/6 Δψ'': no division of a rounding error by d
            per_d = (
                digamma_difference(alpha, n)
                + d / 2.0 * (polygamma(1, alpha + n) - polygamma(1, alpha))
                + d**2 / 6.0 * (polygamma(2, alpha + n) - polygamma(2, alpha))
            )
            result = alpha * per_d * exprel(d * per_d) / n
        elif d < 0:
            result = alpha * np.expm1(_shift(alpha, d, n)) / (n * d)
        else:
            if alpha >= _STIRLING_FROM:  # log(R / α) in closed form: the log α parts cancel exactly
                log_r_over_alpha = _excess(alpha + d, 1.0 - d) + _excess(alpha + n, d) + (1.0 - d) * np.log1p(d / alpha) + d * np.log1p(n / alpha)
                excess = np.expm1(log_r_over_alpha) * alpha
            else:
                log_r = log_gamma_ratio(alpha + d, 1.0 - d) + log_gamma_ratio(alpha + n, d)
                excess = np.expm1(log_r - np.log(alpha)) * alpha if alpha > 0 else np.exp(log_r) - alpha
            result = excess / (n * d)
        return _out(np.clip(np.where(n > 1, result, 1.0), 0.0, 1.0))

    def uniqueness(self, n):
        """Expected share of records alone in their anonymity set among n, element-wise."""
        n = _sizes(n)
        alpha, d = self.alpha, self.d
        if d <= -1e-4:
            log_u = np.log(alpha / (alpha + n - 1.0)) + _shift(alpha, d, n - 1.0)
        elif alpha >= _STIRLING_FROM:  # the log α parts cancel in closed form
            log_u = _excess(alpha + d, 1.0 - d) + _excess(alpha + n, d - 1.0) + (1.0 - d) * (np.log1p(d / alpha) - np.log1p(n / alpha))
        else:
            log_u = log_gamma_ratio(alpha + d, 1.0 - d) + log_gamma_ratio(alpha + n, d - 1.0)
        return _out(np.clip(np.where(n > 1, np.exp(log_u), 1.0), 0.0, 1.0))

    def k_violations(self, n, k: int):
        """Expected share of records in anonymity sets of fewer than ``k`` records among n (k ≥ 2)."""
        if k < 2:
            raise ValueError(f"k must be at least 2; got {k!r}")
        n = _sizes(n)
        d, alpha = self.d, self.alpha
        total = np.zeros_like(n)
        for m in range(k - 1):  # the record's set holds m others: a beta-binomial term
            possible = n - 1 >= m
            rest = np.where(possible, n - 1 - m, 0.0)  # the records outside its set (0 stands in for an impossible term)
            log_term = log_gamma_ratio(rest + 1.0, float(m)) - gammaln(m + 1.0) + log_gamma_ratio(1.0 - d, float(m))
            if d <= -1e-4:  # Γ(α+1)Γ(α+d+rest) / (Γ(α+d)Γ(α+rest+m+1)) without cancelling huge terms
                log_term += np.log(alpha) + _shift(alpha, d, rest) - log_gamma_ratio(alpha + rest, m + 1.0)
            else:
                log_term += log_gamma_ratio(alpha + rest + m + 1.0, d - 1.0 - m) + log_gamma_ratio(alpha + d, 1.0 - d)
            total += np.where(possible, np.exp(log_term), 0.0)
        return _out(np.clip(total, 0.0, 1.0))


_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(16)


def _shift(alpha: float, d: float, n):
    """``log Γ(α+d+n)/Γ(α+n) − log Γ(α+d)/Γ(α)`` for d < 0: ``∫ (ψ(z+n) − ψ(z)) dz`` from z = α to
    α + d. The discount can be huge (−d ~ e^(h|γ|) when γ < 0), where two Stirling series cancel
    to nothing; the integrand has one sign, so its quadrature does not. Gauss–Legendre over
    z = α e^(wt), t in [0, 1], w = log(1 + d/α) (never α + d itself, which rounds when −d ≪ α), on
    pieces at most 1 wide in log z: ψ's poles lie π away."""
    n = np.asarray(n, dtype=float)
    width = np.log1p(d / alpha)
    pieces = int(np.ceil(-width))
    total = np.zeros_like(n)
    for piece in range(pieces):
        for node, weight in zip(_NODES, _WEIGHTS):
            z = alpha * np.exp(width * (piece + (node + 1.0) / 2.0) / pieces)
            total += weight / 2.0 / pieces * z * digamma_difference(z, n)
    return width * total


def _sizes(n) -> np.ndarray:
    n = np.asarray(n, dtype=float)
    if np.any(~np.isfinite(n)) or np.any(n < 1):
        raise ValueError("population sizes must be at least 1")
    return n


def _out(values: np.ndarray):
    return float(values) if values.ndim == 0 else values
