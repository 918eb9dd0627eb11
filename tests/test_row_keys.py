"""Rows as keys (``alc_dask.data.row_keys``): equal rows of different tables get equal keys, any
differing value (a missing one included) a different key, and the shares counted by them are the
shares of rows equal value for value."""

import numpy as np
import pandas as pd

from alc_dask.data.row_keys import row_keys
from alc_dask.families.battery import copied_share


def _people(rows: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, rows),
            "income": np.round(rng.normal(30_000, 9_000, rows), 2),
            "region": rng.choice(["north", "south", None], rows),
        }
    )


def test_equal_rows_of_two_tables_share_a_key_and_others_do_not():
    first = _people(500, 0)
    second = pd.concat([first.iloc[:200], _people(300, 1)], ignore_index=True).iloc[::-1].reset_index(drop=True)
    keys_first, keys_second = row_keys([first, second], list(first.columns))
    merged = second.merge(first.drop_duplicates(), how="left", indicator=True)["_merge"] == "both"
    np.testing.assert_array_equal(np.isin(keys_second, keys_first), merged.to_numpy())
    assert len(np.unique(keys_first)) == len(first.drop_duplicates())


def test_a_missing_value_matches_a_missing_value_and_nothing_else():
    first = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": ["x", None, "z"]})
    second = pd.DataFrame({"a": [np.nan, np.nan, 3.0], "b": [None, "y", None]})
    keys_first, keys_second = row_keys([first, second], ["a", "b"])
    assert list(np.isin(keys_second, keys_first)) == [True, False, False]


def test_one_changed_value_in_a_column_makes_a_row_new():
    people = _people(1000, 2)
    changed = people.copy()
    changed.loc[::4, "income"] += 0.01
    assert copied_share(people, changed) == 0.75
    assert copied_share(people, people.sample(frac=1.0, random_state=0)) == 1.0
