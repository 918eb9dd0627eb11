"""Write the reference scores of alc_dask 0.6.0 to ``tests/data/scores-0.6.0``, so a change of the engine
or of the results layout can prove that every number stays the same (``tests/test_scores_unchanged.py``).

Run from the repository root: ``PYTHONPATH=$PWD python tests/data/make_scores_reference.py``. It writes:

- ``jobs/<job>.yaml``: the demo's jobs on a small demo release, and one job per family for the
  options the demo leaves out; their tables are in ``../data`` from the job file;
- ``<job>.parquet``: per scenario, its id, family, status and every measure of its family but
  timings and workers, typed as the scores dataset types them;
- ``reference.json``: the measure columns stored for each family, and a fingerprint of each input
  table, so a test tells changed data from changed scores.

The input tables are not stored: ``write_inputs`` makes them again from the same seeded functions.
"""

import hashlib
import json
import shutil
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import yaml

REFERENCE = Path(__file__).resolve().parent / "scores-0.6.0"
ROWS, SEED = 1500, 0
"""A demo release small enough for every job to rerun in seconds."""
IDENTITY = ("scenario_id", "family", "status")
NOT_COMPARED = frozenset({"elapsed_seconds", "seconds", "worker", "finished_at", "chain_seconds", "chain_workers"})
"""Timings and which workers ran what: they differ from run to run."""

QUASI_IDENTIFIERS = ["age", "sex", "region", "education"]
FAST_BASELINE = {
    "candidates": ["majority", "logistic_regression", "random_forest"],
    "regressors": ["median", "linear_regression", "random_forest"],
    "trees": 10,
}
RELEASE = {
    "name": "weak-strong",
    "original": "../data/original.parquet",
    "anonymized": ["../data/weak.parquet", "../data/strong.parquet"],
    "control": "../data/control.parquet",
}
"""The demo release's two anonymized tables together: attacks search both, WP29 and membership attack the second (``table: 1``)."""


def write_inputs(folder: Path) -> dict[str, str]:
    """The input tables of every job under ``folder``; return a fingerprint of each."""
    from alc_dask.anonymize import anatomize, mondrian
    from alc_dask.apps.synthetic import make_demo_release

    folder.mkdir(parents=True, exist_ok=True)
    tables = make_demo_release(ROWS, SEED)
    for name, table in tables.items():
        table.to_parquet(folder / f"{name}.parquet", index=False)
    tables["k5"] = mondrian(tables["original"], QUASI_IDENTIFIERS, "occupation", k=5, l=5)
    tables["qit"], tables["st"] = anatomize(tables["original"], QUASI_IDENTIFIERS, "occupation", l=3, seed=1)
    for name in ("k5", "qit", "st"):
        tables[name].to_csv(folder / f"{name}.csv", index=False)
    return {name: fingerprint(table) for name, table in tables.items()}


def fingerprint(table: pd.DataFrame) -> str:
    """A digest of a table's column names and values (not of its file: Parquet writers differ in metadata)."""
    digest = hashlib.sha256(json.dumps(list(table.columns)).encode())
    digest.update(pd.util.hash_pandas_object(table, index=False).to_numpy().tobytes())
    return digest.hexdigest()


REFERENCE_HALTING = {"halting": {"settle_at": None}}
"""0.6.0 halted by the reference implementation's rules alone; later versions wait for the verdict's
interval to settle unless a job says so."""


def demo_jobs() -> dict[str, dict]:
    """The demo's jobs as ``alc_dask.apps.demo`` writes them: the weak release's (its strong twin runs the same
    code on other data) and the 5-anonymous one's."""
    from alc_dask.apps.demo import demo_job, k_anonymous_job

    return {"demo-weak": demo_job("weak") | REFERENCE_HALTING, "demo-k5": k_anonymous_job() | REFERENCE_HALTING}


