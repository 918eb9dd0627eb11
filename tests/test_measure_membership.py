"""Membership measures at realistic base rates: vectors from Francis & Wagner 2024 (§5, eq. 11 and the
ROC points of its Figure 10), ROC counts against scikit-learn, and the properties a precision at a skew must have."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score, roc_curve

from alc_dask.measure import Roc, Skew, precision_at_skew


@pytest.mark.parametrize(
    ("tpr", "fpr", "members", "non_members", "expected"),
    [
        (1.0, 0.05, 1000, 1000, 0.952),  # FPR 0.05, FNR 0, balanced
        (1.0, 0.05, 20, 1980, 0.168),  # the same attack, 1 member in 100
        (0.002, 1e-4, 1, 30, 0.400),  # Shokri et al. at 1:30
        (0.35, 1e-3, 1, 240, 0.593),  # Carlini et al. at 1:240
        (1.0, 1.0, 1, 30, 0.0323),  # everyone is a member, at 1:30
    ],
)
def test_seed_vectors(tpr, fpr, members, non_members, expected):
    assert precision_at_skew(tpr, fpr, members, non_members) == pytest.approx(expected, abs=5e-4)


def test_all_member_guess_is_the_skews_baseline():
    assert Skew.parse("1:30").baseline == pytest.approx(0.0323, abs=5e-5)
    assert precision_at_skew(1.0, 1.0, 1, 30) == Skew.parse("1:30").baseline


@pytest.mark.parametrize(
    ("text", "message"),
    [("1:0", "no non-members"), ("0:5", "no members"), ("abc", "not of the form"), ("1:2:3", "not of the form"), ("-1:5", "no members")],
)
def test_bad_skews_are_refused_naming_the_skew(text, message):
    with pytest.raises(ValueError, match=message) as error:
        Skew.parse(text)
    assert repr(text) in str(error.value)


def test_population_skew_and_words():
    skew = Skew.of_population(10_000, 2_400_000)
    assert str(skew) == "10000:2390000" and skew.baseline == pytest.approx(10_000 / 2_400_000)
    assert Skew.parse("1:100").in_words() == "1 member in 101 people"
    with pytest.raises(ValueError, match="population 500"):
        Skew.of_population(1000, 500)


@settings(max_examples=60, deadline=None)
@given(
    tpr=st.floats(1e-6, 1.0),
    fpr=st.floats(1e-6, 1.0),
    small=st.floats(1.0, 1e6),
    factor=st.floats(1.01, 100.0),
)
def test_precision_falls_as_non_members_grow(tpr, fpr, small, factor):
    assert precision_at_skew(tpr, fpr, 1, small * factor) < precision_at_skew(tpr, fpr, 1, small)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), levels=st.integers(2, 50))
def test_balanced_curve_is_precision_of_the_confusion_counts(seed, n, levels):
    """At 1:1 with as many members as non-members, the curve is TP / (TP + FP) at thresholds of the score."""
    rng = np.random.default_rng(seed)
    members, non_members = rng.integers(0, levels, n) + rng.integers(0, 2, n), rng.integers(0, levels, n)
    direct = set()
    for threshold in np.unique(np.r_[members, non_members]):
        tp, fp = (members >= threshold).sum(), (non_members >= threshold).sum()
        direct.add((round(tp / n, 12), round(tp / (tp + fp), 12)))
    recall, precision = Roc.from_scores(members, non_members).precision_recall(Skew.parse("1:1"))
    assert len(recall) and set(zip(np.round(recall, 12), np.round(precision, 12))) <= direct


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_members=st.integers(1, 200), n_non_members=st.integers(1, 200), levels=st.integers(1, 30))
def test_auc_and_curve_agree_with_scikit_learn(seed, n_members, n_non_members, levels):
    rng = np.random.default_rng(seed)
    members, non_members = rng.integers(0, levels, n_members) + 0.5 * rng.integers(0, 2, n_members), rng.integers(0, levels, n_non_members)
    roc = Roc.from_scores(members, non_members)
    truth, scores = np.r_[np.ones(n_members), np.zeros(n_non_members)], np.r_[members, non_members]
    assert roc.auc() == pytest.approx(roc_auc_score(truth, scores))
    fpr, tpr, _ = roc_curve(truth, scores, drop_intermediate=False)
    assert set(zip(np.round(roc.fpr, 12), np.round(roc.tpr, 12))) <= set(zip(np.round(fpr, 12), np.round(tpr, 12))) | {(0.0, 0.0)}
    for limit in (0.0, 0.1, 0.5, 1.0):  # the highest TPR at each FPR survives the dropped points
        assert roc.tpr[roc.fpr <= limit].max() == pytest.approx(tpr[fpr <= limit].max(initial=0.0))


def delong_from_scores(members: np.ndarray, non_members: np.ndarray, z: float) -> tuple[float, float]:
    """DeLong's interval computed record by record from the raw scores (the definition)."""
    outscored = np.array([np.mean((m > non_members) + 0.5 * (m == non_members)) for m in members])
    outscoring = np.array([np.mean((members > n) + 0.5 * (members == n)) for n in non_members])
    spread = [np.var(shares, ddof=1) if shares.size > 1 else 0.0 for shares in (outscored, outscoring)]
    var = spread[0] / members.size + spread[1] / non_members.size
    auc = outscored.mean()
    return max(0.0, auc - z * np.sqrt(var)), min(1.0, auc + z * np.sqrt(var))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_members=st.integers(1, 150), n_non_members=st.integers(1, 150), levels=st.integers(1, 30))
