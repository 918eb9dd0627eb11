"""The swap anonymizer: how many values move, what is kept, and seeding."""

import numpy as np
import pandas as pd
import pytest

from alc_dask import Release
from alc_dask.anonymize import swap_encoded, swap_frame
from alc_dask.apps.synthetic import make_population


def test_swap_moves_the_requested_share_and_keeps_each_column_multiset():
    frame = pd.DataFrame({"a": np.arange(1000), "b": np.arange(1000) * 10.0})
    swapped = swap_frame(frame, 0.2, seed=1)
    for column in frame:
        assert (swapped[column] != frame[column]).sum() == 200
        assert sorted(swapped[column]) == sorted(frame[column])


def test_columns_are_swapped_independently():
    frame = pd.DataFrame({"a": np.arange(1000), "b": np.arange(1000)})
    swapped = swap_frame(frame, 0.5, seed=3)
    assert (swapped["a"] != swapped["b"]).sum() > 0


def test_swap_is_seeded():
    frame = make_population(500, seed=2)
    pd.testing.assert_frame_equal(swap_frame(frame, 0.3, seed=7), swap_frame(frame, 0.3, seed=7))
    assert not swap_frame(frame, 0.3, seed=7).equals(swap_frame(frame, 0.3, seed=8))


def test_swap_encoded_matches_the_fraction():
    release = Release.load(make_population(400, seed=1), [make_population(400, seed=2)])
    table = release.original
    swapped = swap_encoded(table, 0.5, seed=0)
    moved_rows = (swapped.codes != table.codes).any(axis=0) | (swapped.values != table.values).any(axis=0)
    assert moved_rows.sum() > 100
    np.testing.assert_array_equal(np.sort(swapped.codes, axis=1), np.sort(table.codes, axis=1))


def test_bad_fraction():
    with pytest.raises(ValueError, match="swap fraction"):
        swap_frame(pd.DataFrame({"a": [1, 2]}), 1.5)
