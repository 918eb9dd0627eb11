"""Every score of alc_dask 0.6.0, again: the reference jobs (``tests/data/scores-0.6.0``, written by
``tests/data/make_scores_reference.py``) rerun on a local cluster give the stored measures, measure by
measure: strings, integers and booleans equal, numbers within 1e-12 relative (a raw confidence cut within 1e-3, identification's scaling-law fit within 1e-4), nested measures exactly.

Only ``scores_of`` knows how a job's results are laid out: a change of the layout changes it alone.
"""

import importlib.util
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

DATA = Path(__file__).parent / "data"
REFERENCE = DATA / "scores-0.6.0"
STORED = json.loads((REFERENCE / "reference.json").read_text())
JOBS = sorted(path.stem for path in (REFERENCE / "jobs").glob("*.yaml"))
RELATIVE = 1e-12
RAW_CONFIDENCE = 1e-3
"""Of the ``*_confidence_cut`` columns: a cut is a model's raw probability (the lowest kept), whose
last bits change with the build of NumPy, SciPy or scikit-learn a fresh environment resolves (seen:
1e-12 to 1e-4 relative between two environments of the same pins, every derived measure identical).
The measures the cut selects (precision, recall, PRC, ALC) are still held to ``RELATIVE``."""
FITTED = 1e-4
"""Of identification's measures read off its scaling-law fit (Nelder–Mead, stopped at ``xatol`` 1e-8
and a relative ``fatol``): the optimizer's path depends on the last bits of its inputs, which change
with the builds of the numerical libraries a fresh environment resolves (seen: 4e-7 to 2e-6 relative
between the environment the reference was stored in and one resolved on 2026-11-28, the same code at
the same commit, and ``fit_converged`` turning from False to True). Measured before the fit (the
anonymity sets' counts) they are still held to ``RELATIVE``."""
FIT_OUTPUTS = ("h", "gamma", "kappa_table_fitted", "kappa_population", "uniqueness_population", "k_violations_population")
"""Identification's columns computed from the fit (with their ``_low``/``_high`` ends)."""
FIT_FLAGS = {"fit_converged", "warning"}
"""Whether the optimizer reported convergence, and the warning that says so: environment-dependent as
its path is, not compared."""
RESTORED_DEFAULTS = {"baseline_settings": {"attack_on_others": False, "first_block_from_selection": False, "boosting_patience": 10, "logistic_tolerance": 1e-4}}
"""Settings that restore a default 0.6.0 had and a later version changed on purpose, with the change
measured where it was made: the ALC's baseline is the stronger of the model and the attack on other
people since 0.8.0 (``benchmarks/calibration``); selection's fit is the first block's model, and
boosting and logistic regression stop sooner, since 0.13.0 (``benchmarks/RESULTS-performance.md``,
the equivalence run). Every other score is still 0.6.0's."""
DROPPED = {family: {"risk"} for family in ("singling_out", "linkability", "inference", "identification")}
"""Columns a later version removed on purpose: since 0.10.0 Anonymeter's risks and identification's
forecasts are labelled by the verdict on their own scale, no longer also in the ALC's risk bands."""
DRAWN = {
    "relative_threat": {
        "gt_attacker",
        "gt_learner",
        "gt_random_worlds",
        "rgt_attacker",
        "alc_over_learner",
        "faithfulness",
        "abs_attacker",
        "abs_random_worlds",
        "ti_max",
        "ti_doubled_share",
        "ti_doubled_rows",
        "threat_attacker",
        "threat_learner",
        "acceptance",
        "geweke_outside",
        "geweke_max",
        "rhat_max",
        "converged",
        "risk",
        "warning",
    },
    "bayesian_group": {"alc", "alc_full_recall", "risk", "risk_full_recall"},
}
"""Measures read off the Bayesian chains' draws (the relative-threat family's, and the ALC's attack side
when the attack is ``bayesian_group``, with every ``attack_*`` and ``pi*`` column: precision
improvement is taken at the attack's coverage): since 0.14.0 the chains draw
from another generator, their equivalence over seeds measured (``benchmarks/RESULTS-relative-threat.md``)
and their draws pinned by ``test_relative_threat.py::test_chains_draw_the_same_as_ever``. The rest of
those scenarios (the release's shape, the ML baseline's side) is still 0.6.0's."""
SHOWN = 20
"""Mismatches listed in a failure at most (all are counted)."""
NULLABLE = {pa.int64(): pd.Int64Dtype(), pa.bool_(): pd.BooleanDtype()}
"""Stored integers and booleans read as such where other families leave them null (not as floats or objects)."""


def scores_of(out: Path, family: str | None = None) -> pd.DataFrame:
    """The scores of a job's output folder ``out`` (of ``family``'s scenarios only, when given), one
    row per scenario indexed by its id, with ``family``, ``status`` and the family's measures."""
    from alc_dask.results import read_scores

    filters = None if family is None else [("family", "==", family)]
    return read_scores(out, filters=filters).set_index("scenario_id")


def same(expected, actual, relative: float = 0.0) -> bool:
    """Equal values: missing (None or NaN) on both sides, numbers within ``relative``, nested values
    (lists, arrays, structs) element by element and exactly."""
    if _missing(expected) or _missing(actual):
        return _missing(expected) and _missing(actual)
    if isinstance(expected, dict):
        return isinstance(actual, dict) and expected.keys() == actual.keys() and all(same(expected[key], actual[key]) for key in expected)
    if isinstance(expected, list | tuple | np.ndarray):
        return isinstance(actual, list | tuple | np.ndarray) and len(expected) == len(actual) and all(map(same, expected, actual))
    if isinstance(expected, float | np.floating):
        return isinstance(actual, int | float | np.number) and math.isclose(expected, actual, rel_tol=relative, abs_tol=0.0)
    return expected == actual


