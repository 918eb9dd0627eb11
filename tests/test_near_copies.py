"""The near-copies family: released rows nearer to a member than to each other, on releases whose truth is known."""

import numpy as np
import pytest

from alc_dask import Release
from alc_dask.families import get_family
from alc_dask.measure.nearer import nearer_share
from alc_dask.measure.verdict import Label
from alc_dask.testing.truth import truth_releases

NearCopies = get_family("near_copies")


def judged(release: Release) -> tuple[Label, dict]:
    measures = NearCopies().evaluate(release, seed=0).measures
    return NearCopies.judge(measures, NearCopies.threshold.value)[0], measures


@pytest.fixture(scope="module")
def truth():
    return truth_releases(rows=2000, seed=3)


@pytest.mark.parametrize("name", ["copy", "noisy_5", "noisy_10", "noisy_20"])
def test_copies_and_noisy_copies_are_flagged_without_a_control_table(truth, name):
    label, measures = judged(Release.load(truth.members, [truth.releases[name]]))
    assert label is Label.FLAGGED, measures


@pytest.mark.parametrize("name", ["bootstrap", "smoothed_marginals"])
def test_releases_of_other_people_pass(truth, name):
    label, measures = judged(Release.load(truth.members, [truth.releases[name]]))
    assert label is Label.PASS and measures["near_copy_share"] <= 0, measures


def test_a_fresh_sample_of_the_population_scores_about_nothing(truth):
    """The control's people, a sample of the same population as the members: the share's interval holds 0."""
    label, measures = judged(Release.load(truth.members, [truth.control]))
    assert measures["near_copy_share_low"] <= 0 <= measures["near_copy_share_high"]
    assert label is Label.PASS


def test_a_release_wider_than_the_members_is_measured_on_one_scale():
    """A noisy copy whose numbers reach past the members' range: distances to members and to released
    rows are scaled alike (each search would otherwise scale by its own table's range)."""
    truth = truth_releases(rows=600, seed=1)
    stretched = truth.releases["copy"].copy()
    stretched.loc[stretched.index[:3], "age"] = stretched["age"].max() * 40  # three rows far out widen the release's range forty-fold
    label, measures = judged(Release.load(truth.members, [stretched]))
    assert measures["nearer"] > 0.99 and label is Label.FLAGGED


def test_twins_in_the_release_count_as_each_other_not_as_themselves():
    """A bootstrap of the members repeats rows: a repeated row's nearest other row is its twin, at
    distance 0, a tie with its member; a row drawn once is nearer to its member. Both show."""
    truth = truth_releases(rows=1000, seed=2)
    resampled = truth.members.sample(len(truth.members), replace=True, random_state=0)
    _, measures = judged(Release.load(truth.members, [resampled]))
    repeated = resampled.duplicated(keep=False).mean()
    assert measures["ties"] == pytest.approx(repeated, abs=0.02)
    assert measures["nearer"] == pytest.approx(1 - repeated / 2, abs=0.02)


def test_nearer_share_counts_ties_half_and_bounds_the_share():
    share = nearer_share([0.0, 0.1, 0.2, 0.3], [0.1, 0.1, 0.1, 0.1])
    assert (share.nearer, share.ties, share.near_copy_share) == (0.375, 0.25, -0.25)
    assert -1 <= share.low < share.near_copy_share < share.high <= 1
    with pytest.raises(ValueError, match="distances"):
        nearer_share([0.0], [0.0, 1.0])


def test_the_interval_covers_a_release_of_other_people_at_its_level():
    """Rows whose nearest neighbour is a member by a fair coin: the 95% interval holds the true share, 0, about 95% of the time."""
    rng = np.random.default_rng(0)
    shares = [nearer_share(rng.random(400), rng.random(400)) for _ in range(2000)]
    assert 0.93 <= np.mean([share.low <= 0 <= share.high for share in shares]) <= 0.97
