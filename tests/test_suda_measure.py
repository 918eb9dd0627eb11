"""SUDA scores, DIS and DIS-SUDA (``alc_dask.measure.suda``) against hand-computed examples and
sdcMicro's documented one."""

import math

import numpy as np
import pytest

from alc_dask.data import EncodedTable
from alc_dask.families.special_uniques.keys import KeySpace
from alc_dask.families.special_uniques.measures import contributions
from alc_dask.families.special_uniques.search import block_counts, block_summary
from alc_dask.measure import SettingError
from alc_dask.measure.suda import dis_exponent, dis_probability, dis_suda, msu_weights, score_power_sum, suda_scores


def test_weights_are_elliots_products_over_the_sizes_not_searched():
    # prod_{i=k}^{m-1} (M - i): M = 5 variables searched up to size 3
    np.testing.assert_array_equal(msu_weights(5, 3), [4 * 3, 3, 1])
    # up to every size, (M - k)!: sdcMicro's original_scores weights
    np.testing.assert_array_equal(msu_weights(4, 4), [math.factorial(3), math.factorial(2), 1, 1])
    # a smaller maximum divides every weight by the same (M - m)!
    np.testing.assert_allclose(msu_weights(6, 6)[:3] / msu_weights(6, 3), math.factorial(3))


def test_a_maximum_above_the_number_of_key_variables_is_refused():
    with pytest.raises(SettingError, match="max_size"):
        msu_weights(3, 4)


def test_scores_add_each_msu_weight():
    scores = suda_scores(np.array([[1, 0, 0], [0, 2, 1], [0, 0, 0]]), msu_weights(4, 3))
    np.testing.assert_array_equal(scores, [3 * 2, 2 * 2 + 1, 0])  # weights 6, 2, 1


def _three_records():
    """sdcMicro's test of its attribute contributions: a = (2, 1, 1), b = (0, 3, 0), c = (0, 6, 0)."""
    codes = {"a": np.array([2, 1, 1]), "b": np.array([0, 3, 0]), "c": np.array([0, 6, 0])}
    return EncodedTable.build("t", codes, {}), KeySpace(("a", "b", "c"), (3, 4, 7), 3)


def test_sdcmicro_example_scores_and_contributions():
    """Record 1 is unique on a (score 2! = 2), record 2 on b and on c (2 + 2), record 3 on {a, b}
    and {a, c} (1 + 1); sdcMicro's test expects contributions 50, 37.5 and 37.5 percent."""
    table, space = _three_records()
    summary = block_summary(table, 0, space, block_counts(table, space), msu_weights(3, 3), 3, None)
    np.testing.assert_array_equal(summary.top_rows, [1, 0, 2])
    np.testing.assert_array_equal(summary.top_scores, [4, 2, 2])
    np.testing.assert_array_equal(summary.msus_by_size, [3, 2, 0])
    assert contributions(summary, space.columns) == {"a": 50.0, "b": 37.5, "c": 37.5}


def test_dis_is_skinner_and_elliots_estimate():
    # 40 uniques, 30 records in pairs, sampling fraction 0.1: 4 / (4 + 27)
    assert dis_probability(40, 30, 0.1) == pytest.approx(4 / 31)
    assert dis_probability(40, 0, 0.1) == 1.0
    assert math.isnan(dis_probability(0, 10, 0.1))
    with pytest.raises(SettingError, match="dis_fraction"):
        dis_probability(4, 2, 1.0)


def test_dis_suda_by_hand():
    scores = np.array([4.0, 2.0, 0.0, 2.0])
    n_keys, n_unique, dis = 3, 3, 0.25
    q = 1 + (8 - 3) / 20
    assert dis_exponent(n_keys) == q
    power_sum = score_power_sum(scores, n_keys)
    assert power_sum == pytest.approx(4**-q + 2 * 2**-q)
    false_matches = n_unique / dis - n_unique  # 9
    expected = [1 / (1 + false_matches / (s**q * power_sum)) if s else 0.0 for s in scores]
    risk = dis_suda(scores, n_keys, n_unique, dis, power_sum)
    np.testing.assert_allclose(risk, expected)
    assert risk[0] > risk[1] == risk[3] > risk[2] == 0


def test_dis_suda_ignores_a_common_factor_of_the_scores():
    """Searching up to a smaller size divides every weight by (M - m)!: the risks do not move."""
    scores = np.array([12.0, 3.0, 1.0, 0.0])
    risks = [dis_suda(s, 5, 4, 0.3, score_power_sum(s, 5)) for s in (scores, 6 * scores)]
    np.testing.assert_allclose(risks[0], risks[1])


def test_every_unique_is_certain_without_pairs():
    scores = np.array([3.0, 1.0])
    np.testing.assert_array_equal(dis_suda(scores, 4, 2, dis_probability(2, 0, 0.01), score_power_sum(scores, 4)), [1.0, 1.0])


def test_the_power_sum_of_a_score_distribution_equals_that_of_its_records():
    scores = np.array([0.0, 2.0, 2.0, 5.0, 2.0])
    values, counts = np.unique(scores, return_counts=True)
    assert score_power_sum(values, 6, counts) == pytest.approx(score_power_sum(scores, 6))
