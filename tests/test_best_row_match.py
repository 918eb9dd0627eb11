"""The best row match attack against Francis & Wagner 2025, §5.2, as the reference implementation
computes it, written directly on the raw tables."""

import pickle

import numpy as np
import pandas as pd
import pytest

from alc_dask import Release
from alc_dask.attacks import ABSTAINED
from alc_dask.attacks.base import AttributeTask
from alc_dask.data import ScenarioError
from alc_dask.data.partitioned import partition
from alc_dask.families.alc.best_row_match import BestRowMatch
from alc_dask.families.alc.loop.attacker import Attacker


def predict(attack, release, secret, known, rows, source="original"):
    """The attack's predictions for ``rows``, prepared for the release as a scenario prepares it."""
    return Attacker(attack, AttributeTask(secret, tuple(known))).predict(release, rows, source)


def spec_attack(original, anonymized, kinds, secret, known, rows, bins=20):
    """(labels the prediction may be, confidence) per target from the raw DataFrames, as the
    reference computes them; a label is a value, or a bin index for a continuous secret. The labels
    are the modal ones most frequent in the searched tables (the seeded draw among them is the
    attack's own).

    Per table: distance = (sum of continuous distances + categorical mismatches) / columns present,
    rows at exactly the minimum match, the minimum is rounded to 3 decimals and weighted for the
    absent known columns; tables at the smallest weighted distance pool their matches.
    """
    usable = [t for t in anonymized if secret in t.columns and set(known) & set(t.columns)]
    if kinds[secret] == "continuous":
        spread = pd.concat([original[secret]] + [t[secret] for t in anonymized if secret in t.columns])
        low, high = spread.min(), spread.max()

        def label(values):
            return np.where(values.isna(), bins, np.clip(np.floor((values - low) / ((high - low) / bins)), 0, bins - 1))
    else:

        def label(values):
            return values.astype(object).where(values.notna(), None)

    results = []
    for row in rows:
        target, best, matched = original.iloc[row], np.inf, []
        for table in usable:
            present = [c for c in table.columns if c in known]
            continuous, mismatches = np.zeros(len(table)), np.zeros(len(table), dtype=int)
            for column in present:
                x, y = target[column], table[column]
                if kinds[column] == "categorical":
                    mismatches += ~((y == x) | (y.isna() & pd.isna(x))).to_numpy()
                elif pd.isna(x):
                    continuous += y.notna().to_numpy()
                else:
                    start = min(y.min(), x)
                    span = (max(y.max(), x) - start) or 1.0
                    d = np.abs((y.to_numpy() - start) / span - np.clip((x - start) / span, 0, 1))
                    continuous += np.where(np.isnan(d), 1.0, d)
            distance = (continuous + mismatches) / len(present)
            weighted = (round(float(distance.min()), 3) * len(present) + 0.5 * (len(known) - len(present))) / len(known)
            if weighted < best:
                best, matched = weighted, []
            if weighted == best:
                matched += list(label(table[secret])[distance == distance.min()])
        counts = pd.Series([("~" if v is None else v) for v in matched]).value_counts()
        frequency = pd.Series([("~" if v is None else v) for t in usable for v in label(t[secret])]).value_counts()
        modal = [v for v in counts.index if counts[v] == counts.max()]
        most_frequent = {None if v == "~" else v for v in modal if frequency[v] == max(frequency[m] for m in modal)}
        modal_fraction = int(counts.max()) / len(matched)  # Python floats: Python's rounding, as the reference
        results.append((most_frequent, round((1 - best) * modal_fraction, 3)))
    return results


@pytest.fixture
def tables(make_table):
    rng = np.random.default_rng(5)
    original = make_table(rng, 40)
    anonymized = [make_table(rng, 500, extra_letter="e"), make_table(rng, 300).drop(columns=["x0", "c1"]), make_table(rng, 200).drop(columns=["c2", "x2"])]
    return original, anonymized


KINDS = {"c0": "categorical", "c1": "categorical", "c2": "categorical", "k": "categorical", "x0": "continuous", "x1": "continuous", "x2": "continuous"}


@pytest.mark.parametrize(
    ("secret", "known"),
    [
        ("c2", ["c0", "c1", "k", "x0", "x1"]),
        ("x2", ["c0", "x1"]),
        ("x0", ["c1", "k", "x2"]),
        ("k", ["x0"]),
    ],
)
def test_attack_equals_spec(tables, secret, known):
    original, anonymized = tables
    release = Release.load(original, anonymized, columns={"x2": "continuous"})
    rows = np.arange(len(original))
    predictions = predict(BestRowMatch(), release, secret, known, rows)
    expected = spec_attack(original, anonymized, KINDS, secret, known, rows)
    if KINDS[secret] == "continuous":
        labels = list(predictions.codes.astype(float))
    else:
        labels = list(release.decode(secret, predictions.codes))
    assert all(label in allowed for label, (allowed, _) in zip(labels, expected, strict=True))
    np.testing.assert_array_equal(predictions.confidence, [confidence for _, confidence in expected])
    assert not predictions.abstained.any()


def test_partitions_and_batches_predict_the_same(tables):
    release = Release.load(tables[0], tables[1], columns={"x2": "continuous"})
    whole = predict(BestRowMatch(), release, "x2", ["c0", "k", "x1"], np.arange(40))
    split = predict(BestRowMatch(batch_size=7, split_every=2), partition(release, 37), "x2", ["c0", "k", "x1"], np.arange(40))
    for a, b in zip(whole, split, strict=True):
        np.testing.assert_array_equal(a, b)


