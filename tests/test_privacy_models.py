"""The privacy_models family against pycanon (k, distinct and entropy ℓ, t), on plain and generalized
releases, on 1 and 4 partitions; the EMDs of Li, Li & Venkatasubramanian (2007) by hand; bad input."""

import numpy as np
import pytest
from pycanon import anonymity

from alc_dask.anonymize import mondrian
from alc_dask.apps.synthetic import make_demo_release
from alc_dask.data import Release
from alc_dask.data.partitioned import partition
from alc_dask.families.privacy_models.family import PrivacyModels
from alc_dask.measure.privacy_models import equal_emd, ordered_emd

QUASI = ["age", "sex", "region"]


def test_emds_of_li_et_al():
    """§4.2's salary example: Q uniform over 9 ordered values, P = {3k, 4k, 5k}: ordered EMD 0.375;
    the equal ground distance gives the total variation."""
    q = np.full(9, 1 / 9)
    p = np.array([[1 / 3, 1 / 3, 1 / 3, 0, 0, 0, 0, 0, 0]])
    assert ordered_emd(p, q)[0] == pytest.approx(0.375)
    assert equal_emd(p, q)[0] == pytest.approx(2 / 3)


@pytest.fixture(scope="module")
def people():
    return make_demo_release(400, 5)["original"]


@pytest.mark.long  # 55 s on 2 cores: out of the default run, in make test's second step
def test_plain_release_matches_pycanon(people):
    table = people[[*QUASI, "education", "income"]]
    release = Release.load(people, [table])
    for sensitive in ("education", "income"):
        family = PrivacyModels(declared_k=2, declared_l=2, declared_t=0.5, quasi_identifiers=QUASI, sensitive=sensitive)
        m = family.evaluate(release, 0).measures
        assert m["k"] == anonymity.k_anonymity(table, QUASI)
        assert m["l_distinct"] == anonymity.l_diversity(table, QUASI, [sensitive])
        assert m["t"] == pytest.approx(anonymity.t_closeness(table, QUASI, [sensitive]))
        assert int(m["l_entropy"]) == anonymity.entropy_l_diversity(table, QUASI, [sensitive])
        assert m["ground_distance"] == ("ordered" if sensitive == "income" else "equal")
        assert m["k_missed"] == (m["k"] < 2) and m["models_missed"] >= 1


def test_generalized_release_matches_pycanon_and_flags_a_missed_k(people, tmp_path):
    quasi = ["age", "sex", "region", "education"]
    generalized = mondrian(people[[*quasi, "occupation"]], quasi, "occupation", k=4, l=2)
    generalized.to_csv(tmp_path / "k4.csv", index=False)
    spec = {"scheme": "generalized", "table": tmp_path / "k4.csv", "sensitive": "occupation", "group": "group"}
    release = Release.load(people, [], grouped=spec)
    met = PrivacyModels(declared_k=4, declared_l=2).evaluate(release, 0).measures
    written = generalized.drop(columns="group").astype(str)
    assert met["k"] == anonymity.k_anonymity(written, quasi) and met["k"] >= 4
    assert met["l_distinct"] == anonymity.l_diversity(written, quasi, ["occupation"])
    assert met["t"] == pytest.approx(anonymity.t_closeness(written, quasi, ["occupation"]))
    assert met["models_missed"] == 0 and met["risk"] == "safe" and met["violating_rows"] == []
    missed = PrivacyModels(declared_k=met["k"] + 1).evaluate(release, 0).measures
    assert missed["k_missed"] and missed["models_missed"] == 1 and missed["risk"] == "at risk"
    assert missed["below_k_records"] == len(missed["violating_rows"]) > 0


def test_records_violating_k_are_listed_by_row_and_partitions_agree(people):
    table = people[[*QUASI, "education"]]
    release = Release.load(people, [table])
    family = PrivacyModels(declared_k=3, quasi_identifiers=QUASI, sensitive="education", max_records=10_000)
    whole = family.evaluate(release, 0).measures
    sizes = table.groupby(QUASI, dropna=False)["education"].transform("size")
    assert whole["violating_rows"] == np.flatnonzero(sizes < 3).tolist()
    assert family.evaluate(partition(release, 100), 0).measures == whole


def test_bad_input_names_the_field(people):
    release = Release.load(people, [people[["age", "sex", "education"]]])
    with pytest.raises(Exception, match="quasi_identifiers: \\['region'\\]"):
        PrivacyModels(declared_k=2, quasi_identifiers=QUASI, sensitive="education").check(release)
    with pytest.raises(Exception, match="sensitive: 'sex' is also a quasi-identifier"):
        PrivacyModels(declared_k=2, quasi_identifiers=["age", "sex"], sensitive="sex").check(release)
    with pytest.raises(Exception, match="source: grouped"):
        PrivacyModels(declared_k=2, source="grouped").check(release)
    with pytest.raises(Exception, match="declared_t"):
        PrivacyModels(declared_k=2, declared_t=1.5)
