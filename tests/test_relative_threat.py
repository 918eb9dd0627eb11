"""The Bayesian model of group-anonymized tables (Boreale et al. 2020): measures, chains and posteriors.

The 8-row example of their Table I is built here by hand (its loading from files is tested in
test_grouped_release.py), in the domain their Table III is computed in: the values the
original table holds.
"""

import dataclasses
import hashlib
import importlib

import numpy as np
import pandas as pd
import pytest
import yaml

from alc_dask.data.grouped import GroupedTable
from alc_dask.families.relative_threat.group_posterior import ChainSettings, Posterior, chain_seeds, run_chain, sample_chains
from alc_dask.measure.relative_threat import (
    absolute_error,
    geweke_z,
    global_threat,
    ideal_parameters,
    naive_bayes_posterior,
    relative_global_threat,
    relative_threat,
    split_rhat,
    threatened,
)

NATIONS = np.array(["China", "India", "Japan", "Malaysia"])
ZIPS = np.array(["45501", "45502", "55503", "55504", "66601", "77701"])
DISEASES = np.array(["Diabetes", "Flu", "HIV", "Heart", "Stomach"])
DIABETES, FLU, HIV, HEART, STOMACH = range(5)
# Table I(a): (nation, zip) codes and diseases of the 8 people
ORIGINAL_QI = np.array([(3, 0), (2, 1), (2, 2), (2, 3), (0, 4), (2, 4), (1, 5), (3, 5)], dtype=np.int32)
ORIGINAL_DISEASE = np.array([HEART, FLU, FLU, STOMACH, HIV, DIABETES, FLU, HEART], dtype=np.int32)
GROUPS = np.array([0, 2, 4, 6, 8])


def _offsets(cells):
    return np.concatenate([[0], np.cumsum([len(c) for c in cells])]).astype(np.int64)


def table_1b() -> GroupedTable:
    """Table I(b): 2-anonymous, 2-diverse by local recoding."""
    nation_cells = [[2, 3], [2], [0, 2], [1, 3]]  # {M, J}, Japan, {C, J}, {I, M}
    zip_cells = [[0, 1], [2, 3], [4], [5]]  # 4550*, 5550*, 66601, 77701
    cells = np.repeat(np.arange(4), 2)
    return GroupedTable(
        "generalized",
        ("nation", "zip"),
        "disease",
        (NATIONS, ZIPS),
        DISEASES,
        GROUPS,
        ORIGINAL_DISEASE.copy(),
        np.column_stack([cells, cells]).astype(np.int32),
        (_offsets(nation_cells), _offsets(zip_cells)),
        (np.concatenate(nation_cells).astype(np.int32), np.concatenate(zip_cells).astype(np.int32)),
        ORIGINAL_QI,
        ORIGINAL_DISEASE,
    )


def table_1c() -> GroupedTable:
    """Table I(c): Anatomy, the quasi-identifiers permuted within each group."""
    qi = np.array([(2, 1), (3, 0), (2, 3), (2, 2), (2, 4), (0, 4), (3, 5), (1, 5)], dtype=np.int32)
    return GroupedTable(
        "anatomy", ("nation", "zip"), "disease", (NATIONS, ZIPS), DISEASES, GROUPS, ORIGINAL_DISEASE.copy(), qi, (), (), ORIGINAL_QI, ORIGINAL_DISEASE
    )