def test_auc_interval_from_the_counts_is_delongs_from_the_scores(seed, n_members, n_non_members, levels):
    """The ROC keeps counts, with straight runs merged: the per-record shares DeLong's variance needs survive."""
    rng = np.random.default_rng(seed)
    members, non_members = rng.integers(0, levels, n_members) + 0.5 * rng.integers(0, 2, n_members), rng.integers(0, levels, n_non_members).astype(float)
    stored = Roc.from_scores(members, non_members)
    roc = Roc.from_counts(stored.false_positives, stored.true_positives, n_members, n_non_members)
    assert roc.auc_interval(0.9) == pytest.approx(delong_from_scores(members, non_members, 1.6448536269514722))


def test_auc_interval_covers_the_true_auc_about_as_often_as_it_says():
    """Scores N(0.5, 1) for members and N(0, 1) for non-members: true AUC Φ(0.5 / √2) = 0.6382."""
    rng = np.random.default_rng(8)
    covered = [low <= 0.6382 <= high for low, high in (Roc.from_scores(rng.normal(0.5, 1, 300), rng.normal(0, 1, 200)).auc_interval() for _ in range(400))]
    assert 0.92 <= np.mean(covered) <= 0.98
    low, high = Roc.from_scores(np.arange(10.0) + 100, np.arange(10.0)).auc_interval()
    assert low == high == 1.0


def test_counts_round_trip_and_collinear_points_are_dropped():
    roc = Roc.from_scores([5, 4, 3, 2], [1, 0])  # members all first: the curve goes straight up, then right
    assert roc.false_positives.tolist() == [0, 0, 2] and roc.true_positives.tolist() == [0, 4, 4]
    again = Roc.from_counts([0, 0, 0, 0, 0, 1, 2], [0, 1, 2, 3, 4, 4, 4], 4, 2)
    assert again.false_positives.tolist() == roc.false_positives.tolist() and again.true_positives.tolist() == roc.true_positives.tolist()
    assert roc.auc() == 1.0


def test_tpr_at_fpr_reports_only_what_the_non_members_resolve():
    rng = np.random.default_rng(3)
    roc = Roc.from_scores(rng.normal(2, 1, 5000), rng.normal(0, 1, 1000))
    points = roc.tpr_at_fpr()
    assert [p.fpr_target for p in points] == [0.1, 0.01, 0.001]  # 1e-4 and 1e-5 need more than 1000 non-members
    for p in points:
        assert p.fpr <= p.fpr_target and p.tpr_low <= p.tpr <= p.tpr_high
    assert points[0].tpr > points[1].tpr > points[2].tpr


def test_a_lucky_point_does_not_claim_certainty_at_a_skew():
    """The first 5 records are members and no non-member scores as high: measured precision 1, but
    100 non-members cannot show a false positive rate below 1/1000, so at 1:1000 it is not 'right every time'."""
    members = np.r_[np.full(5, 10.0), np.zeros(995)]
    roc = Roc.from_scores(members, np.zeros(100))
    recall, precision = roc.precision_recall(Skew.parse("1:1000"))
    assert precision[0] == 1.0  # measured
    best = roc.precision_at(Skew.parse("1:1000"))
    assert best.precision < 0.05 and not best.above_baseline
    assert best.precision_low <= best.precision <= best.precision_high


def test_copied_members_beat_the_baseline_and_random_scores_do_not():
    rng = np.random.default_rng(7)
    copied = Roc.from_scores(np.zeros(3000), rng.uniform(0.1, 1, 1000) * -1)
    random = Roc.from_scores(rng.random(3000), rng.random(1000))
    for text in ("1:1", "1:10", "1:100", "1:1000"):
        skew = Skew.parse(text)
        exposed, safe = copied.precision_at(skew), random.precision_at(skew)
        assert exposed.above_baseline and exposed.precision_low > min(0.9, 10 * skew.baseline)
        assert exposed.alc > (0.5 if skew.non_members <= 100 else 0.2)  # 1000 non-members cannot show an FPR much below 1/1000
        assert not safe.above_baseline and safe.alc < 0.1
    assert copied.auc() == 1.0 and abs(random.auc() - 0.5) < 0.03


@pytest.mark.parametrize(("members", "non_members", "message"), [([1.0, np.nan], [0.0], "member_scores holds NaN"), ([1.0], [], "non_member_scores is empty")])
def test_bad_scores_are_refused(members, non_members, message):
    with pytest.raises(ValueError, match=message):
        Roc.from_scores(members, non_members)


@pytest.mark.parametrize("correlation", [-1.0, 0.0, 1.0])
def test_the_paired_auc_interval_covers_the_auc_95_percent_of_the_time(correlation):
    """Each person scored on both sides: the scores of one person are correlated, which the
    independent interval ignores (too wide when they move together, too narrow when apart)."""
    from scipy.stats import norm

    from alc_dask.measure.membership import paired_auc_interval

    rng, shift, covered = np.random.default_rng(7), 0.3, 0
    truth = norm.cdf(shift / np.sqrt(2 + correlation**2 + 1))  # member ~ N(0.3, 2), non-member ~ N(0, c² + 1), a member and a non-member drawn apart
    for _ in range(400):
        person = rng.normal(size=500)
        low, high = paired_auc_interval(person + rng.normal(size=500) + shift, correlation * person + rng.normal(size=500))
        covered += low <= truth <= high
    assert 0.92 <= covered / 400 <= 0.98


def test_paired_scores_must_come_in_pairs():
    from alc_dask.measure.membership import paired_auc_interval

    with pytest.raises(ValueError, match="paired scores: 3 member scores and 2 non-member scores"):
        paired_auc_interval([1.0, 2.0, 3.0], [1.0, 2.0])
