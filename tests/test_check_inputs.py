"""``read_inputs``: tables too small for any evaluation are refused."""

import pytest

from alc_dask.apps.check import MIN_ROWS, read_inputs
from alc_dask.apps.synthetic import make_population
from alc_dask.data.errors import ReleaseError


@pytest.fixture(scope="module")
def people():
    population = make_population(900, seed=2)
    return population.iloc[:300].reset_index(drop=True), population.iloc[300:600].reset_index(drop=True), population.iloc[600:].reset_index(drop=True)


@pytest.mark.parametrize("role", ["original", "release"])
def test_a_table_too_small_for_any_evaluation_is_refused_naming_it_and_its_rows(people, role):
    original, release, others = people
    tables = {"original": original, "release": release} | {role: (original if role == "original" else release).iloc[: MIN_ROWS - 1]}
    with pytest.raises(ReleaseError, match=rf"the {role} table \(a DataFrame\): {MIN_ROWS - 1} rows are too few for any evaluation"):
        read_inputs(tables["original"], tables["release"], others)
    assert len(read_inputs(original.iloc[:MIN_ROWS], release.iloc[:MIN_ROWS]).original) == MIN_ROWS
