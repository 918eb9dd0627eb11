"""The disclosure family (RepU, DiSCO: Raab, Nowok & Dibben 2024) against a direct pandas computation of
synthpop's definitions, on 1 and 4 partitions and 1 and 2 workers; its bad input; a copy flagged and
a fresh sample near its control."""

import logging

import numpy as np
import pandas as pd
import pytest

from alc_dask.apps.synthetic import make_demo_release, make_population
from alc_dask.data import Release
from alc_dask.data.partitioned import partition
from alc_dask.errors import JobSpecError
from alc_dask.families.disclosure.family import Disclosure
from alc_dask.families.planning import PlanContext
from alc_dask.measure.disclosure import COUNT, DisclosureCounts, disclosure_counts


def direct(original: pd.DataFrame, release: pd.DataFrame, keys: list[str], target: str | None) -> dict:
    """synthpop's shares record by record, straight from the definitions (missing keys a category)."""
    o, s = original.fillna("NA").astype(str), release.fillna("NA").astype(str)
    key_o, key_s = o[keys].agg("|".join, axis=1), s[keys].agg("|".join, axis=1)
    n_d, n_s = key_o.map(key_o.value_counts()), key_o.map(key_s.value_counts()).fillna(0)
    shares = {
        "uio": (n_d == 1).mean(),
        "uiois": ((n_d == 1) & (n_s >= 1)).mean(),
        "repu": ((n_d == 1) & (n_s == 1)).mean(),
        "uis": (key_s.map(key_s.value_counts()) == 1).mean(),
    }
    if target:
        targets_s = s.groupby(key_s)[target].agg(lambda v: set(v))
        targets_o = o.groupby(key_o)[target].agg(lambda v: set(v))
        single = [len(targets_s.get(k, set())) == 1 for k in key_o]
        correct = [targets_s.get(k, set()) == {t} for k, t in zip(key_o, o[target])]
        dio = [targets_o[k] == {t} for k, t in zip(key_o, o[target])]
        shares |= {"dis": np.mean(single), "disco": np.mean(correct), "dio": np.mean(dio), "disdio": np.mean(np.logical_and(correct, dio))}
    return shares


def frames(table: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    coded = table[columns].fillna(-1)
    return coded.groupby(columns, sort=False).size().rename(COUNT).reset_index()


def test_counts_match_the_definitions_on_a_small_table():
    rng = np.random.default_rng(1)
    original = pd.DataFrame({"a": rng.integers(0, 4, 60), "b": rng.integers(0, 3, 60), "t": rng.integers(0, 3, 60)})
    release = pd.DataFrame({"a": rng.integers(0, 4, 50), "b": rng.integers(0, 3, 50), "t": rng.integers(0, 3, 50)})
    counts = disclosure_counts(frames(original, ["a", "b", "t"]), frames(release, ["a", "b", "t"]), ["a", "b"], "t")
    for name, value in direct(original, release, ["a", "b"], "t").items():
        assert counts.shares()[name] == pytest.approx(value), name


def test_a_worked_example_by_hand():
    """Four original records on one key: A alone (unique, replicated once with its value), B twice
    with two values (not disclosive in the original), C once, absent from the release."""
    original = pd.DataFrame({"k": [0, 1, 1, 2], "t": [5, 6, 7, 5]})
    release = pd.DataFrame({"k": [0, 1, 1], "t": [5, 6, 6]})
    counts = disclosure_counts(frames(original, ["k", "t"]), frames(release, ["k", "t"]), ["k"], "t")
    assert counts == DisclosureCounts(4, 3, 2, 1, 1, 1, 2, 3, 3, 3, 2, 1)


def test_missing_key_values_are_a_category_of_their_own():
    original = pd.DataFrame({"a": ["x", None, None, "y"], "t": ["p", "q", "q", "p"]})
    release = pd.DataFrame({"a": [None, "y", "x"], "t": ["q", "q", "p"]})
    measures = Disclosure(keys=["a"], target="t").evaluate(Release.load(original, [release]), 0).measures
    assert measures["dio"] == 1.0 and measures["disco"] == pytest.approx(0.75) and measures["repu"] == pytest.approx(0.5)


@pytest.fixture(scope="module")
def people():
    demo = make_demo_release(400, 5)
    return demo["original"], demo["weak"], make_population(400, 77)


BINS = {"age": tuple(range(20, 95, 10))}
QUIET_HTTP = {"dashboard_address": "127.0.0.1:0"}
"""The scheduler's HTTP server on a free port: by default it takes 8787, and fails the test when another process holds it."""


def test_family_matches_the_definitions_with_binned_age(people):
    original, weak, control = people
    measures = Disclosure(keys=["age", "region", "sex"], target="education", bins=BINS).evaluate(Release.load(original, [weak], control), 0).measures
    binned = lambda t: t.assign(age=np.searchsorted(np.array(BINS["age"], dtype=float), t["age"], side="right"))  # noqa: E731
    for name, value in direct(binned(original), binned(weak), ["age", "region", "sex"], "education").items():
        assert measures[name if name != "is" else "in_release"] == pytest.approx(value), name
    control_only = direct(binned(control), binned(weak), ["age", "region", "sex"], "education")
    assert measures["control_disco"] == pytest.approx(control_only["disco"])


def test_same_measures_on_one_and_four_partitions_and_one_and_two_workers(people):
    from distributed import Client, LocalCluster

    original, weak, control = people
    release = Release.load(original, [weak], control)
    family = Disclosure(keys=["age", "region", "education"], target="occupation", bins=BINS)
    whole = family.evaluate(release, 0).measures
    assert family.evaluate(partition(release, 100), 0).measures == whole
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None, scheduler_kwargs=QUIET_HTTP, silence_logs=logging.ERROR
    ) as cluster:
        with Client(cluster) as client:
            one = family.evaluate(partition(release, 100, client), 0)
            cluster.scale(2)
            client.wait_for_workers(2, timeout=60)
            two = family.evaluate(partition(release, 100, client), 0)
    assert one.measures == whole and two.measures == whole
    assert one.predictions.equals(two.predictions)