def posterior_of(grouped: GroupedTable, iterations: int = 40_000, chains: int = 2) -> Posterior:
    settings = ChainSettings(iterations=iterations, burn_in=iterations // 8, thin=1)
    return Posterior.build(grouped, sample_chains(grouped, settings, seed=3, chains=chains), grouped.original_qi)


VICTIM = 0  # (Malaysia, 45501), the first person of Table I(a)


@pytest.fixture(scope="module")
def posterior_1b() -> Posterior:
    return posterior_of(table_1b())


def test_table_iii_attacker(posterior_1b):
    p = posterior_1b.attacker[posterior_1b.rows_of(ORIGINAL_QI[[VICTIM]])[0]]
    assert p[HEART] == pytest.approx(0.580, abs=0.02)
    assert p[FLU] == pytest.approx(0.420, abs=0.02)
    assert p[[DIABETES, HIV, STOMACH]].tolist() == [0, 0, 0]


def test_table_iii_learner(posterior_1b):
    p = posterior_1b.learner[posterior_1b.rows_of(ORIGINAL_QI[[VICTIM]])[0]]
    expected = {HEART: 0.343, FLU: 0.317, STOMACH: 0.113, HIV: 0.114, DIABETES: 0.113}
    for disease, value in expected.items():
        assert p[disease] == pytest.approx(value, abs=0.02), DISEASES[disease]


def test_table_iii_random_worlds_is_exact(posterior_1b):
    p = posterior_1b.random_worlds[posterior_1b.rows_of(ORIGINAL_QI[[VICTIM]])[0]]
    assert p.tolist() == [0.0, 0.5, 0.0, 0.5, 0.0]


def test_anatomy_random_worlds_is_the_groups_frequencies():
    posterior = posterior_of(table_1c(), iterations=4_000)
    # (Japan, 55503) is in group 2 alone, with Flu and Stomach; (Japan, 66601) in group 3 with HIV, Diabetes
    for victim, expected in ((2, {FLU: 0.5, STOMACH: 0.5}), (5, {HIV: 0.5, DIABETES: 0.5})):
        p = posterior.random_worlds[posterior.rows_of(ORIGINAL_QI[[victim]])[0]]
        assert {i: v for i, v in enumerate(p) if v} == expected
        attacker = posterior.attacker[posterior.rows_of(ORIGINAL_QI[[victim]])[0]]
        assert attacker.sum() == pytest.approx(1.0)
        assert set(np.flatnonzero(attacker)) <= set(expected)


def test_anatomy_attacker_learns_across_groups():
    """Malaysians have Heart disease in group 4 (with an Indian of Flu): the attacker leans the
    victim of group 1 to Heart as well, as in the horizontal case."""
    posterior = posterior_of(table_1c())
    p = posterior.attacker[posterior.rows_of(ORIGINAL_QI[[VICTIM]])[0]]
    assert p[HEART] > 0.55 and p[HEART] + p[FLU] == pytest.approx(1.0)


def test_chains_are_seeded():
    settings = ChainSettings(iterations=300, burn_in=100, thin=10)
    first, again = run_chain(table_1c(), settings, 7), run_chain(table_1c(), settings, 7)
    other = run_chain(table_1c(), settings, 8)
    assert np.array_equal(first.phis, again.phis) and np.array_equal(first.slot_counts, again.slot_counts)
    assert not np.array_equal(first.phis, other.phis)
    assert first.phis.shape == (20, 5, 10) and np.allclose(first.phis[:, :, :4].sum(axis=2), 1.0)
    assert chain_seeds(0, 3) == chain_seeds(0, 3) and len(set(chain_seeds(0, 3))) == 3


def _repeated(grouped: GroupedTable, times: np.ndarray) -> GroupedTable:
    """``grouped`` with row j repeated ``times[j]`` times (groups grow with their rows)."""
    ends = np.cumsum(times)[grouped.group_offsets[1:] - 1]
    return dataclasses.replace(
        grouped,
        group_offsets=np.concatenate([[0], ends]),
        sensitive_codes=np.repeat(grouped.sensitive_codes, times),
        qi=np.repeat(grouped.qi, times, axis=0),
        original_qi=np.repeat(grouped.original_qi, times, axis=0),
        original_sensitive=np.repeat(grouped.original_sensitive, times),
    )


def _digest(chain) -> str:
    parts = (chain.thetas, chain.phis) if chain.slot_counts is None else (chain.thetas, chain.phis, chain.slot_counts, np.float64(chain.acceptance))
    return hashlib.sha256(b"".join(np.ascontiguousarray(p).tobytes() for p in parts)).hexdigest()[:16]


# Table I with the first group's rows 40 times (combos of over 32 rows: multinomials), the second's 3
# times (drawn row by row) and cells of one value (fixed counts); both priors' gamma paths (shape
# above 1, and 0.5 below it).
@pytest.mark.parametrize(
    "table, prior, expected",
    [
        (table_1b, 1.0, "4b469fcbf6469ad4"),
        (table_1b, 0.5, "aa860745a8454134"),
        (table_1c, 1.0, "7a18c0357ddad202"),
        (table_1c, 0.5, "2702b6cd7aab324e"),
    ],
)
def test_chains_draw_the_same_as_ever(table, prior, expected):
    """A change to the kernels must leave every draw of a seed as it was, bit for bit (digests of
    NumPy 2 and Numba 0.68 on x86-64: another libm may round a log differently), or be shown
    equivalent over seeds (``benchmarks/chain_equivalence.py``) in a new minor version and pinned
    again here. Pinned at 0.14.0, whose chains draw from SplitMix64 alone."""
    grouped = _repeated(table(), np.array([40, 40, 3, 3, 1, 1, 1, 1]))
    chain = run_chain(grouped, ChainSettings(iterations=400, burn_in=100, thin=3, alpha=prior, beta=prior), 11)
    assert _digest(chain) == expected


def test_ideal_distribution_closed_form():
    """Eq. 20 with α = β = 1, naive Bayes: for the victim (Malaysia, 45501) and Heart,
    θ = (1 + 2)/(5 + 8), φ_nation(M | Heart) = (1 + 2)/(4 + 2), φ_zip(45501 | Heart) = (1 + 1)/(6 + 2)."""
    theta, phi = ideal_parameters(ORIGINAL_DISEASE, ORIGINAL_QI, np.array([4, 6]), 5)
    offsets = np.array([0, 4, 10])
    assert theta[HEART] == pytest.approx(3 / 13)
    assert phi[HEART, 3] == pytest.approx(3 / 6) and phi[HEART, 4 + 0] == pytest.approx(2 / 8)
    assert phi[STOMACH, 4 + 0] == pytest.approx(1 / 7)
    joint = theta * phi[:, 3] * phi[:, 4]
    assert naive_bayes_posterior(theta, phi, offsets, ORIGINAL_QI[[VICTIM]])[0] == pytest.approx(joint / joint.sum())


def test_threat_measures():
    p_attacker = np.array([[0.6, 0.4], [0.5, 0.5], [0.2, 0.8], [np.nan, np.nan]])
    p_learner = np.array([[0.3, 0.7], [0.5, 0.5], [0.4, 0.6], [0.5, 0.5]])
    truth = np.array([0, 1, 0, 0])
    assert threatened(p_attacker, truth).tolist() == [1.0, 0.5, 0.0, 0.0]
    assert global_threat(p_attacker, truth) == pytest.approx(1.5 / 4)
    assert global_threat(p_learner, truth) == pytest.approx(1.0 / 4)  # ties: half a row twice
    ti = relative_threat(p_attacker, p_learner, truth)
    assert ti[0] == pytest.approx(2.0) and ti[1] == pytest.approx(1.0) and np.isnan(ti[2:]).all()
    assert relative_global_threat(0.2, 0.3) == 0.0 and relative_global_threat(0.3, 0.2) == pytest.approx(0.1)
    # Σ_s |1{s_i = s} − q(s)| per row: 0.8, 1.0, 1.6, and 2 for the row without a distribution
    assert absolute_error(p_attacker, truth) == pytest.approx(0.8 + 1.0 + 1.6 + 2.0)


def test_convergence_diagnostics():
    rng = np.random.default_rng(0)
    mixed = rng.normal(size=(4, 2000, 50))
    assert split_rhat(mixed).max() < 1.01
    assert np.mean(np.abs(geweke_z(mixed[0])) > 1.96) < 0.15
    stuck = mixed + np.arange(4)[:, None, None]  # each chain around its own mean
    assert split_rhat(stuck).min() > 1.5
    trending = mixed[0] + np.linspace(0, 3, 2000)[:, None]
    assert np.abs(geweke_z(trending)).min() > 3


@pytest.fixture(scope="module")
def mondrian_release(tmp_path_factory):
    """A 3-anonymous, 3-diverse Mondrian release of 600 synthetic people, as files."""
    from alc_dask.anonymize import anatomize, mondrian
    from alc_dask.apps.synthetic import make_population

    folder = tmp_path_factory.mktemp("grouped")
    people = make_population(600, seed=4)[["age", "sex", "region", "education", "occupation"]]
    people.to_csv(folder / "original.csv", index=False)
    mondrian(people, ["age", "sex", "region", "education"], "occupation", k=3, l=3).to_csv(folder / "k3.csv", index=False)
    quasi, sensitive = anatomize(people, ["age", "sex", "region", "education"], "occupation", l=3, seed=1)
    quasi.to_csv(folder / "qit.csv", index=False)
    sensitive.to_csv(folder / "st.csv", index=False)
    return folder


def job_file(folder, grouped: dict, name: str) -> str:
    chain = {"iterations": 3000, "burn_in": 1000, "thin": 10, "chains": 2}
    job = {
        "name": name,
        "release": {"original": "original.csv", "grouped": grouped},
        "scenarios": [
            {"family": "relative_threat", **chain},
            {"secret": "occupation", "known": ["age", "sex", "region", "education"], "attack": {"name": "bayesian_group", "params": chain}},
        ],
        "baselines": ["ml"],
        "output": f"out-{name}",
    }
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(job))
    return path


