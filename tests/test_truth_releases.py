"""The known-truth releases other tests pin attacks on: each made as its name says."""

import numpy as np
import pandas as pd
import pytest

from alc_dask.apps.synthetic import EDUCATION, OCCUPATIONS, make_population
from alc_dask.testing.truth import HARMLESS, LEAKING, noisy_copy, truth_releases


@pytest.fixture(scope="module")
def truth():
    return truth_releases(500, seed=4)


def rows_of(frame: pd.DataFrame) -> set:
    return set(frame.itertuples(index=False, name=None))


def test_every_release_is_made_and_named(truth):
    assert set(truth.releases) == {*LEAKING, *HARMLESS}
    assert all(len(frame) == 500 and list(frame.columns) == list(truth.members.columns) for frame in truth.releases.values())
    pd.testing.assert_frame_equal(truth.releases["copy"], truth.members)


@pytest.mark.parametrize("name", LEAKING[1:])
def test_noisy_copies_hold_no_member_row_and_stay_near_them(truth, name):
    noisy, members = truth.releases[name], truth.members
    assert not rows_of(noisy) & rows_of(members)
    level = int(name.removeprefix("noisy_")) / 100
    changed = (noisy["education"] != members["education"]).mean()
    assert 0.5 * level < changed < 1.5 * level
    assert (noisy["income"] % 100 == 0).all() and (noisy["age"] % 1 == 0).all()


def test_more_noise_moves_numbers_further(truth):
    moved = [np.abs(truth.releases[name]["income"] - truth.members["income"]).mean() for name in LEAKING[1:]]
    assert moved == sorted(moved) and moved[0] > 0


def test_marginals_are_exact_and_dependence_is_gone(truth):
    shuffled, members = truth.releases["marginals"], truth.members
    for column in members.columns:
        assert sorted(shuffled[column]) == sorted(members[column])
    assert far_levels(members) == 0, "occupation is within a level of education in the population"
    assert far_levels(shuffled) > 0.3


def far_levels(frame: pd.DataFrame) -> float:
    education = frame["education"].map(EDUCATION.index)
    occupation = frame["occupation"].map(OCCUPATIONS.index)
    return float(((education - occupation).abs() > 1).mean())


def test_the_bootstrap_draws_other_people_only(truth):
    others = make_population(500, 4 + 2)
    bootstrap = truth.releases["bootstrap"]
    assert rows_of(bootstrap) <= rows_of(others)
    assert not rows_of(bootstrap) & (rows_of(truth.members) | rows_of(truth.control))
    assert bootstrap.duplicated().any()


def test_same_seed_same_releases_other_seed_other_noise(truth):
    again = truth_releases(500, seed=4)
    for name, frame in truth.releases.items():
        pd.testing.assert_frame_equal(frame, again.releases[name])
    assert not noisy_copy(truth.members, 0.1, seed=5).equals(truth.releases["noisy_10"])


def test_smoothed_marginals_republish_no_rare_value(truth):
    smoothed, members = truth.releases["smoothed_marginals"], truth.members
    held = members["condition"].value_counts()
    assert set(smoothed["condition"]) == set(held[held >= 10].index) and (held < 10).any()
    for column in ("age", "income", "hours_per_week"):
        assert smoothed[column].between(members[column].min(), members[column].max()).all()
    assert (smoothed["income"] % 100 == 0).all() and (smoothed["age"] % 1 == 0).all()
    assert not rows_of(smoothed) & rows_of(members)
    assert smoothed["income"].nunique() > members["income"].nunique() / 2, "numbers are drawn within bins, not copied"
    assert far_levels(smoothed) > 0.3