def test_a_copy_is_flagged_and_a_fresh_sample_scores_near_its_control(people):
    original, _, control = people
    family = Disclosure(keys=["age", "region", "education"], target="occupation", bins=BINS)
    copy = family.evaluate(Release.load(original, [original], control), 0).measures
    fresh = family.evaluate(Release.load(original, [make_population(400, 91)], control), 0).measures
    assert copy["risk"] == "serious" and copy["disclosure_risk_low"] >= 0.09
    assert copy["disco"] == pytest.approx(copy["dio"]) and copy["repu"] == pytest.approx(copy["uio"])
    assert abs(fresh["share"] - fresh["control_share"]) < 0.05 and fresh["disclosure_risk_low"] < 0.09


def test_bad_input_names_the_field(people):
    original, weak, _ = people
    release = Release.load(original, [weak.drop(columns=["region"])])
    with pytest.raises(ValueError, match="target"):
        Disclosure(keys=["sex", "region"], target="region")
    with pytest.raises(Exception, match="region.*anonymized table"):
        Disclosure(keys=["sex", "region"], target="education").check(release)
    with pytest.raises(Exception, match="bins: the key 'age' is continuous"):
        Disclosure(keys=["age", "sex"], target="education").check(release)
    context = PlanContext(release, 0)
    from alc_dask.families.disclosure.generators import KeySets

    with pytest.raises(JobSpecError, match=r"scenarios\[0\]\.max_size: 4"):
        KeySets(generate="key_sets", columns=["sex", "education", "married"], max_size=4).plan(context, "scenarios[0]")
    with pytest.raises(JobSpecError, match=r"scenarios\[0\]\.target"):
        KeySets(generate="key_sets", columns=["sex", "education"], target="sex").plan(context, "scenarios[0]")


def test_key_sets_are_every_set_up_to_the_size(people):
    original, weak, _ = people
    planned = KeySetsPlan(Release.load(original, [weak]))
    assert sorted(tuple(p.family.params.keys) for p in planned) == [
        ("education",),
        ("education", "married"),
        ("married",),
        ("sex",),
        ("sex", "education"),
        ("sex", "married"),
    ]


def KeySetsPlan(release):
    from alc_dask.families.disclosure.generators import KeySets

    return KeySets(generate="key_sets", columns=["sex", "education", "married"], max_size=2, target="occupation").plan(PlanContext(release, 0), "scenarios[0]")


def _many_valued(rows: int, seed: int) -> pd.DataFrame:
    """Five keys of about ``rows`` distinct values each (their product beyond an int64), a sixth of
    three, a target, and missing values in one key."""
    rng = np.random.default_rng(seed)
    table = pd.DataFrame({f"v{i}": rng.integers(0, 2 * rows, rows) for i in range(5)} | {"few": rng.integers(0, 3, rows), "t": rng.integers(0, 3, rows)})
    return table.astype({"few": float}).assign(few=lambda t: t["few"].where(rng.random(rows) > 0.1))