GROUPED = {
    "k3": {"scheme": "generalized", "table": "k3.csv", "sensitive": "occupation", "group": "group", "k": 3, "l": 3},
    "anatomy": {"scheme": "anatomy", "table": "qit.csv", "sensitive_table": "st.csv", "sensitive": "occupation", "group": "group", "count": "count", "l": 3},
}


@pytest.mark.parametrize("name", [pytest.param("k3", marks=pytest.mark.long), pytest.param("anatomy", marks=pytest.mark.long)])
def test_jobs_on_a_cluster_measure_threat_and_alc_with_chains_on_separate_workers(mondrian_release, name, two_workers_without_stealing):
    from alc_dask import run_job
    from alc_dask.data import Release
    from alc_dask.families.relative_threat.family import RelativeThreat
    from alc_dask.jobs.load import load_job
    from alc_dask.results import read_predictions

    client = two_workers_without_stealing
    # A chain goes to a worker of its own, a preference: work stealing (off here) once moved the chain
    # sent to the worker busy with the other scenario to its peer, both chains on one worker. The
    # workers import scikit-learn first, not when the other scenario fits its first baseline.
    client.run(importlib.import_module, "sklearn.ensemble")
    scores = run_job(job_file(mondrian_release, GROUPED[name], name), client=client, progress=False)
    assert (scores["status"] == "ok").all(), scores["error"].tolist()
    threat = scores[scores["family"] == "relative_threat"].iloc[0]
    assert threat["chain_workers"] == 2 and threat["draws"] == 400
    assert 0 <= threat["gt_learner"] <= 1 and 0 <= threat["gt_attacker"] <= 1 and threat["rgt_attacker"] >= 0
    assert threat["baseline_accuracy"] < threat["ideal_accuracy"] < 1
    assert len(threat["threat_attacker"]) == len(threat["threat_learner"]) > 0
    assert threat["risk"] in ("no loss", "safe", "at risk", "serious") and isinstance(threat["converged"], bool | np.bool_)
    attack = scores[scores["family"] == "alc"].iloc[0]
    assert attack["attack"] == "bayesian_group" and 0 < attack["attack_precision"] <= 1
    # the same seed in this process, without a cluster: the same chains, the same measures
    spec = load_job(mondrian_release / f"{name}.yaml")
    release = Release.load(mondrian_release / "original.csv", [], grouped=spec.release.grouped.model_copy(update={}))
    local = RelativeThreat(iterations=3000, burn_in=1000, thin=10, chains=2).evaluate(release, int(threat["seed"])).measures
    for measure in ("gt_attacker", "gt_learner", "faithfulness", "rhat_max", "abs_attacker"):
        assert local[measure] == pytest.approx(threat[measure], rel=1e-12), measure
    assert local["chain_workers"] == 1
    predictions = read_predictions(mondrian_release / f"out-{name}", [threat["scenario_id"]])
    assert sorted(predictions["side"].unique()) == ["attacker", "ideal", "learner", "random_worlds"]
    attacker = predictions[predictions["side"] == "attacker"]
    assert len(attacker) == 600 and attacker["correct"].mean() >= threat["gt_attacker"]  # ties count whole here, a share in GT
    assert "true" not in predictions or predictions["true"].isna().all()  # no values written


