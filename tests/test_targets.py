"""Pre-targeted selection: each operator, recall basis, and clear errors."""

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from alc_dask import Release
from alc_dask.data import ScenarioError
from alc_dask.families.alc.targets import TargetSelector, select_rows


@pytest.fixture(scope="module")
def release():
    frame = pd.DataFrame(
        {
            "city": ["a", "b", "c", "a", None, "b", "a", "c"],
            "income": [10.0, 20.0, 30.0, 40.0, 50.0, np.nan, 70.0, 80.0],
            "kids": [0, 1, 2, 0, 1, 2, 0, 1],
        }
    )
    return Release.load(frame, [frame], columns={"income": "continuous"})


def rows(release, *conditions):
    selector = TargetSelector(conditions=[dict(zip(("column", "op", "value"), c)) for c in conditions])
    return select_rows(release, selector).tolist()


@pytest.mark.parametrize(
    "condition, expected",
    [
        (("city", "eq", "a"), [0, 3, 6]),
        (("city", "ne", "a"), [1, 2, 5, 7]),
        (("city", "in", ["b", "c"]), [1, 2, 5, 7]),
        (("city", "not_in", ["a"]), [1, 2, 5, 7]),
        (("city", "missing", None), [4]),
        (("income", "present", None), [0, 1, 2, 3, 4, 6, 7]),
        (("income", "between", [20, 40]), [1, 2, 3]),
        (("income", "gt", 50), [6, 7]),
        (("income", "le", 20), [0, 1]),
        (("income", "top_quantile", 0.3), [6, 7]),
        (("income", "bottom_quantile", 0.3), [0, 1]),
        (("kids", "eq", 2), [2, 5]),
    ],
)
def test_each_operator(release, condition, expected):
    assert rows(release, condition) == expected


def test_conditions_combine_with_and(release):
    assert rows(release, ("city", "eq", "a"), ("income", "gt", 20)) == [3, 6]


def test_unknown_keys_and_operators_are_refused():
    with pytest.raises(ValidationError, match="colum"):
        TargetSelector(conditions=[{"colum": "city", "op": "eq", "value": "a"}])
    with pytest.raises(ValidationError, match="op"):
        TargetSelector(conditions=[{"column": "city", "op": "like", "value": "a"}])


def test_missing_column_and_empty_selection_are_clear_errors(release):
    with pytest.raises(ScenarioError, match="unknown column 'town'"):
        rows(release, ("town", "eq", "a"))
    with pytest.raises(ScenarioError, match="matches no row.*city eq 'z'"):
        rows(release, ("city", "eq", "z"))
    with pytest.raises(ScenarioError, match="between needs"):
        rows(release, ("income", "between", 5))
    with pytest.raises(ScenarioError, match="share in"):
        rows(release, ("city", "top_quantile", 0.1))
