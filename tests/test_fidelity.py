"""What a release keeps of the data: perfect on a copy, the pairs lost on independent marginals,
nothing on noise, and a sample of other people of the same population keeping nearly all."""

import numpy as np
import pandas as pd
import pytest

from alc_dask.apps.synthetic import make_population
from alc_dask.utility.fidelity import cramers_v, fidelity
from alc_dask.utility.section import fidelity_section

ROWS = 1000


@pytest.fixture(scope="module")
def original():
    return make_population(ROWS, 0)


def independent_marginals(table: pd.DataFrame, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({c: rng.permutation(table[c].to_numpy()) for c in table.columns})


def noise(table: pd.DataFrame, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            c: rng.uniform(table[c].min(), table[c].max(), len(table))
            if table[c].dtype.kind == "f"
            else rng.choice(np.array(["x", "y"], dtype=object), len(table))
            for c in table.columns
        }
    )


def test_a_copy_keeps_everything(original):
    kept = fidelity(original, original.sample(frac=1.0, random_state=1))
    assert kept.columns_kept == pytest.approx(1.0) and kept.pairs_kept == pytest.approx(1.0)
    assert kept.classifier_auc == pytest.approx(0.5, abs=0.05) and not kept.keeps_little
    assert all(item.distance == pytest.approx(0.0) for item in kept.per_column)


def test_independent_marginals_keep_the_columns_and_lose_the_pairs(original):
    kept = fidelity(original, independent_marginals(original, 2))
    assert kept.columns_kept > 0.98 and kept.pairs_kept < 0.2
    assert not kept.keeps_little and kept.classifier_auc > 0.7


def test_other_people_of_the_population_keep_nearly_all(original):
    kept = fidelity(original, make_population(ROWS, 9))
    assert kept.columns_kept > 0.9 and kept.pairs_kept > 0.7 and kept.classifier_auc < 0.6


def test_a_bootstrap_of_other_people_is_not_told_apart_by_its_repeated_rows():
    """A bootstrap repeats a third of its rows: split across the folds, the classifier learnt them
    and told a synthetic population's bootstrap from the original at AUC 0.61 (tx2019's at 0.83)."""
    people, others = make_population(5000, 0), make_population(5000, 7)
    bootstrap = others.sample(5000, replace=True, random_state=3).reset_index(drop=True)
    assert fidelity(people, bootstrap, seed=0).classifier_auc < 0.56
    assert fidelity(people, independent_marginals(bootstrap, 4), seed=0).classifier_auc > 0.7  # a release that differs is still told apart


def test_noise_keeps_little_and_is_said_to(original):
    kept = fidelity(original, noise(original, 3))
    assert kept.keeps_little and kept.columns_kept < 0.5 and kept.pairs_kept < 0.2 and kept.classifier_auc > 0.95
    assert kept.summary.startswith("It keeps little of the data: ")
    section = fidelity_section(kept)
    assert section.notes[0] == kept.summary and list(section.tables["Columns, the most changed first"]["Column"])[0] == kept.per_column[0].column


def test_cramers_v_reads_independence_and_determination():
    assert cramers_v(np.array([[250, 250], [250, 250]])) == 0.0
    assert cramers_v(np.array([[500, 0], [0, 500]])) == pytest.approx(1.0, abs=0.01)
    assert 0.19 < cramers_v(np.array([[300, 200], [200, 300]])) < 0.2  # 0.2 uncorrected: the correction takes what chance gives


def test_a_column_of_more_categories_than_boosting_bins(original):
    """A text column of hundreds of values (an income written as text: tx2019's PINCP, 820) made
    scikit-learn's histogram boosting refuse the classifier's fit, and `check` end in an internal
    error after every evaluation had run. Its rarest values are pooled into one category."""
    rng = np.random.default_rng(4)
    incomes = np.array([f"{v:06d}" for v in rng.integers(0, 900, 2 * ROWS)], dtype=object)
    with_text = original.assign(income_text=incomes[:ROWS])
    copy = with_text.sample(frac=1.0, random_state=1)
    others = make_population(ROWS, 9).assign(income_text=incomes[ROWS:])
    assert with_text["income_text"].nunique() > 255
    assert fidelity(with_text, copy).classifier_auc == pytest.approx(0.5, abs=0.05)
    assert fidelity(with_text, noise(with_text, 3)).classifier_auc > 0.95
    assert fidelity(with_text, others).classifier_auc < 0.65


def test_on_a_cluster_the_same_as_in_process(original):
    """On workers (real processes on 127.0.0.1) the counts are summed over parts and the classifier
    learns from rows drawn in this process, the columns' kinds read from the whole original: the
    same measures as in process (the classifier's worker was sent both tables whole before)."""
    from distributed import Client, LocalCluster

    release = independent_marginals(original, 3).head(700)
    with (
        LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster) as client,
    ):
        assert fidelity(original, release, client, seed=2) == fidelity(original, release, seed=2)


def test_categories_coded_from_distinct_values_as_from_every_value():
    """Codes are read from each distinct value's text (reading every value's was half of fidelity's
    time); they are what every value read as text gives, for text, numbers, datetimes, booleans
    and missing values of each, a value the original lacks and a column of nothing but missing."""
    from alc_dask.utility.fidelity import Codebook

    rng = np.random.default_rng(3)
    n = 400
    original = pd.DataFrame(
        {
            "text": pd.Series(rng.choice(["a", "b", "c", None], n), dtype="str"),
            "mixed": pd.Series(rng.choice([1, "1", 2.5, None, True], n), dtype=object),
            "ints": pd.Series(rng.integers(0, 30, n)),
            "floats": pd.Series(rng.choice([1.0, 2.0, np.nan, 0.5], n)),
            "days": pd.to_datetime("2024-01-01") + pd.to_timedelta(rng.choice([0, 1, 2], n), unit="D"),
            "flags": pd.Series(rng.choice([True, False], n)),
            "empty": pd.Series([None] * n, dtype=object),
        }
    )
    other = original.sample(frac=1.0, random_state=1).reset_index(drop=True)
    other.loc[:9, "text"], other.loc[:9, "ints"] = "unseen", 99
    book = Codebook(original, list(original.columns), 6)
    categorical = [column for column, kind in book.kinds.items() if kind == "categorical"]
    assert len(categorical) >= 5, book.kinds
    for table in (original, other):
        for column in categorical:
            found = book.categories[column].get_indexer(table[column].astype("string").fillna("\0missing"))
            np.testing.assert_array_equal(book.codes(table, column), np.where(found < 0, len(book.categories[column]), found), err_msg=column)
