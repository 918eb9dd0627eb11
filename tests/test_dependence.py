"""Dependent records: the replication stress test, the near-duplicate diagnostic and the baseline
option that leaves a target's twins out of its training rows."""

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from alc_dask.apps.synthetic import make_population
from alc_dask.baseline import BaselineSettings
from alc_dask.baseline.dependence import near_duplicates, replication_stress, stress_table, suspicious_neighbours
from alc_dask.baseline.sources import MlBaseline
from alc_dask.cli import main
from alc_dask.data import Release
from alc_dask.measure import MeasureSettings

FAST = BaselineSettings(candidates=("majority", "logistic_regression", "random_forest"), selection_trees=10, training_rows=3000)


def with_twins(rows: int = 1500, twins: int = 300, seed: int = 0) -> pd.DataFrame:
    """A population with a secret no column predicts, and an exact copy of its first ``twins`` records."""
    people = make_population(rows, seed=seed).assign(secret=np.random.default_rng(seed).choice(list("abcdefgh"), rows))
    return pd.concat([people, people.iloc[:twins]], ignore_index=True)


def test_copies_lift_a_forest_that_memorises_more_than_the_regularised_one():
    people = make_population(2000, seed=1)
    release = Release.load(people, [people])
    known = [c for c in people.columns if c != "income"]
    results = replication_stress(release, "income", known, FAST, seed=0, shares=(1.0,), copies=(10,), targets=400)
    table = stress_table(results).set_index("model")
    assert list(table.columns) == ["secret", "none", "100% x10", "largest move"]
    assert set(table.index) == {"majority", "logistic_regression", "random_forest", "regularized_random_forest"}
    assert table.loc["random_forest", "largest move"] > 0.2
    assert table.loc["regularized_random_forest", "largest move"] < table.loc["random_forest", "largest move"]
    assert abs(table.loc["majority", "largest move"]) < 0.1


@pytest.mark.parametrize(
    ("shares", "copies", "message"), [((0.0,), (1,), r"shares\[0\]: 0.0"), ((0.5, 1.5), (1,), r"shares\[1\]: 1.5"), ((0.5,), (2, 0), r"copies\[1\]: 0")]
)
def test_bad_replications_are_named(shares, copies, message):
    people = make_population(200, seed=1)
    with pytest.raises(ValueError, match=message):
        replication_stress(Release.load(people, [people]), "income", ["age"], FAST, shares=shares, copies=copies)


def test_near_duplicates_find_twins_not_crowds():
    table = with_twins()
    release = Release.load(table, [table])
    columns = list(release.original.columns)
    found = near_duplicates(release.original, columns, ratio=0.5, sample=1800)
    alone = Release.load(table.iloc[:1500], [table.iloc[:1500]])
    without = near_duplicates(alone.original, columns, ratio=0.5, sample=1500)
    assert found.sampled == 1800 and found.suspicious == round(found.share * 1800)
    assert found.share - without.share > 0.2  # 600 of the 1800 records have a twin
    assert set(suspicious_neighbours(release.original, np.array([5, 1505]), columns, 0.5)) == {5, 1505}
    crowd = pd.concat([table.iloc[:1]] * 5 + [table.iloc[1:50]], ignore_index=True)  # five identical records: no one's twin
    crowded = Release.load(crowd, [crowd])
    assert len(suspicious_neighbours(crowded.original, np.arange(5), list(crowded.original.columns), 0.5)) == 0


def test_the_baseline_can_leave_a_targets_twins_out_of_its_training_rows():
    """The secret is noise: only a twin in the training rows tells it."""
    table = with_twins()
    release = Release.load(table, [table])
    known = [c for c in table.columns if c != "secret"]
    settings = BaselineSettings(candidates=("random_forest",), trees=30, training_rows=None)
    block = np.arange(300)  # every one of them has a twin outside the block

    def precision(near_duplicate_ratio):
        baseline = MlBaseline(
            release, "secret", known, BaselineSettings(**{**settings.__dict__, "near_duplicate_ratio": near_duplicate_ratio}), MeasureSettings(), 0
        )
        baseline.start_block(block)
        codes, _ = baseline.predict(block, block)
        return float(np.mean(codes == baseline.truth(block, block)))

    assert precision(None) > 0.9
    assert precision(0.5) < 0.35


def test_the_stress_command_writes_its_tables(tmp_path):
    people = make_population(800, seed=3)
    people.to_parquet(tmp_path / "original.parquet")
    job = {"name": "stressed", "release": {"original": "original.parquet", "anonymized": ["original.parquet"]}, "output": "out"}
    job |= {
        "scenarios": [{"secret": "income", "known": ["age", "education", "occupation"]}],
        "baseline_settings": {"candidates": ["majority", "random_forest"], "trees": 10},
    }
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
    result = CliRunner().invoke(main, ["stress", str(tmp_path / "job.yaml"), "--share", "0.5", "--copies", "2", "--targets", "100", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "| income | random_forest |" in result.output and "Near duplicates:" in result.output
    written = pd.read_parquet(tmp_path / "out" / "stress" / "stress.parquet")
    assert set(zip(written["share"], written["copies"])) == {(0.0, 0), (0.5, 2)}
    bad = CliRunner().invoke(main, ["stress", str(tmp_path / "job.yaml"), "--copies", "0"])
    assert bad.exit_code == 2 and "--copies" in bad.output


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--share", "nan", "Invalid value for '--share': 'nan' is not a number; expected 0<x<=1."),
        ("--share", "1.5", "Invalid value for '--share': 1.5 is not in the range 0<x<=1."),
        ("--copies", "1000000", "copies[0]: 1000000 is not a whole number of copies from 1 to 100"),
        ("--copies", "0", "Invalid value for '--copies': 0 is not in the range x>=1."),
        ("--targets", "nan", "Invalid value for '--targets': 'nan' is not a valid integer range."),
    ],
)
def test_bad_numbers_for_stress_are_one_line_errors_before_any_work(tmp_path, monkeypatch, option, value, message):
    monkeypatch.setattr("alc_dask.engine.connect", lambda *args, **kwargs: pytest.fail("a cluster was started"))
    make_population(200, seed=2).to_parquet(tmp_path / "o.parquet")
    (tmp_path / "job.yaml").write_text(
        yaml.safe_dump({"name": "s", "release": {"original": "o.parquet", "anonymized": ["o.parquet"]}, "scenarios": [{"generate": "each_column"}]})
    )
    result = CliRunner().invoke(main, ["stress", str(tmp_path / "job.yaml"), option, value])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[-1] == f"Error: {message}" and "Traceback" not in result.output
