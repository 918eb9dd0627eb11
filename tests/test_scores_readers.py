"""A scores folder per family, each readable as one table by pandas, polars and duckdb as they come,
and every family's identity columns readable across the folders."""

import duckdb
import pandas as pd
import polars as pl
import pytest
import yaml

import alc_dask
from alc_dask import run_job
from alc_dask.apps.synthetic import make_demo_release
from alc_dask.results import IDENTITY, family_schema, read_scores

FAMILIES = ["alc", "singling_out", "linkability", "inference"]
IDENTITY_NAMES = [field.name for field in IDENTITY]


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
    return folder / "out", scores


def test_every_family_writes_its_rows_in_a_table_of_its_own(mixed_results):
    out, scores = mixed_results
    assert list(scores["family"]) == FAMILIES
    assert (scores["status"] == "ok").all(), scores["error"].tolist()
    assert (scores["version"] == alc_dask.__version__).all()
    assert sorted(path.name for path in (out / "scores").iterdir()) == sorted(FAMILIES)
    for family in FAMILIES:
        (part,) = (out / "scores" / family).glob("part-*.parquet")
        assert pd.read_parquet(part).columns.tolist() == family_schema(family).names  # the identity, then the family's own fields only
        own = read_scores(out, family)
        assert own.columns.tolist() == family_schema(family).names and list(own["family"]) == [family]
    wp29 = scores[scores["family"] != "alc"]
    assert wp29["privacy_risk"].between(0, 1).all() and wp29["alc"].isna().all()
    assert scores.loc[scores["family"] == "alc", "privacy_risk"].isna().all()


def test_all_families_read_as_one_table_in_the_union_of_their_columns(mixed_results):
    out, scores = mixed_results
    together = read_scores(out)
    union = list(dict.fromkeys(name for family in FAMILIES for name in family_schema(family).names))
    assert together.columns.tolist() == union and "membership_alc" not in together.columns
    assert sorted(together["scenario_id"]) == sorted(scores["scenario_id"])


def test_pandas_polars_and_duckdb_read_a_family_folder_without_help(mixed_results):
    out, scores = mixed_results
    folder = out / "scores" / "alc"
    expected = read_scores(out, "alc")
    by_pandas = pd.read_parquet(folder)
    by_polars = pl.read_parquet(f"{folder}/*.parquet").to_pandas()
    by_duckdb = duckdb.sql(f"select * from read_parquet('{folder}/*.parquet')").df()
    for frame in (by_pandas, by_polars, by_duckdb):
        assert frame.columns.tolist() == family_schema("alc").names
        assert frame["scenario_id"].tolist() == expected["scenario_id"].tolist() and frame["alc"].tolist() == expected["alc"].tolist()


def test_duckdb_reads_every_familys_identity_across_the_folders(mixed_results):
    out, scores = mixed_results
    identity = ", ".join(IDENTITY_NAMES)
    every = duckdb.sql(f"select {identity} from read_parquet('{out}/scores/*/*.parquet', union_by_name=true) order by scenario_index").df()
    assert every["family"].tolist() == FAMILIES and every["scenario_id"].tolist() == scores["scenario_id"].tolist()
    risks = duckdb.sql(f"select family, risk from read_parquet('{out}/scores/*/*.parquet', union_by_name=true) order by scenario_index").df()
    assert risks["risk"].tolist() == scores["risk"].tolist()  # a measure every family shares
