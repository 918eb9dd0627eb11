"""k-anonymity, ℓ-diversity and t-closeness of a release's equivalence classes, as pure functions of
a class × sensitive-value count matrix.

- k-anonymity (Sweeney 2002): every equivalence class (records alike on the quasi-identifiers)
  holds at least k records; the release's k is its smallest class.
- ℓ-diversity (Machanavajjhala et al. 2007, §4.1 and Definition 4.1 for entropy): distinct ℓ is a
  class's number of distinct sensitive values; entropy ℓ is ``exp(H)`` of its sensitive
  distribution (a class is entropy ℓ-diverse when ``H >= log ℓ``).
- t-closeness (Li, Li & Venkatasubramanian 2007, §4): a class's t is the earth mover's distance
  between its sensitive distribution P and the whole table's Q. With the m values ordered, the
  ordered ground distance ``|i - j| / (m - 1)`` gives ``EMD = (1 / (m - 1)) Σ_i |Σ_{j<=i} (p_j -
  q_j)|`` (§4.2, numerical attributes); the equal ground distance (every two values at distance 1,
  categorical attributes) gives ``EMD = ½ Σ_i |p_i - q_i|``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def ordered_emd(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """EMD under the ordered ground distance of each row of ``p`` (classes × m values, each row a
    distribution) to ``q``; 0 for a single value."""
    m = q.shape[-1]
    if m < 2:
        return np.zeros(p.shape[0])
    return np.abs(np.cumsum(p - q, axis=1)).sum(axis=1) / (m - 1)


def equal_emd(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """EMD under the equal ground distance: half the L1 distance (total variation)."""
    return 0.5 * np.abs(p - q).sum(axis=1)


@dataclass(frozen=True)
class ClassModels:
    """Per equivalence class: its size, distinct ℓ, entropy ℓ and t."""

    sizes: np.ndarray
    distinct: np.ndarray
    entropy: np.ndarray
    closeness: np.ndarray


def class_models(counts: np.ndarray, overall: np.ndarray, ordered: bool) -> ClassModels:
    """The models of classes with sensitive ``counts`` (classes × values, columns in the values'
    order when ``ordered``), against the table's distribution ``overall`` (counts per value)."""
    counts = np.asarray(counts, dtype=np.float64)
    sizes = counts.sum(axis=1)
    share = counts / np.maximum(sizes, 1)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy = -np.where(share > 0, share * np.log(share), 0.0).sum(axis=1)
    q = np.asarray(overall, dtype=np.float64)
    q = q / q.sum() if q.sum() else q
    emd = ordered_emd(share, q) if ordered else equal_emd(share, q)
    return ClassModels(sizes.astype(np.int64), (counts > 0).sum(axis=1), np.exp(entropy), emd)


def violating(models: ClassModels, k: int, l_distinct: int | None, l_entropy: float | None, t: float | None) -> np.ndarray:
    """Per class, whether it misses any of the declared models (None: not declared)."""
    bad = models.sizes < k
    if l_distinct is not None:
        bad |= models.distinct < l_distinct
    if l_entropy is not None:
        bad |= models.entropy < l_entropy * (1 - 1e-12)
    if t is not None:
        bad |= models.closeness > t * (1 + 1e-12)
    return bad
