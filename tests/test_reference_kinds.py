"""`kinds: reference`: column kinds inferred as the reference package (1.0.32) infers them, opt-in."""

import numpy as np
import pandas as pd
import pytest

from alc_dask import Release
from alc_dask.data import ColumnKind, ReleaseError
from alc_dask.data.reference_kinds import reference_kind
from alc_dask.jobs import JobSpecError, validate_job

rng = np.random.default_rng(0)
N = 2000


@pytest.mark.parametrize(
    ("values", "kind", "why"),
    [
        (rng.choice([1.0, 2.0, 3.0], N), "continuous", "every float column, whatever its values"),
        (pd.Series(rng.integers(0, 5, N)).where(rng.random(N) > 0.1), "continuous", "integers with missing values are read as floats"),
        (rng.integers(0, 9, N), "categorical", "fewer than 10 distinct integers"),
        (rng.integers(0, 50, N), "continuous", "50 distinct integers or more"),
        (rng.choice(np.arange(12) * 10, N), "categorical", "10 to 49 sparse integers (density 12 / 111)"),
        (np.clip(rng.normal(20, 4, N).round(), 5, 35).astype(int), "continuous", "dense, one peak"),
        (np.tile(np.repeat(np.arange(12), [9, 1, 9, 1, 9, 1, 9, 1, 9, 1, 9, 1]), 40), "categorical", "dense, six peaks, mass not in the middle third"),
        (rng.choice(["a", "b"], N), "categorical", "text"),
        (rng.random(N) > 0.5, "categorical", "booleans"),
    ],
)
def test_the_reference_rule(values, kind, why):
    assert reference_kind(pd.Series(values)) is ColumnKind(kind), why


def test_the_rule_is_opt_in_and_overrides_still_win():
    original = pd.DataFrame({"density": rng.integers(1, 21, N).astype(float), "code": rng.integers(0, 30, N), "s": rng.choice(["x", "y"], N)})
    default = Release.load(original, [original])
    reference = Release.load(original, [original], kinds="reference")
    overridden = Release.load(original, [original], kinds="reference", columns={"density": "categorical"})
    assert [default.columns[c].kind.value for c in ("density", "code")] == ["categorical", "continuous"]
    assert [reference.columns[c].kind.value for c in ("density", "code")] == ["continuous", "continuous"]
    assert reference.columns["density"].bins.n_bins == 20
    assert overridden.columns["density"].kind is ColumnKind.CATEGORICAL
    with pytest.raises(ReleaseError, match="kinds: unknown rule 'standard'; expected one of alc_dask, reference"):
        Release.load(original, [original], kinds="standard")


def test_a_job_names_the_field_and_the_allowed_rules():
    job = {"name": "t", "release": {"original": "o.parquet", "anonymized": ["a.parquet"], "kinds": "refrence"}, "scenarios": [{"generate": "each_column"}]}
    with pytest.raises(JobSpecError, match=r"release\.kinds: .*'alc_dask' or 'reference'"):
        validate_job(job)


def test_a_release_kept_on_the_workers_cannot_take_the_reference_rule(tmp_path):
    """The rule needs every value's count in the original: it is refused before a cluster starts."""
    from alc_dask import run_job

    table = pd.DataFrame({"a": rng.integers(0, 5, 100), "s": rng.choice(["x", "y"], 100)})
    table.to_parquet(tmp_path / "t.parquet")
    job = {
        "name": "t",
        "release": {"original": str(tmp_path / "t.parquet"), "anonymized": [str(tmp_path / "t.parquet")], "kinds": "reference", "broadcast_limit": 0},
        "scenarios": [{"secret": "s", "known": ["a"]}],
        "output": str(tmp_path / "out"),
    }
    with pytest.raises(ReleaseError, match=r"release\.kinds: 'reference' needs whole tables; .*raise it"):
        run_job(validate_job(job), workers=1, progress=False)
