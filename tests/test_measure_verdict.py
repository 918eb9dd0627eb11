"""Labels from intervals at their boundaries, the verdict as the worst label, and how many trials settle a straddling interval."""

import math

import pytest

from alc_dask.measure import SettingError, wilson_interval
from alc_dask.measure.verdict import Label, Threshold, interval_label, trials_to_settle, worst


@pytest.mark.parametrize(
    ("low", "high", "label"),
    [
        (0.09, 0.2, Label.FLAGGED),  # the lower bound on the threshold: flagged
        (0.0901, 0.2, Label.FLAGGED),
        (0.0899, 0.2, Label.INCONCLUSIVE),  # straddles
        (0.0, 0.09, Label.INCONCLUSIVE),  # the upper bound on the threshold is not below it
        (0.0, 0.0899, Label.PASS),
        (math.nan, math.nan, Label.INCONCLUSIVE),  # nothing measured is never a pass
    ],
)
def test_labels_at_the_threshold(low, high, label):
    assert interval_label(low, high, 0.09) is label


def test_a_point_past_the_threshold_with_an_interval_reaching_below_is_inconclusive():
    # 15 of 100 singled out: the point 0.15 is past 0.09 but the Wilson interval reaches 0.093
    low, high = wilson_interval(100, 0.15)
    assert low < 0.15 and interval_label(low, high, 0.12) is Label.INCONCLUSIVE
    assert interval_label(*wilson_interval(1000, 0.15), 0.12) is Label.FLAGGED  # the same rate on ten times the attacks


def test_the_verdict_is_the_worst_label():
    assert worst([Label.PASS, Label.INCONCLUSIVE, Label.PASS]) is Label.INCONCLUSIVE
    assert worst(["pass", "flagged", "inconclusive"]) is Label.FLAGGED
    assert worst([]) is Label.PASS


def test_trials_to_settle_shrink_the_interval_to_the_gap():
    low, high = wilson_interval(100, 0.15)
    needed = trials_to_settle(0.15, low, high, 100, 0.12)
    assert needed > 100
    settled_low, _ = wilson_interval(needed, 0.15)
    assert settled_low >= 0.12 - 0.005  # the approximation lands at the threshold (Wilson's skew aside)
    assert trials_to_settle(0.15, *wilson_interval(5000, 0.15), 5000, 0.12) == 0  # settled already
    assert trials_to_settle(0.12, 0.1, 0.14, 100, 0.12) is None  # on the threshold: never settles


def test_bad_intervals_and_thresholds_are_refused():
    with pytest.raises(SettingError, match="low"):
        interval_label(0.5, 0.4, 0.1)
    with pytest.raises(SettingError, match="threshold"):
        Threshold(math.inf, "nowhere")
