"""SUDA scores and DIS-SUDA risks of records from their minimal sample uniques, as pure functions.

A *minimal sample unique* (MSU) of a record is a set of key variables on which the record's values
occur once in the table while they occur more than once on every proper subset (Elliot, Manning &
Ford 2002; Manning, Haglin & Keane 2008, §2). A record with an MSU is a *special unique*: unique
for a reason its few values already give, rarer in the population than a record unique by chance.

- SUDA score (Elliot, Manning & Ford 2002): each MSU of size k of a record, among M key variables
  searched up to size m, adds ``prod_{i=k}^{m-1} (M - i)``: small MSUs weigh most. With m = M this
  is ``(M - k)!``, the weight sdcMicro's ``suda2`` gives with ``original_scores = TRUE`` (it always
  searches every size); a smaller m divides every weight by ``(M - m)!``, which the DIS-SUDA risk
  does not see.
- DIS (Skinner & Elliot 2002, the data intrusion simulation's estimate of the probability that a
  unique match is correct): ``U f / (U f + P (1 - f))``, U the records unique on all key variables,
  P the records in pairs on them, f the sampling fraction (sdcMicro's ``DisFraction``).
- DIS-SUDA (Elliot 2000; the form sdcMicro's ``suda2`` returns as ``disScore``): the file-level DIS
  spread over the special uniques by their scores, ``1 / (1 + (U / DIS - U) / (s^Q Σ_j s_j^-Q))``
  for a record of score s > 0 (the sum over records of positive score), 0 for the others, with
  ``Q = 1 + (8 - M) / 20``.
"""

from __future__ import annotations

import math

import numpy as np

from alc_dask.measure._checks import SettingError, check_count


def msu_weights(n_keys: int, max_size: int) -> np.ndarray:
    """The score an MSU of each size 1..max_size adds: ``prod_{i=k}^{max_size-1} (n_keys - i)``."""
    check_count("n_keys", n_keys)
    check_count("max_size", max_size)
    if max_size > n_keys:
        raise SettingError("max_size", max_size, f"at most the number of key variables ({n_keys})")
    return np.array([math.prod(n_keys - i for i in range(k, max_size)) for k in range(1, max_size + 1)], dtype=np.float64)


def suda_scores(msu_counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per record (rows of ``msu_counts``: how many MSUs of each size it has), its SUDA score."""
    counts = np.asarray(msu_counts, dtype=np.float64)
    if counts.ndim != 2 or counts.shape[1] != len(weights):
        raise SettingError("msu_counts", counts.shape, f"a matrix of records by the {len(weights)} MSU sizes")
    return counts @ np.asarray(weights, dtype=np.float64)


def dis_probability(n_unique: int, n_in_pairs: int, fraction: float) -> float:
    """Skinner & Elliot's (2002) estimate of the probability that a unique match is correct:
    ``U f / (U f + P (1 - f))``; NaN when the table has no unique record (nothing to match)."""
    if not 0 < fraction < 1:
        raise SettingError("dis_fraction", fraction, "a sampling fraction in (0, 1)")
    if n_unique < 0 or n_in_pairs < 0:
        raise SettingError("n_unique", (n_unique, n_in_pairs), "counts of records, at least 0")
    if n_unique == 0:
        return float("nan")
    return n_unique * fraction / (n_unique * fraction + n_in_pairs * (1.0 - fraction))


def dis_exponent(n_keys: int) -> float:
    """The exponent Q of DIS-SUDA: ``1 + (8 - M) / 20``."""
    return 1.0 + (8.0 - n_keys) / 20.0


def score_power_sum(scores: np.ndarray, n_keys: int, counts: np.ndarray | None = None) -> float:
    """``Σ s^-Q`` over the records of positive score (``counts``: how many records have each of
    ``scores``, one each by default): the normalizer of DIS-SUDA."""
    scores = np.asarray(scores, dtype=np.float64)
    counts = np.ones(scores.shape) if counts is None else np.asarray(counts, dtype=np.float64)
    positive = scores > 0
    return float((counts[positive] * np.power(scores[positive], -dis_exponent(n_keys))).sum())


def dis_suda(scores: np.ndarray, n_keys: int, n_unique: int, dis: float, power_sum: float) -> np.ndarray:
    """Per record, the DIS-SUDA risk of its SUDA score (0 for a record without MSU); ``power_sum``
    is ``score_power_sum`` of every record of the table."""
    scores = np.asarray(scores, dtype=np.float64)
    risk = np.zeros(scores.shape, dtype=np.float64)
    positive = scores > 0
    if not positive.any():
        return risk
    false_matches = n_unique / dis - n_unique
    risk[positive] = 1.0 / (1.0 + false_matches / (np.power(scores[positive], dis_exponent(n_keys)) * power_sum))
    return risk