def test_key_sets_in_one_pass_match_the_counts_of_whole_tables_packed_or_not():
    import dask

    from alc_dask.data.key_counts import coded_frame
    from alc_dask.data.packed_keys import Packing, Vocabulary, distinct_values
    from alc_dask.families.disclosure.counting import measure_key_sets

    original, release, control = _many_valued(8000, 1), _many_valued(8000, 2), _many_valued(6000, 3)
    columns = tuple(original.columns)
    coded = [coded_frame(t, columns, {}) for t in (original, release, control)]
    key_sets = [tuple(f"v{i}" for i in range(5)), ("v0", "few"), ("few",)]
    vocabulary = Vocabulary.of([distinct_values(c, columns) for c in coded])
    assert [Packing.of(vocabulary, keys, "t").packs for keys in key_sets] == [False, True, True]
    found = measure_key_sets([], *([dask.delayed(c)] for c in coded), key_sets, "t", 10)
    for keys, f in zip(key_sets, found):
        as_counts = [frames(c, [*keys, "t"]) for c in coded]
        assert f.original == disclosure_counts(as_counts[0], as_counts[1], list(keys), "t")
        assert f.control == disclosure_counts(as_counts[2], as_counts[1], list(keys), "t")
        assert f.n_disco_rows == f.original.disco and len(f.disco_rows) == min(10, f.original.disco)


def test_key_sets_in_one_pass_are_the_same_on_one_and_four_partitions_and_one_and_two_workers(people):
    from distributed import Client, LocalCluster

    from alc_dask.data.key_counts import table_frames
    from alc_dask.families.disclosure.counting import measure_key_sets

    original, weak, control = people
    release = Release.load(original, [weak], control)
    key_sets = [("age", "region", "education"), ("sex", "married"), ("region",)]
    columns = ("age", "region", "education", "sex", "married", "occupation")

    def measured(release, sets=key_sets):
        tables = [table_frames(t, columns, BINS) for t in (release.original, release.anonymized[0], release.control)]
        return measure_key_sets([b for blocks, _ in tables for b in blocks], *(frames for _, frames in tables), sets, "occupation", 50)

    def as_tuples(found):
        return [(f.original, f.control, f.disco_rows.tolist(), f.n_disco_rows) for f in found]

    whole = as_tuples(measured(release))
    assert whole == [as_tuples(measured(release, [keys]))[0] for keys in key_sets]  # each key set as if alone
    assert as_tuples(measured(partition(release, 100))) == whole
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None, scheduler_kwargs=QUIET_HTTP, silence_logs=logging.ERROR
    ) as cluster:
        with Client(cluster) as client:
            one = as_tuples(measured(partition(release, 100, client)))
            cluster.scale(2)
            client.wait_for_workers(2, timeout=60)
            two = as_tuples(measured(partition(release, 100, client)))
    assert one == whole and two == whole


def test_a_target_the_keys_disclose_for_most_non_members_cannot_block_a_pass():
    """education-num, which education determines, is disclosed for 94% of non-members: the risk's
    interval held bootstraps of other people inconclusive though no outcome could clear them."""
    from alc_dask.families.disclosure.family import Disclosure
    from alc_dask.measure.disclosure import excess_risk
    from alc_dask.verdict import judged

    def stored(hits, control_hits, n=5000):
        risk = excess_risk(n, hits, n, control_hits)
        return pd.Series(
            {
                "disclosure_risk": risk.value,
                "disclosure_risk_low": risk.low,
                "disclosure_risk_high": risk.high,
                "n_original": n,
                "n_hits": hits,
                "n_control": n,
                "n_control_hits": control_hits,
                "control_share": control_hits / n,
                "disco": hits / n,
                "target": "education-num",
                "keys": '["education"]',
                "params": '{"confidence_level": 0.95}',
                "scenario_id": "d",
            }
        )

    anyway = judged(Disclosure, stored(4705, 4685), Disclosure.threshold.value)
    assert anyway.label == "not_informative" and anyway.evidence.startswith("the release discloses education-num of 93.7% of non-members too")
    assert judged(Disclosure, stored(5000, 4685), Disclosure.threshold.value).label == "flagged"
    assert judged(Disclosure, stored(1500, 1480), Disclosure.threshold.value).label == "pass"
