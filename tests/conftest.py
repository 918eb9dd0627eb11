"""Shared fixtures: random mixed-type release tables with missing values, and the real data folder."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def random_table(rng: np.random.Generator, n_rows: int, missing: float = 0.1, extra_letter: str = "") -> pd.DataFrame:
    """Mixed columns: text `c0..c2`, a small-integer `k`, continuous `x0..x2`; `missing` of cells NaN.

    `extra_letter` adds a category that only this table holds. Continuous values are positive, on a
    coarse grid for some columns so that distance ties happen.
    """
    letters = list("abcd" + extra_letter)
    table = pd.DataFrame(
        {
            "c0": rng.choice(letters, n_rows),
            "c1": rng.choice(["x", "y"], n_rows),
            "c2": rng.choice(letters, n_rows),
            "k": rng.integers(1, 4, n_rows).astype(float),
            "x0": rng.uniform(1, 100, n_rows),
            "x1": rng.integers(1, 40, n_rows).astype(float),
            "x2": rng.uniform(0.5, 2, n_rows).round(1),
        }
    )
    table["x1"] = table["x1"].where(np.arange(n_rows) % 2 == 0, table["x1"] + 0.5)
    for column in table.columns:
        table.loc[rng.random(n_rows) < missing, column] = np.nan
    for column in ("c0", "c1", "c2"):
        table[column] = table[column].astype(object)
    return table


@pytest.fixture
def make_table():
    return random_table


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data folder {SHARED_DATA} is absent")
    return SHARED_DATA
