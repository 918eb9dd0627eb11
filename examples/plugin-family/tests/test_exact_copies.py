"""The family counts what it says, and keeps alc_dask's family contract (install the package first:
alc_dask finds the family by its entry point)."""

import pandas as pd
import pytest
from exact_copies import ExactCopies

from alc_dask.data import Release
from alc_dask.testing import check_family

ORIGINAL = pd.DataFrame({"age": [31.0, 45.0, 52.0, 67.0], "city": ["Lyon", "Nice", "Metz", "Caen"]})
CONTROL = pd.DataFrame({"age": [29.0, 45.0, 70.0, 38.0], "city": ["Lyon", "Brest", "Pau", "Albi"]})


def test_released_rows_copying_the_original_beyond_the_control_are_counted():
    released = pd.DataFrame({"age": [31.0, 52.0, 29.0, 40.0], "city": ["Lyon", "Metz", "Lyon", "Nice"]})  # two copies, one of a control row
    measures = ExactCopies().evaluate(Release.load(ORIGINAL, [released], control=CONTROL), seed=0).measures
    assert (measures["n_copies"], measures["n_control_copies"], measures["n_released"]) == (2, 1, 4)
    assert measures["copy_risk"] == pytest.approx((0.5 - 0.25) / (1 - 0.25))
    assert measures["copy_share_low"] < 0.5 < measures["copy_share_high"] and measures["risk"] == "safe"


def test_columns_compared_can_be_chosen():
    released = pd.DataFrame({"age": [31.0, 45.0, 60.0, 61.0], "city": ["Paris", "Paris", "Paris", "Paris"]})
    measures = ExactCopies(columns=["age"]).evaluate(Release.load(ORIGINAL, [released], control=CONTROL), seed=0).measures
    assert measures["n_copies"] == 2 and measures["n_control_copies"] == 1


def test_the_family_keeps_the_contract(tmp_path):
    check = check_family("exact_copies", tmp_path)
    assert check.scenarios == 2
