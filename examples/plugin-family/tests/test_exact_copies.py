"""The family counts what it says, judges a copy and a fresh sample as it should, and keeps
alc_dask's family contract (install the package first: alc_dask finds the family by its entry point)."""

import pandas as pd
import pytest
from exact_copies import ExactCopies

from alc_dask.data import Release
from alc_dask.testing import parametrize_with_checks

ORIGINAL = pd.DataFrame({"age": [31.0, 45.0, 52.0, 67.0], "city": ["Lyon", "Nice", "Metz", "Caen"]})
CONTROL = pd.DataFrame({"age": [29.0, 45.0, 70.0, 38.0], "city": ["Lyon", "Brest", "Pau", "Albi"]})


def test_released_rows_copying_the_original_beyond_the_control_are_counted():
    released = pd.DataFrame({"age": [31.0, 52.0, 29.0, 40.0], "city": ["Lyon", "Metz", "Lyon", "Nice"]})  # two copies, one of a control row
    measures = ExactCopies().evaluate(Release.load(ORIGINAL, [released], control=CONTROL), seed=0).measures
    assert (measures["n_copies"], measures["n_control_copies"], measures["n_released"]) == (2, 1, 4)
    assert measures["copy_risk"] == pytest.approx((0.5 - 0.25) / (1 - 0.25))
    assert measures["copy_share_low"] < 0.5 < measures["copy_share_high"] and "risk" not in measures  # labelled by the verdict, from copy_risk


def test_columns_compared_can_be_chosen():
    released = pd.DataFrame({"age": [31.0, 45.0, 60.0, 61.0], "city": ["Paris", "Paris", "Paris", "Paris"]})
    measures = ExactCopies(columns=["age"]).evaluate(Release.load(ORIGINAL, [released], control=CONTROL), seed=0).measures
    assert measures["n_copies"] == 2 and measures["n_control_copies"] == 1


def test_a_copy_is_flagged_and_a_fresh_sample_of_other_people_passes():
    """The verdict's labels, from the family's threshold and interval: a family that states neither
    would leave every evaluation inconclusive, a copy and a fresh sample alike."""
    from alc_dask.testing.truth import truth_releases

    truth = truth_releases(rows=600)
    for release, expected in (("copy", "flagged"), ("bootstrap", "pass")):
        measures = ExactCopies().evaluate(truth.release(release), seed=0).measures
        label, _ = ExactCopies.judge(measures, ExactCopies.threshold.value)
        assert label.value == expected, (release, measures["copy_risk"], ExactCopies.headline_interval(measures))


@parametrize_with_checks(["exact_copies"])
def test_the_family_keeps_the_contract(check):
    """Each check of alc_dask's family contract as its own test (the checks on a cluster start one local cluster, shared)."""
    check()
