"""The empirical lower bound on ε from an attack's ROC, on scores whose true privacy loss is known:
randomized response on the membership bit (ε exactly) and the Laplace mechanism (ε exactly)."""

import math

import numpy as np
import pytest
from scipy.stats import beta

from alc_dask.measure import Roc
from alc_dask.measure.dp_audit import clopper_pearson_lower, clopper_pearson_upper, epsilon_lower_bound


def randomized_response(epsilon: float, n: int, rng) -> Roc:
    """Scores 1 or 0: a member scores 1 with chance e^ε/(1 + e^ε), a non-member with 1/(1 + e^ε)."""
    kept = math.exp(epsilon) / (1 + math.exp(epsilon))
    return Roc.from_scores((rng.random(n) < kept).astype(float), (rng.random(n) < 1 - kept).astype(float))


def laplace(epsilon: float, n: int, rng) -> Roc:
    """Scores of the Laplace mechanism of sensitivity 1: members at 1, non-members at 0, scale 1/ε."""
    return Roc.from_scores(rng.laplace(1.0, 1 / epsilon, n), rng.laplace(0.0, 1 / epsilon, n))


def test_clopper_pearson_bounds_are_the_beta_quantiles_and_the_ends_are_exact():
    assert clopper_pearson_lower(30, 100, 0.05) == pytest.approx(beta.ppf(0.05, 30, 71))
    assert clopper_pearson_upper(30, 100, 0.05) == pytest.approx(beta.ppf(0.95, 31, 70))
    assert clopper_pearson_lower(0, 100, 0.05) == 0.0 and clopper_pearson_upper(100, 100, 0.05) == 1.0
    assert clopper_pearson_lower(100, 100, 0.05) == pytest.approx(0.05 ** (1 / 100))  # all succeed: alpha^(1/n)
    assert clopper_pearson_upper(0, 100, 0.05) == pytest.approx(1 - 0.05 ** (1 / 100))


@pytest.mark.parametrize("mechanism", [randomized_response, laplace])
@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_the_bound_lies_below_the_true_epsilon_and_grows_towards_it_with_more_records(mechanism, epsilon):
    rng = np.random.default_rng(7)
    bounds = [epsilon_lower_bound(mechanism(epsilon, n, rng)).epsilon for n in (500, 4000, 40_000)]
    assert bounds[0] < bounds[1] < bounds[2] < epsilon
    assert bounds[2] > 0.75 * epsilon


def test_the_bound_holds_for_every_threshold_at_once_where_the_best_threshold_read_naively_does_not():
    """300 audits of the Laplace mechanism at ε = 1 on 200 + 200 records, a threshold per distinct
    score: the bound never passes ε; per-threshold 95% bounds maximised over thresholds pass it
    in about one audit in seven."""
    rng = np.random.default_rng(1)
    over, naive = 0, 0
    for _ in range(300):
        roc = laplace(1.0, 200, rng)
        over += epsilon_lower_bound(roc).epsilon > 1.0
        tpr_low, fpr_high = clopper_pearson_lower(roc.true_positives, 200, 0.05), clopper_pearson_upper(roc.false_positives, 200, 0.05)
        with np.errstate(divide="ignore"):
            naive += max(np.log(tpr_low / fpr_high).max(), np.log((1 - fpr_high) / (1 - tpr_low)).max()) > 1.0
    assert over <= 300 * 0.05 and over == 0
    assert naive > 300 * 0.05


def test_a_copy_proves_a_large_epsilon_and_unrelated_scores_prove_nothing():
    rng = np.random.default_rng(3)
    copy = epsilon_lower_bound(Roc.from_scores(np.zeros(600), -rng.uniform(0.1, 1.0, 600)))
    each = (0.05 / 1200) ** (1 / 600)  # every member found, no non-member: each bound at 5% over 2 x 600 cuts
    assert copy.epsilon == pytest.approx(math.log(each / (1 - each)), rel=1e-9)
    assert copy.epsilon > 4 and copy.tpr_low > 0.98 and copy.fpr_high < 0.02
    unrelated = epsilon_lower_bound(Roc.from_scores(rng.random(2000), rng.random(2000)))
    assert unrelated.epsilon == 0.0


def test_delta_lowers_the_bound_and_the_complementary_test_counts():
    rng = np.random.default_rng(5)
    roc = randomized_response(2.0, 4000, rng)
    assert epsilon_lower_bound(roc, delta=0.05).epsilon < epsilon_lower_bound(roc).epsilon
    # members rarely score low, non-members often: only "called non-member" tells them apart
    rare = Roc.from_scores(np.r_[np.ones(990), np.zeros(10)], np.r_[np.ones(500), np.zeros(500)])
    bound = epsilon_lower_bound(rare)
    assert bound.complement and bound.epsilon > 2.5


def test_a_higher_confidence_gives_a_lower_bound():
    roc = laplace(1.0, 4000, np.random.default_rng(2))
    assert epsilon_lower_bound(roc, confidence_level=0.99).epsilon < epsilon_lower_bound(roc, confidence_level=0.9).epsilon


@pytest.mark.parametrize(("delta", "confidence_level", "message"), [(1.0, 0.95, "delta"), (-0.1, 0.95, "delta"), (0.0, 1.0, "confidence_level")])
def test_bad_settings_are_named(delta, confidence_level, message):
    with pytest.raises(ValueError, match=message):
        epsilon_lower_bound(Roc.from_scores([1.0], [0.0]), delta=delta, confidence_level=confidence_level)
