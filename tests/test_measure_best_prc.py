"""best_prc against a brute-force oracle, the reference implementation's figures on a tie-rule
vector, and the project's tie rule (a cut never splits predictions of equal confidence)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alc_dask.measure import best_prc, prc, prc_at_full_recall, wilson_interval

SPEC_CASE = Path(__file__).resolve().parent / "data" / "best_prc_case.csv"
"""A 300-attempt vector written for this project to check the tie rule, kept beside the tests so a clean clone runs it."""


def brute_force_best_prc(correct, confidence, max_interval):
    """Every distinct confidence as a threshold, each prefix counted from scratch."""
    correct = np.asarray(correct, dtype=bool)
    confidence = np.asarray(confidence, dtype=float)
    best = (0, 0.0)  # (n, prc); ties keep the smaller n
    for threshold in sorted(set(confidence.tolist()), reverse=True):
        kept = confidence >= threshold
        n = int(kept.sum())
        low, high = wilson_interval(n, correct[kept].sum() / n)
        if high - low >= max_interval:
            continue
        value = prc((low + high) / 2, n / len(correct))
        if value > best[1] + 1e-12:
            best = (n, value)
    return best


# Few distinct confidence values, so ties are the rule rather than the exception.
cases = st.integers(1, 400).flatmap(
    lambda size: st.tuples(
        st.lists(st.booleans(), min_size=size, max_size=size),
        st.lists(st.sampled_from([0.0, 0.2, 0.5, 0.5001, 0.9, 1.0]), min_size=size, max_size=size),
    )
)


@settings(max_examples=200, deadline=None)
@given(case=cases, max_interval=st.sampled_from([0.1, 0.25, 0.5]))
def test_best_prc_matches_brute_force(case, max_interval):
    correct, confidence = case
    n, value = brute_force_best_prc(correct, confidence, max_interval)
    result = best_prc(correct, confidence, max_interval=max_interval)
    assert result.n == n
    assert result.prc == pytest.approx(value, abs=1e-12)
    if n:
        kept = np.asarray(confidence) >= result.confidence_cut
        assert kept.sum() == n  # the cut keeps whole tie groups
        assert result.correct == np.asarray(correct)[kept].sum()
        assert result.interval_width < max_interval


@settings(max_examples=100, deadline=None)
@given(case=cases)
def test_result_fields_are_consistent(case):
    correct, confidence = case
    result = best_prc(correct, confidence, max_interval=0.5)
    assert result.attempts == len(correct)
    if result.found:
        assert result.recall == pytest.approx(result.n / result.attempts)
        assert result.precision == pytest.approx((result.interval_low + result.interval_high) / 2)
        assert result.prc == pytest.approx(prc(result.precision, result.recall))


def spec_case():
    return pd.read_csv(SPEC_CASE)


def test_spec_case_vector_figures():
    """The reference implementation's figures on this vector are those of the cut keeping 33 attempts."""
    df = spec_case()
    ranked = df.sort_values("confidence", ascending=False, kind="stable")
    top = ranked.head(33)
    assert top.confidence.min() > ranked.confidence.iloc[33]  # 33 is a cut between distinct values
    low, high = wilson_interval(33, top.prediction.sum() / 33)
    assert (round(low, 4), round(high, 4)) == (0.7643, 0.9686)
    assert round((low + high) / 2, 4) == pytest.approx(0.8664, abs=1e-4)
    assert prc(round((low + high) / 2, 4), 0.11) == pytest.approx(0.8545, abs=5e-5)


def test_spec_case_best_cut_respects_tie_groups():
    """The reference split the tie at confidence 0.884 (a right and a wrong prediction) when walking
    prefixes, then widened to 33; cutting only between distinct values finds a better admissible cut."""
    df = spec_case()
    result = best_prc(df.prediction, df.confidence, max_interval=0.25)
    assert (result.n, result.correct) == (31, 29)
    assert result.interval_width < 0.25
    assert result.prc > 0.8545
    assert result.prc == pytest.approx(brute_force_best_prc(df.prediction, df.confidence, 0.25)[1])
    assert not best_prc(df.prediction, df.confidence, max_interval=0.1).found


def test_tied_group_is_not_split():
    """The project's tie rule: 200 attempts of confidence 1.0, 130 right then 70 wrong: no admissible cut at
    0.1 (the reference implementation reports all 200, their interval wider than 0.1)."""
    correct = np.r_[np.ones(130, bool), np.zeros(70, bool)]
    assert not best_prc(correct, np.ones(200), max_interval=0.1).found
    assert best_prc(correct, np.ones(200), max_interval=0.25).n == 200


def test_precise_top_ranks_beat_full_recall():
    rng = np.random.default_rng(0)
    confidence = rng.random(5000)
    correct = rng.random(5000) < confidence  # higher confidence, more often right
    best = best_prc(correct, confidence)
    full = prc_at_full_recall(correct)
    assert best.prc > full.prc
    assert full.recall == 1.0 and full.n == 5000


def test_recall_scale_shrinks_recall():
    correct = np.ones(400, bool)
    assert best_prc(correct, np.ones(400), recall_scale=0.1).recall == pytest.approx(0.1)


@pytest.mark.parametrize(
    "correct, confidence, argument",
    [
        ([], [], "correct"),
        ([True, False], [0.5], "mismatched lengths"),
        ([True, 2], [0.5, 0.5], "correct"),
        ([True, False], [0.5, float("nan")], "confidence"),
        ([[True]], [[0.5]], "correct"),
    ],
)
def test_bad_input_names_the_argument(correct, confidence, argument):
    with pytest.raises(ValueError, match=argument):
        best_prc(correct, confidence)


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="max_interval"):
        best_prc([True], [1.0], max_interval=0)
    with pytest.raises(ValueError, match="recall_scale"):
        best_prc([True], [1.0], recall_scale=0)