def tied_release(extra_b: int = 0) -> Release:
    """Every target matches one row of secret "a" and one of "b" ("a" sorts first); `extra_b` more
    rows of "b" elsewhere make it the more frequent value."""
    keys = np.arange(300)
    original = pd.DataFrame({"key": keys.astype(str), "s": np.where(keys % 2 == 0, "a", "b")})
    anonymized = pd.DataFrame({"key": np.repeat(keys, 2).astype(str), "s": np.tile(["a", "b"], len(keys))})
    anonymized = pd.concat([anonymized, pd.DataFrame({"key": ["other"] * extra_b, "s": ["b"] * extra_b})], ignore_index=True)
    return Release.load(original, [anonymized])


def test_a_tied_mode_goes_to_the_value_more_frequent_in_the_anonymized_table():
    release = tied_release(extra_b=5)
    predictions = predict(BestRowMatch(), release, "s", ["key"], np.arange(300))
    assert set(release.decode("s", predictions.codes)) == {"b"}
    assert (predictions.confidence == 0.5).all()


def test_equally_frequent_tied_values_are_drawn_without_leaning_and_alike_on_any_split():
    """Before, every such tie went to the value sorted first ("a")."""
    release = tied_release()
    rows = np.arange(300)
    drawn = predict(BestRowMatch(), release, "s", ["key"], rows).codes
    assert 0.35 < np.mean(release.decode("s", drawn) == "a") < 0.65
    again = predict(BestRowMatch(batch_size=7, split_every=2), partition(release, 41), "s", ["key"], rows[::-1]).codes
    np.testing.assert_array_equal(again, drawn[::-1])  # a target's draw depends on its row, not on the batch or the order


def test_release_survives_pickling(tables):
    """A prepared release is shipped to workers as it is."""
    release = Release.load(tables[0], tables[1], columns={"x2": "continuous"})
    shipped = pickle.loads(pickle.dumps(release))
    for a, b in zip(
        predict(BestRowMatch(), release, "x2", ["c0", "x0"], np.arange(40)), predict(BestRowMatch(), shipped, "x2", ["c0", "x0"], np.arange(40)), strict=True
    ):
        np.testing.assert_array_equal(a, b)  # values: None on both sides


def test_no_targets(tables):
    release = Release.load(tables[0], tables[1])
    predictions = predict(BestRowMatch(), release, "c2", ["c0"], np.arange(0))
    assert [len(a) for a in predictions[:3]] == [0, 0, 0] and predictions.values is None


def test_control_targets(make_table):
    rng = np.random.default_rng(3)
    original, control = make_table(rng, 30), make_table(rng, 20, extra_letter="q")
    anonymized = make_table(rng, 100)
    release = Release.load(original, [anonymized], control=control)
    predictions = predict(BestRowMatch(), release, "c2", ["c0", "x0"], np.arange(20), source="control")
    expected = spec_attack(control, [anonymized], KINDS, "c2", ["c0", "x0"], range(20))
    assert all(label in allowed for label, (allowed, _) in zip(release.decode("c2", predictions.codes), expected, strict=True))


def test_abstains_when_no_table_holds_secret_and_known(make_table):
    rng = np.random.default_rng(4)
    original = make_table(rng, 20)
    release = Release.load(original, [make_table(rng, 50)[["c0", "c1"]], make_table(rng, 50)[["c2", "k"]]])
    predictions = predict(BestRowMatch(), release, "c2", ["c0"], np.arange(5))
    assert predictions.abstained.all()
    assert (predictions.codes == ABSTAINED).all() and (predictions.confidence == 0).all()


@pytest.mark.parametrize(
    ("secret", "known", "message"),
    [
        ("c2", ["c0"], "secret 'c2' is in no anonymized table"),
        ("c0", ["c2", "k"], "none of the known columns"),
        ("c0", [], "no known columns"),
        ("c0", ["c0", "c1"], "also a known column"),
        ("nope", ["c1"], "unknown column 'nope'"),
    ],
)
def test_scenario_errors(make_table, secret, known, message):
    rng = np.random.default_rng(4)
    release = Release.load(make_table(rng, 20), [make_table(rng, 50)[["c0", "c1"]]])
    with pytest.raises(ScenarioError, match=message):
        predict(BestRowMatch(), release, secret, known, np.arange(3))


def test_attack_on_several_real_tables(shared_data):
    folder = shared_data / "tx2019"
    original = pd.read_csv(folder / "original.csv", dtype=str)
    anonymized = [pd.read_csv(folder / f"syn_{i}.csv", dtype=str) for i in range(5)]
    for table in [original, *anonymized]:
        table["DENSITY"] = table["DENSITY"].astype(float)
    release = Release.load(original, anonymized)
    known, rows = ["PUMA", "SEX", "EDU", "DENSITY"], np.arange(0, 9000, 450)
    predictions = predict(BestRowMatch(), release, "MSP", known, rows)
    kinds = {c: "categorical" for c in known + ["MSP"]} | {"DENSITY": "continuous"}
    expected = spec_attack(original, anonymized, kinds, "MSP", known, rows)
    assert all(label in allowed for label, (allowed, _) in zip(release.decode("MSP", predictions.codes), expected, strict=True))
    np.testing.assert_array_equal(predictions.confidence, [confidence for _, confidence in expected])
