"""One scores folder for every family, readable as one table by pandas, polars and duckdb as they come."""

import duckdb
import pandas as pd
import polars as pl
import pytest
import yaml

from alc_dask import run_job
from alc_dask.apps.synthetic import make_demo_release
from alc_dask.results import read_scores


@pytest.fixture(scope="module")
def mixed_results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mixed")
    for name, table in make_demo_release(800, seed=6).items():
        table.to_parquet(folder / f"{name}.parquet")
    job = {
        "name": "mixed",
        "release": {"original": "original.parquet", "anonymized": ["weak.parquet"], "control": "control.parquet"},
        "scenarios": [
            {"secret": "income", "known": ["age", "sex", "region"]},
            {"family": "singling_out", "mode": "univariate", "n_attacks": 100},
            {"family": "linkability", "aux_cols": [["age", "sex"], ["region", "education"]], "n_attacks": 100},
            {"family": "inference", "aux_cols": ["age", "sex", "region"], "secret": "occupation", "n_attacks": 100},
        ],
        "baseline_settings": {"candidates": ["majority"], "trees": 10},
        "output": "out",
    }
    (folder / "job.yaml").write_text(yaml.safe_dump(job))
    scores = run_job(folder / "job.yaml", workers=1, progress=False)
    return folder / "out" / "scores", scores


def test_every_family_writes_one_row_in_one_table(mixed_results):
    _, scores = mixed_results
    assert list(scores["family"]) == ["alc", "singling_out", "linkability", "inference"]
    assert (scores["status"] == "ok").all(), scores["error"].tolist()
    wp29 = scores[scores["family"] != "alc"]
    assert wp29["privacy_risk"].between(0, 1).all() and wp29["alc"].isna().all()
    assert scores.loc[scores["family"] == "alc", "privacy_risk"].isna().all()


def test_pandas_polars_and_duckdb_read_the_folder_without_help(mixed_results):
    folder, scores = mixed_results
    expected = scores.set_index("scenario_id")["family"].sort_index()
    by_pandas = pd.read_parquet(folder).set_index("scenario_id")["family"].sort_index()
    by_polars = pl.read_parquet(f"{folder}/*.parquet").to_pandas().set_index("scenario_id")["family"].sort_index()
    by_duckdb = duckdb.sql(f"select scenario_id, family from read_parquet('{folder}/*.parquet')").df().set_index("scenario_id")["family"].sort_index()
    for frame in (by_pandas, by_polars, by_duckdb):
        pd.testing.assert_series_equal(frame, expected, check_names=False)
    assert read_scores(folder.parent).shape[1] == pd.read_parquet(folder).shape[1]
