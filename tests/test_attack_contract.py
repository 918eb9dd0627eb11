"""The one attack contract: attacks found by kind, prepared once per release and task in a worker
process (and never for another release), attacks of the earlier contract still running."""

import gc

import numpy as np
import pandas as pd
import pytest

from alc_dask import Release
from alc_dask.attacks.base import AttackKind, AttributeAttack, AttributeTask, Predictions
from alc_dask.attacks.prepared import PREPARED, PreparedStates, prepared_state
from alc_dask.attacks.registry import attack_names, build_attack
from alc_dask.data import ScenarioError
from alc_dask.families.alc.best_row_match import BestRowMatch
from alc_dask.families.alc.family import AlcFamily
from alc_dask.families.alc.loop.attacker import Attacker
from alc_dask.measure import SettingError


class CountsRows(AttributeAttack):
    """Predicts code 0; prepares the anonymized tables' row count, recording every preparation."""

    def __init__(self, offset: int = 0):
        self.offset = offset
        self.prepared_for = []

    def prepare(self, release, task):
        self.prepared_for.append(task.secret)
        return sum(t.n_rows for t in release.anonymized) + self.offset

    def predict(self, prepared, targets):
        n = len(targets.rows)
        return Predictions(np.zeros(n, np.int32), np.full(n, float(prepared)), np.zeros(n, bool))