def option_jobs() -> dict[str, dict]:
    """One job per family, with the options the demo's jobs leave at their defaults."""
    known = ["age", "sex", "region", "education", "occupation"]
    alc = [
        {"secret": "income", "known": known, "tolerance": {"epsilon": 0.1}},
        {"secret": "hours_per_week", "known": known, "tolerance": {"epsilon": 0.05, "relative_to": "range"}},
        {
            "secret": "condition",
            "known": ["age", "region", "income"],
            "targets": {"conditions": [{"column": "region", "op": "eq", "value": "islands"}], "recall_basis": "pretargeted"},
        },
        {"secret": "occupation", "known": ["age", "sex", "education"], "targets": {"conditions": [{"column": "income", "op": "top_quantile", "value": 0.2}]}},
        {"generate": "each_column", "secrets": ["age", "married"]},
    ]
    singling_out = [
        {"family": "singling_out", "mode": "univariate", "table": 1, "columns": ["age", "income", "hours_per_week", "condition"]},
        {"family": "singling_out", "mode": "multivariate", "n_cols": 2, "n_attacks": 200, "max_attempts": 20_000, "table": 1, "confidence_level": 0.9},
    ]
    linkability = [{"family": "linkability", "aux_cols": [["age", "region"], ["income", "occupation"]], "n_attacks": 300, "table": 1}]
    inference = [
        {"family": "inference", "aux_cols": ["age", "sex", "region", "occupation"], "secret": "hours_per_week", "tolerance": 0.1, "table": 1},
        {"family": "inference", "aux_cols": ["age", "income"], "secret": "married", "n_attacks": 200, "confidence_level": 0.9},
    ]
    membership = [
        {"family": "membership", "attack": attack, "n_members": 600, "n_non_members": 300, "sample_seed": 3, "table": 1, **situation}
        for attack in ("closest_distance", "distance_ratio")
        for situation in ({"skew": "1:50", "skews": ["1:1", "1:10"], "confidence_level": 0.9}, {"columns": ["age", "sex", "region", "income"]})
    ]
    identification = [
        {"generate": "quasi_identifier_sets", "count": 2, "size": 3, "columns": known, "population": 100_000},
        {"generate": "quasi_identifier_sets", "count": 1, "size": 4, "population": 20_000, "fit": "profile", "allow_negative_gamma": True},
        {"family": "identification", "quasi_identifiers": ["age", "region"], "population": 50_000, "repeats": 3, "levels": 10, "k": 3},
    ]
    chain = {"iterations": 3000, "burn_in": 1000, "thin": 10, "chains": 2}
    anatomy = {
        "scheme": "anatomy",
        "table": "../data/qit.csv",
        "sensitive_table": "../data/st.csv",
        "sensitive": "occupation",
        "group": "group",
        "count": "count",
        "l": 3,
    }
    relative_threat = [
        {"family": "relative_threat", **chain, "swaps": 2, "faithfulness_points": 2000},
        {"secret": "occupation", "known": QUASI_IDENTIFIERS, "attack": {"name": "bayesian_group", "params": chain}},
    ]
    return {
        "alc-options": _job("alc-options", alc, baselines=["ml", "prior", "control"], tolerance={"epsilon": 0.2}, **REFERENCE_HALTING),
        "singling-out-options": _job("singling-out-options", singling_out),
        "linkability-options": _job("linkability-options", linkability),
        "inference-options": _job("inference-options", inference),
        "membership-options": _job("membership-options", membership),
        "identification-generated": _job("identification-generated", identification, seed=7),
        "relative-threat-anatomy": _job(
            "relative-threat-anatomy",
            relative_threat,
            release={"name": "anatomy", "original": "../data/original.parquet", "grouped": anatomy},
            **REFERENCE_HALTING,
        ),
    }


def _job(name: str, scenarios: list[dict], release: dict = RELEASE, seed: int = 3, **settings) -> dict:
    return {
        "name": name,
        "release": release,
        "scenarios": scenarios,
        "baseline_settings": FAST_BASELINE,
        "seed": seed,
        "output": f"../results/{name}",
        **settings,
    }


def compared_columns(family: str) -> list[str]:
    """The family's measure columns but timings and workers, in the family's order."""
    from alc_dask.families import get_family

    return [field.name for field in get_family(family).fields if field.name not in NOT_COMPARED]


def reference_table(scores: pd.DataFrame) -> pa.Table:
    """The identity and the compared measures of every scenario, typed as the scores dataset types them
    (a family's rows leave the other families' measures null)."""
    from alc_dask.results import scores_schema

    columns = list(dict.fromkeys([*IDENTITY, *(column for family in dict.fromkeys(scores["family"]) for column in compared_columns(family))]))
    schema = pa.schema([scores_schema().field(column) for column in columns])
    return pa.Table.from_pandas(scores[columns].sort_values("scenario_id"), schema=schema, preserve_index=False).replace_schema_metadata(None)


def main() -> None:
    from distributed import Client, LocalCluster

    from alc_dask import __version__, run_job

    if __version__ != REFERENCE.name.removeprefix("scores-"):
        sys.exit(f"{REFERENCE} holds the scores of alc_dask {REFERENCE.name.removeprefix('scores-')}; this is alc_dask {__version__}: not overwritten")
    jobs, families = {**demo_jobs(), **option_jobs()}, {}
    shutil.rmtree(REFERENCE, ignore_errors=True)
    (REFERENCE / "jobs").mkdir(parents=True)
    for name, job in jobs.items():
        (REFERENCE / "jobs" / f"{name}.yaml").write_text(yaml.safe_dump(job, sort_keys=False))
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        inputs = write_inputs(folder / "data")
        shutil.copytree(REFERENCE / "jobs", folder / "jobs")
        with (
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
            Client(cluster) as client,
        ):
            for name in jobs:
                scores = run_job(folder / "jobs" / f"{name}.yaml", out=folder / "results" / name, client=client, progress=False)
                failed = scores[scores["status"] == "failed"]
                if len(failed):
                    sys.exit(f"{name}: {len(failed)} scenarios failed, no reference written: {failed['error'].tolist()}")
                # no statistics, no Arrow schema: the Parquet types say it all, in a third of the bytes
                pq.write_table(reference_table(scores), REFERENCE / f"{name}.parquet", compression="zstd", write_statistics=False, store_schema=False)
                families.update(dict.fromkeys(scores["family"]))
                print(f"{name}: {len(scores)} scenarios, {scores.groupby('family').size().to_dict()}")
    reference = {"alc_dask": __version__, "rows": ROWS, "seed": SEED, "tables": inputs, "columns": {family: compared_columns(family) for family in families}}
    (REFERENCE / "reference.json").write_text(json.dumps(reference, indent=1) + "\n")


if __name__ == "__main__":
    main()
