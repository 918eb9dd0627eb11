"""The pure parts of the generators benchmark (benchmarks/generators): the member/control split, the
known-truth reference releases and casting a generated table back to the members' dtypes. The
generators and peers themselves live in their own environments and are not part of this suite."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks" / "generators"))

import data  # noqa: E402
import releases  # noqa: E402
from common import cast_like, continuous_columns  # noqa: E402


@pytest.fixture
def members() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    rows = 3000
    return pd.DataFrame(
        {
            "age": rng.integers(17, 90, rows),
            "income": rng.lognormal(10, 1, rows),
            "sex": rng.choice(["F", "M"], rows),
            "region": rng.choice([f"r{i}" for i in range(12)], rows, p=np.r_[0.4, np.full(11, 0.6 / 11)]),
            "children": rng.integers(0, 4, rows),
        }
    )


def test_split_is_disjoint_sized_and_seeded(members):
    frame = members.assign(person=np.arange(len(members)))
    inside, outside, others = data.split(frame, (1000, 500, 300), seed=3)
    assert (len(inside), len(outside), len(others)) == (1000, 500, 300)
    people = [set(part["person"]) for part in (inside, outside, others)]
    assert not (people[0] & people[1] or people[0] & people[2] or people[1] & people[2])
    again, _, _ = data.split(frame, (1000, 500, 300), seed=3)
    other, _, _ = data.split(frame, (1000, 500, 300), seed=4)
    pd.testing.assert_frame_equal(inside, again)
    assert not inside.equals(other)
    with pytest.raises(ValueError):
        data.split(frame, (2000, 1001), seed=0)


def test_copy_equals_members(members):
    pd.testing.assert_frame_equal(releases.copy_of(members, np.random.default_rng(0)), members)


def test_noisy_copy_keeps_no_exact_member_row_and_stays_close(members):
    noisy = releases.noisy_copy_of(members, np.random.default_rng(1))
    assert not releases.exact_member_rows(noisy, members).any()
    assert list(noisy.dtypes) == list(members.dtypes)
    changed = (noisy["sex"] != members["sex"]).mean()
    assert 0.02 < changed < 0.10  # 10% redrawn, about half of them to the same value
    relative = (noisy["income"] - members["income"]).abs().median() / members["income"].std()
    assert 0.02 < relative < 0.2


def test_marginals_keep_each_column_distribution_but_not_rows(members):
    marginals = releases.marginals_of(members, np.random.default_rng(2))
    for name in ["sex", "region", "children"]:
        gap = (marginals[name].value_counts(normalize=True) - members[name].value_counts(normalize=True)).abs().sum() / 2
        assert gap < 0.05, name
    assert abs(marginals["income"].median() / members["income"].median() - 1) < 0.1
    assert set(marginals["region"]) <= set(members["region"])
    assert releases.exact_member_rows(marginals, members).mean() < 0.05


def test_bootstrap_draws_only_non_members(members):
    control = members.iloc[:500].reset_index(drop=True)
    drawn = releases.bootstrap_of(control, 2000, np.random.default_rng(3))
    assert len(drawn) == 2000
    assert releases.exact_member_rows(drawn, control).all()


def test_cast_like_restores_dtypes_ranges_and_known_labels(members):
    generated = pd.DataFrame(
        {"age": [16.6, 40.4, 200.0], "income": ["12.5", None, 3.0], "sex": ["F", "X", np.nan], "region": ["r1", "r2", "r3"], "children": [0.4, 2.6, -1]}
    )
    cast = cast_like(generated, members)
    assert list(cast.dtypes) == list(members.dtypes)
    assert cast["age"].tolist() == [17, 40, members["age"].max()]
    assert cast["children"].tolist() == [0, 3, 0]
    assert cast["sex"].tolist() == ["F", members["sex"].mode().iloc[0], members["sex"].mode().iloc[0]]
    assert cast["income"].iloc[1] == members["income"].median()
    assert continuous_columns(members) == ["age", "income"]


def test_adult_split_from_shared_data():
    path = data.SHARED / "alc-paper" / "adult" / "original.parquet"
    if not path.exists():
        pytest.skip("../shared/data is absent")
    inside, outside, others = data.split(data.read_source(path), (6000, 6000, 6000), seed=0)
    assert len(inside) == len(outside) == len(others) == 6000
    assert not releases.exact_member_rows(outside, inside).all()


@pytest.mark.parametrize("evaluator", ["alc_check", "alc_attacks"])
def test_the_evaluators_of_the_main_environment_import(evaluator, monkeypatch):
    """The evaluators that run in the project's own environment import what the project still has
    (alc_attacks once imported a constant the battery had dropped, and the benchmark stopped there)."""
    import importlib.util

    folder = Path(__file__).resolve().parents[1] / "benchmarks" / "generators" / "evaluators"
    monkeypatch.syspath_prepend(str(folder))  # as when run by path: its own folder first
    path = folder / f"{evaluator}.py"
    spec = importlib.util.spec_from_file_location(f"generators_{evaluator}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert callable(module.main)