def small_release(rows: int = 40, seed: int = 0) -> Release:
    rng = np.random.default_rng(seed)
    table = pd.DataFrame({"a": rng.choice(["x", "y"], rows), "b": rng.choice(["p", "q", "r"], rows), "c": rng.choice(["u", "v"], rows)})
    return Release.load(table, [table.iloc[: rows // 2]])


def test_a_state_is_prepared_once_per_release_attack_and_task_and_goes_with_its_release():
    release, attack = small_release(), CountsRows()
    task = AttributeTask("b", ("a",))
    gc.collect()  # releases earlier tests left behind
    held = PREPARED.releases()
    for rows in (np.arange(5), np.arange(5, 9)):
        assert Attacker(attack, task).predict(release, rows).confidence[0] == 20.0
    Attacker(CountsRows(), task).predict(release, np.arange(3))  # the same class and parameters: the same state
    assert attack.prepared_for == ["b"]
    assert Attacker(CountsRows(offset=1), task).predict(release, np.arange(3)).confidence[0] == 21.0  # other parameters
    Attacker(attack, AttributeTask("c", ("a",))).predict(release, np.arange(3))  # another task
    Attacker(attack, task).predict(small_release(60), np.arange(3))  # another release
    assert attack.prepared_for == ["b", "c", "b"]
    gc.collect()
    assert PREPARED.releases() == held + 1  # the second release is gone already
    del release
    gc.collect()
    assert PREPARED.releases() == held


def test_a_release_made_where_a_freed_one_was_never_gets_its_state():
    """One attack object on short-lived releases, each freed before the next (an ``id`` is then
    often reused): every prediction follows its own release's tie-break. Before, best_row_match
    remembered value counts by ``id(release)`` and sometimes used a freed release's."""
    keys = np.arange(300)
    original = pd.DataFrame({"key": keys.astype(str), "s": np.where(keys % 2 == 0, "a", "b")})
    tied = pd.DataFrame({"key": np.repeat(keys, 2).astype(str), "s": np.tile(["a", "b"], len(keys))})
    attacker = Attacker(BestRowMatch(), AttributeTask("s", ("key",)))
    for i in range(20):
        more = "ab"[i % 2]  # five more rows of it elsewhere: it wins every tie
        release = Release.load(original, [pd.concat([tied, pd.DataFrame({"key": ["other"] * 5, "s": [more] * 5})], ignore_index=True)])
        assert set(release.decode("s", attacker.predict(release, np.arange(300)).codes)) == {more}, i
        del release
        gc.collect()


def test_states_beyond_the_limit_go_least_recently_used_first():
    states, release = PreparedStates(per_release=2), small_release()
    computed = []

    def compute(key):
        return lambda: computed.append(key) or key

    for key in ("one", "two", "one", "three", "one", "two"):
        states.get(release, key, compute(key))
    assert computed == ["one", "two", "three", "two"]  # "two" was the least recent when "three" came


def test_an_attack_without_preparation_keeps_nothing():
    class Plain(AttributeAttack):
        def predict(self, prepared, targets):
            raise AssertionError("not asked")

    release = small_release()
    before = PREPARED.prepared
    assert prepared_state(Plain(), release, AttributeTask("b", ("a",))) is None
    assert PREPARED.prepared == before


def test_attacks_are_found_by_kind_and_a_wrong_kind_names_the_right_ones():
    assert {"best_row_match", "bayesian_group"} <= set(attack_names(AttackKind.ATTRIBUTE))
    assert attack_names(AttackKind.MEMBERSHIP) == ["closest_distance", "density_ratio", "distance_ratio"]
    assert build_attack("closest_distance").kind is AttackKind.MEMBERSHIP
    with pytest.raises(
        SettingError, match="attack 'closest_distance' is for membership, not attribute inference; known attribute inference attacks: "
    ) as error:
        build_attack("closest_distance", AttackKind.ATTRIBUTE)
    assert error.value.field == "name" and "('closest_distance' is for membership)" in error.value.expected
    with pytest.raises(SettingError, match="unknown membership attack 'shadow'; known: closest_distance, density_ratio, distance_ratio"):
        build_attack("shadow", AttackKind.MEMBERSHIP)


def test_parameters_are_read_back_and_an_attack_that_hides_them_is_told_how_to_fix_it():
    assert BestRowMatch(batch_size=7).get_params() == {"batch_size": 7, "split_every": BestRowMatch().split_every}

    class Hides(AttributeAttack):
        def __init__(self, depth: int = 2):
            self._depth = depth

        def prepare(self, release, task):
            return self._depth

    with pytest.raises(TypeError, match="stores no attribute depth: keep each parameter under its own name, or override preparation_key"):
        prepared_state(Hides(), small_release(), AttributeTask("b", ("a",)))


class EarlierContract:
    """An attack object as written before the contract: the release and the scenario in every call."""

    def __init__(self, value: str = "p"):
        self.value = value
        self.calls = []

    def check(self, release, secret, known, tolerance):
        if secret == "c":
            raise ScenarioError("earlier_contract: not this secret")

    def predict(self, release, secret, known, target_rows, source="original", client=None):
        self.calls.append((secret, tuple(known), source))
        code = release.secret_codes(secret).encode(pd.Series([self.value]))[0]
        n = len(target_rows)
        return Predictions(np.full(n, code, np.int32), np.ones(n), np.zeros(n, bool))


def test_an_attack_of_the_earlier_contract_still_checks_and_predicts(monkeypatch):
    from alc_dask.attacks import registry

    monkeypatch.setitem(registry._REGISTERED, "earlier_contract", EarlierContract)
    attack = build_attack("earlier_contract", AttackKind.ATTRIBUTE, value="q")
    release = small_release(200)
    predictions = Attacker(attack, AttributeTask("b", ("a", "c"))).predict(release, np.arange(4), source="original")
    assert list(release.decode("b", predictions.codes)) == ["q"] * 4
    assert attack.predictor.calls == [("b", ("a", "c"), "original")]
    with pytest.raises(ScenarioError, match="earlier_contract: not this secret"):
        AlcFamily(secret="c", known=["a"], attack={"name": "earlier_contract"}).check_attack(release)
    result = AlcFamily(secret="b", known=["a"], attack={"name": "earlier_contract"}, baseline_settings={"candidates": ["majority"]}).evaluate(release, 0)
    assert result.measures["attack"] == "earlier_contract" and result.measures["pairs"] > 0