def _missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float | np.floating) and math.isnan(value))


def mismatches(job: str, stored: pa.Table, out: Path) -> list[str]:
    """Where the scores in ``out`` differ from the stored ones, each naming the job, the scenario and the column."""
    expected_all = stored.to_pandas(types_mapper=NULLABLE.get).set_index("scenario_id")
    extra = sorted(set(scores_of(out).index) - set(expected_all.index))
    problems = [f"{job}: scenarios rerun, not stored: {extra}"] if extra else []
    for family, expected in expected_all.groupby("family"):
        actual = scores_of(out, family)
        problems += [f"{job}: scenario {scenario}: not among the {family} scores rerun" for scenario in expected.index.difference(actual.index)]
        for column in ["status", *(c for c in STORED["columns"][family] if c not in DROPPED.get(family, ()))]:
            if column not in actual.columns:
                problems.append(f"{job}: family {family}: column {column!r} is missing")
                continue
            if family == "identification" and column in FIT_FLAGS:
                continue
            floating = pa.types.is_floating(stored.schema.field(column).type)
            relative = _relative(family, column) if floating else 0.0
            for scenario, value in expected[column].items():
                if _drawn(expected.loc[scenario], column):
                    continue
                if scenario in actual.index and not same(value, actual.at[scenario, column], relative):
                    problems.append(f"{job}: scenario {scenario}: column {column!r}: stored {_short(value)}, now {_short(actual.at[scenario, column])}")
    return problems


def _drawn(row: pd.Series, column: str) -> bool:
    """Whether the stored scenario's ``column`` is read off the chains' draws (``DRAWN``)."""
    if row["family"] == "relative_threat":
        return column in DRAWN["relative_threat"]
    if row.get("attack") == "bayesian_group":
        return column in DRAWN["bayesian_group"] or column.startswith("pi") or (column.startswith("attack_") and column != "attack_params")
    return False


def _relative(family: str, column: str) -> float:
    """How far a stored number may be from the rerun one, relatively (see the constants above)."""
    if column.endswith("_confidence_cut"):
        return RAW_CONFIDENCE
    if family == "identification" and column.removesuffix("_low").removesuffix("_high") in FIT_OUTPUTS:
        return FITTED
    return RELATIVE


def _short(value) -> str:
    text = repr(value.tolist() if isinstance(value, np.ndarray | np.generic) else value)
    return text if len(text) <= 120 else text[:117] + "..."


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def jobs_folder(tmp_path_factory) -> Path:
    """The reference's input tables made again (from their seeded functions) and its job files, as the generator laid them out."""
    spec = importlib.util.spec_from_file_location("make_scores_reference", DATA / "make_scores_reference.py")
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    folder = tmp_path_factory.mktemp("scores-reference")
    tables = generator.write_inputs(folder / "data")
    assert tables == STORED["tables"], "the input tables differ from those the reference was measured on: scores cannot be compared"
    shutil.copytree(REFERENCE / "jobs", folder / "jobs")
    for path in (folder / "jobs").glob("*.yaml"):
        job = yaml.safe_load(path.read_text())
        for key, settings in RESTORED_DEFAULTS.items():
            job[key] = {**job.get(key, {}), **settings}
        path.write_text(yaml.safe_dump(job, sort_keys=False))
    return folder


@pytest.mark.parametrize("job", JOBS)
def test_every_score_is_the_stored_one(client, jobs_folder, job):
    from alc_dask import run_job

    out = jobs_folder / "results" / job
    run_job(jobs_folder / "jobs" / f"{job}.yaml", out=out, client=client, progress=False)
    problems = mismatches(job, pq.read_table(REFERENCE / f"{job}.parquet"), out)
    assert not problems, f"{len(problems)} differences from alc_dask 0.6.0's scores:\n" + "\n".join(problems[:SHOWN])


def test_the_comparison_finds_what_differs():
    assert same(float("nan"), None) and same([{"a": 1.0, "b": [np.nan]}], np.array([{"a": 1.0, "b": np.array([np.nan])}], dtype=object))
    assert same(0.1 + 0.2, 0.3, RELATIVE) and not same(0.3, 0.3 + 1e-9, RELATIVE) and not same(0.0, 1e-300, RELATIVE)
    assert not same([0.1 + 0.2], [0.3]), "nested numbers are compared exactly"
    assert not same(np.array([1.0, 2.0]), np.array([1.0])) and not same({"a": 1}, {"b": 1}) and not same(None, 0.0)
    assert same(np.int64(500), 500.0) and not same(True, False) and not same("safe", "at risk")


def test_a_difference_is_named_by_job_scenario_and_column(monkeypatch):
    stored = pq.read_table(REFERENCE / "membership-options.parquet")
    rerun = stored.to_pandas().set_index("scenario_id")
    changed, shortened, dropped = rerun.index[:3]
    rerun.at[changed, "auc"] *= 1 + 1e-9
    rerun.at[shortened, "roc_true_positives"] = rerun.at[shortened, "roc_true_positives"][:-1]
    rerun = rerun.drop(columns="skew").drop(index=dropped)
    monkeypatch.setitem(globals(), "scores_of", lambda out, family=None: rerun if family is None else rerun[rerun["family"] == family])
    found = [problem.split(": stored")[0] for problem in mismatches("membership-options", stored, Path("unused"))]
    assert found == [
        f"membership-options: scenario {dropped}: not among the membership scores rerun",
        f"membership-options: scenario {changed}: column 'auc'",
        "membership-options: family membership: column 'skew' is missing",
        f"membership-options: scenario {shortened}: column 'roc_true_positives'",
    ]