def test_a_release_without_grouped_table_is_refused(make_table):
    from alc_dask.data import Release
    from alc_dask.families.relative_threat.family import RelativeThreat

    table = make_table(np.random.default_rng(0), 50)
    with pytest.raises(Exception, match=r"relative_threat: the release has no group-anonymized table"):
        RelativeThreat(iterations=100, burn_in=50, thin=10).evaluate(Release.load(table, [table]), 0)
    with pytest.raises(ValueError, match="leave no draw after burn_in"):
        RelativeThreat(iterations=100, burn_in=95, thin=10)


@pytest.mark.parametrize(
    ("params", "message"),
    [({"iterations": 50, "burn_in": 100}, "leave no draw after burn_in"), ({"thin": 0}, "thin must be a whole number"), ({"beta": 0}, "must be positive")],
)
def test_the_attack_refuses_chains_that_cannot_run(params, message):
    from alc_dask.attacks.registry import build_attack
    from alc_dask.measure import SettingError

    with pytest.raises(SettingError, match=message):
        build_attack("bayesian_group", **params)


def test_the_chains_run_once_for_the_attack_its_baselines_and_the_family(mondrian_release, monkeypatch):
    """The ALC scenario of ``bayesian_group`` under every baseline (the prior baseline's stand-ins
    share the release's grouped table) and a ``relative_threat`` evaluation with the same settings
    and seed are prepared once in a process; other settings run chains of their own."""
    from alc_dask.data import Release
    from alc_dask.families.alc.family import AlcFamily
    from alc_dask.families.relative_threat import attack
    from alc_dask.families.relative_threat.family import RelativeThreat
    from alc_dask.jobs.spec import GroupedSpec

    runs = []
    monkeypatch.setattr(attack, "sample_chains", lambda *args: runs.append(args[1:]) or sample_chains(*args))
    people = pd.read_csv(mondrian_release / "original.csv")
    grouped = GroupedSpec.model_validate(GROUPED["k3"] | {"table": str(mondrian_release / "k3.csv")})
    release = Release.load(people.iloc[:450], [], control=people.iloc[450:], grouped=grouped)
    chain = {"iterations": 600, "burn_in": 200, "thin": 10, "chains": 2}
    known = ["age", "sex", "region", "education"]
    for baseline in ("ml", "prior", "control"):
        scenario = AlcFamily(secret="occupation", known=known, attack={"name": "bayesian_group", "params": {**chain, "seed": 7}}, baseline=baseline)
        assert scenario.evaluate(release, seed=1).measures["pairs"] > 0
    threat = RelativeThreat(**chain).evaluate(release, 7).measures
    assert len(runs) == 1 and threat["draws"] == 80
    RelativeThreat(**chain).evaluate(release, 8)
    assert len(runs) == 2
