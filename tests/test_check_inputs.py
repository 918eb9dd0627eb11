"""``read_inputs``: tables too small for any evaluation, and a control table holding the original's rows, are refused."""

import numpy as np
import pandas as pd
import pytest

from alc_dask.apps.check import MIN_ROWS, read_inputs
from alc_dask.apps.synthetic import make_population
from alc_dask.data.errors import ReleaseError


@pytest.fixture(scope="module")
def people():
    population = make_population(900, seed=2)
    return population.iloc[:300].reset_index(drop=True), population.iloc[300:600].reset_index(drop=True), population.iloc[600:].reset_index(drop=True)


def test_a_control_holding_rows_of_the_original_is_refused_naming_the_count(people):
    original, release, others = people
    leaked = pd.concat([original.iloc[:60], others.iloc[60:]], ignore_index=True).sample(frac=1.0, random_state=0)
    with pytest.raises(
        ReleaseError, match=r"the control table \(a DataFrame\): 60 of the control's 300 rows are rows of the original .*a control table must be other people"
    ):
        read_inputs(original, release, leaked)
    assert read_inputs(original, release, others).control is others


def test_a_control_sharing_what_chance_shares_is_accepted():
    """Few values per column: two samples of one population share most rows by chance, as the
    original's own duplicates show."""
    rng = np.random.default_rng(0)
    population = pd.DataFrame({"sex": rng.choice(["f", "m"], 3000), "region": rng.choice(["n", "s", "e", "w"], 3000), "age": rng.integers(20, 30, 3000)})
    original, release, control = population.iloc[:1000], population.iloc[1000:2000], population.iloc[2000:]
    assert control.apply(tuple, axis=1).isin(set(original.apply(tuple, axis=1))).mean() > 0.9
    assert read_inputs(original, release, control).control is control


@pytest.mark.parametrize("role", ["original", "release"])
def test_a_table_too_small_for_any_evaluation_is_refused_naming_it_and_its_rows(people, role):
    original, release, others = people
    tables = {"original": original, "release": release} | {role: (original if role == "original" else release).iloc[: MIN_ROWS - 1]}
    with pytest.raises(ReleaseError, match=rf"the {role} table \(a DataFrame\): {MIN_ROWS - 1} rows are too few for any evaluation"):
        read_inputs(tables["original"], tables["release"], others)
    assert len(read_inputs(original.iloc[:MIN_ROWS], release.iloc[:MIN_ROWS]).original) == MIN_ROWS


def test_a_float_column_is_typed_without_a_copy(people):
    """``check`` holds each table as read and as typed: a float64 column was copied into the typed
    one, so a large table's numbers were held twice in the client."""
    original, _, control = people
    inputs = read_inputs(original, original.copy(), control)
    for column in ("income", "age"):
        assert inputs.original[column].dtype == np.float64
        assert np.shares_memory(inputs.original[column].to_numpy(), inputs.typed["original"][column].to_numpy())
    pd.testing.assert_frame_equal(inputs.typed["original"], inputs.original)
