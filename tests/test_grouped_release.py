"""Group-anonymized releases from files: seed 002's Table I as a generalized table (with and without
a hierarchy) and as Anatomy's two tables, the cell rules, and bad input named before any work."""

import numpy as np
import pandas as pd
import pytest
import yaml

from alc_dask.data import Release, ReleaseError, ScenarioError
from alc_dask.data.generalization import Domain, Hierarchy
from alc_dask.engine.runner import manifest, prepare_release
from alc_dask.jobs.errors import JobSpecError
from alc_dask.jobs.load import check_files, load_job

ORIGINAL = pd.DataFrame(
    {
        "ID": range(1, 9),
        "Nat": ["Malaysia", "Japan", "Japan", "Japan", "China", "Japan", "India", "Malaysia"],
        "ZIP": [45501, 45502, 55503, 55504, 66601, 66601, 77701, 77701],
        "Dis": ["Heart", "Flu", "Flu", "Stomach", "HIV", "Diabetes", "Flu", "Heart"],
    }
)
GENERALIZED = pd.DataFrame(
    {
        "Nat": ["{Malaysia, Japan}", "{Malaysia, Japan}", "Japan", "Japan", "{China, Japan}", "{China, Japan}", "{India, Malaysia}", "{India, Malaysia}"],
        "ZIP": ["4550*", "4550*", "5550*", "5550*", "66601", "66601", "77701", "77701"],
        "Dis": ORIGINAL["Dis"],
    }
)
QIT = pd.DataFrame({"GID": [1, 1, 2, 2, 3, 3, 4, 4], "Nat": ["Japan", "Malaysia", "Japan", "Japan", "Japan", "China", "Malaysia", "India"]})
QIT["ZIP"] = [45502, 45501, 55504, 55503, 66601, 66601, 77701, 77701]
ST = pd.DataFrame({"GID": [1, 1, 2, 2, 3, 3, 4, 4], "Dis": ["Heart", "Flu", "Flu", "Stomach", "HIV", "Diabetes", "Flu", "Heart"], "Count": 1})


@pytest.fixture
def files(tmp_path):
    ORIGINAL.drop(columns="ID").to_csv(tmp_path / "original.csv", index=False)
    GENERALIZED.to_csv(tmp_path / "k2.csv", index=False)
    QIT.to_csv(tmp_path / "qit.csv", index=False)
    ST.to_csv(tmp_path / "st.csv", index=False)
    leaves = [f"{p}{d}" for p in ("4550", "5550") for d in range(10)]
    rows = [f"{leaf};{leaf[:4]}*" for leaf in leaves] + ["66601;66601", "77701;77701"]
    (tmp_path / "zip.csv").write_text("\n".join(rows) + "\n")
    return tmp_path


def generalized(files, **extra):
    return {"scheme": "generalized", "table": files / "k2.csv", "sensitive": "Dis"} | extra


def anatomy(files, **extra):
    return {"scheme": "anatomy", "table": files / "qit.csv", "sensitive_table": files / "st.csv", "sensitive": "Dis", "group": "GID", "count": "Count"} | extra


def cell(grouped, row, attribute):
    a = grouped.quasi_identifiers.index(attribute)
    cell_id = grouped.qi[row, a]
    codes = grouped.cell_values[a][grouped.cell_offsets[a][cell_id] : grouped.cell_offsets[a][cell_id + 1]]
    return set(grouped.domains[a][codes])


def test_table_i_b_reads_as_groups_of_generalized_cells(files):
    grouped = Release.load(files / "original.csv", [], grouped=generalized(files)).grouped
    assert grouped.scheme == "generalized" and grouped.quasi_identifiers == ("Nat", "ZIP")
    assert grouped.group_offsets.tolist() == [0, 2, 4, 6, 8]
    assert cell(grouped, 0, "Nat") == {"Malaysia", "Japan"} and cell(grouped, 2, "Nat") == {"Japan"}
    assert cell(grouped, 0, "ZIP") == {"45501", "45502"}  # without a hierarchy: the values the original holds
    assert cell(grouped, 6, "ZIP") == {"77701"}
    assert list(grouped.sensitive_values[grouped.sensitive_codes]) == ORIGINAL["Dis"].tolist()
    victim = grouped.original_qi[0]
    assert (grouped.domains[0][victim[0]], grouped.domains[1][victim[1]]) == ("Malaysia", "45501")
    assert grouped.distinct_sensitive_per_group().tolist() == [2, 2, 2, 2]


def test_a_hierarchy_resolves_cells_and_adds_its_values_to_the_domain(files):
    grouped = Release.load(files / "original.csv", [], grouped=generalized(files, hierarchies={"ZIP": files / "zip.csv"})).grouped
    assert cell(grouped, 0, "ZIP") == {f"4550{d}" for d in range(10)}
    assert len(grouped.domains[1]) == 22


def test_table_i_c_reads_as_anatomy(files):
    grouped = Release.load(files / "original.csv", [], grouped=anatomy(files)).grouped
    assert grouped.scheme == "anatomy" and grouped.cell_offsets == ()
    assert grouped.group_offsets.tolist() == [0, 2, 4, 6, 8]
    nations = grouped.domains[0][grouped.qi[:, 0]].tolist()
    assert nations == QIT["Nat"].tolist()
    assert list(grouped.sensitive_values[grouped.sensitive_codes]) == ST["Dis"].tolist()


def test_counts_expand_the_sensitive_table(files):
    ST.groupby(["GID", "Dis"], as_index=False).size().rename(columns={"size": "Count"}).to_csv(files / "st.csv", index=False)
    grouped = Release.load(files / "original.csv", [], grouped=anatomy(files)).grouped
    assert sorted(grouped.sensitive_values[grouped.sensitive_codes][:2]) == ["Flu", "Heart"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("*", {"-3", "5", "30", "35", "39", "40", "45"}),
        ("[30, 40]", {"30", "35", "39", "40"}),
        ("[30-39]", {"30", "35", "39"}),
        ("(30, 40]", {"35", "39", "40"}),
        ("[30, 40[", {"30", "35", "39"}),
        ("[-5, 5)", {"-3"}),
        ("{5, 45}", {"5", "45"}),
        ("3*", {"30", "35", "39"}),
        ("40", {"40"}),
        ("40.0", {"40"}),
    ],
)
def test_cell_rules_on_numbers(text, expected):
    domain = Domain({"-3", "5", "30", "35", "39", "40", "45"})
    assert set(domain.values[domain.cell(text, None)]) == expected


def test_cell_rules_on_text():
    domain = Domain({"45501", "45502", "55503", "Malaysia", "Mali"})
    assert set(domain.values[domain.cell("4550*", None)]) == {"45501", "45502"}
    assert set(domain.values[domain.cell("Ma*", None)]) == {"Malaysia", "Mali"}  # one character matches none: a prefix
    assert set(domain.values[domain.cell("Mal*", None)]) == {"Mali"}
    for bad, reason in (
        ("[100, 200]", "no value of the domain lies"),
        ("{Mars}", "none of its values"),
        ("Mars", "not a value of the domain"),
        ("9*", "matches it"),
    ):
        with pytest.raises(ValueError, match=reason):
            domain.cell(bad, None)


def test_a_cell_no_hierarchy_covers_is_named(files):
    GENERALIZED.assign(ZIP=["4550*", "4550*", "5550*", "5550*", "666**", "666**", "77701", "77701"]).to_csv(files / "k2.csv", index=False)
    with pytest.raises(ReleaseError, match=r"k2\.csv: column 'ZIP', row 5: cell '666\*\*' cannot be read \(no hierarchy entry covers it\)"):
        Release.load(files / "original.csv", [], grouped=generalized(files, hierarchies={"ZIP": files / "zip.csv"}))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: ST[ST["GID"] != 4].to_csv(f / "st.csv", index=False), r"group '4' is only in .*qit\.csv"),
        (
            lambda f: ST.assign(Count=[1, 1, 1, 2, 1, 1, 1, 1]).to_csv(f / "st.csv", index=False),
            r"group '2': .*st\.csv holds 3 sensitive values but .*qit\.csv 2 rows",
        ),
        (lambda f: ST.assign(Count=[1, 1, 1, -1, 1, 1, 1, 1]).to_csv(f / "st.csv", index=False), r"st\.csv: column 'Count', row 4: count '-1'"),
        (lambda f: ST.drop(columns="Dis").to_csv(f / "st.csv", index=False), r"st\.csv: column 'Dis' is missing"),
    ],
)
def test_bad_anatomy_tables_are_named(files, change, message):
    change(files)
    with pytest.raises(ReleaseError, match=message):
        Release.load(files / "original.csv", [], grouped=anatomy(files))


def test_bad_generalized_tables_are_named(files):
    with pytest.raises(ReleaseError, match=r"k2\.csv: column 'Disease' is missing"):
        Release.load(files / "original.csv", [], grouped=generalized(files, sensitive="Disease"))
    with pytest.raises(ReleaseError, match=r"k2\.csv: column 'Age' is missing"):
        Release.load(files / "original.csv", [], grouped=generalized(files, quasi_identifiers=["Nat", "Age"]))
    with pytest.raises(ReleaseError, match=r"group 1 \(in order of appearance\) has 2 rows, fewer than the declared 3"):
        Release.load(files / "original.csv", [], grouped=generalized(files, k=3))
    with pytest.raises(ReleaseError, match=r"has 2 distinct sensitive values, fewer than the declared 3"):
        Release.load(files / "original.csv", [], grouped=generalized(files, l=3))
    ORIGINAL.drop(columns=["ID", "Dis"]).to_csv(files / "original.csv", index=False)
    with pytest.raises(ReleaseError, match=r"original\.csv: column 'Dis' is missing"):
        Release.load(files / "original.csv", [files / "original.csv"], grouped=generalized(files))


def test_hierarchy_entries_cover_their_leaves(files):
    hierarchy = Hierarchy.read(str(files / "zip.csv"), ";", "hierarchies.ZIP")
    assert hierarchy.covers["5550*"] == {f"5550{d}" for d in range(10)} and hierarchy.covers["66601"] == {"66601"}


def write_job(folder, grouped: dict, scenarios: list) -> str:
    job = {"name": "g", "release": {"original": "original.csv", "grouped": grouped}, "scenarios": scenarios, "output": "out"}
    path = folder / "job.yaml"
    path.write_text(yaml.safe_dump(job))
    return path


def test_a_job_with_only_a_grouped_release_loads_and_its_files_are_fingerprinted(files):
    grouped = {"scheme": "generalized", "table": "k2.csv", "sensitive": "Dis", "hierarchies": {"ZIP": "zip.csv"}}
    spec = load_job(write_job(files, grouped, [{"family": "relative_threat", "iterations": 100, "burn_in": 50, "thin": 10}]))
    assert spec.release.label == "k2"
    assert prepare_release(spec).grouped.n_rows == 8
    before = manifest(spec)["fingerprint"]
    (files / "zip.csv").write_text((files / "zip.csv").read_text().replace("66601;66601", "66601;666**"))
    assert manifest(spec)["fingerprint"] != before


@pytest.mark.parametrize(
    ("grouped", "message"),
    [
        ({"scheme": "anatomy", "table": "qit.csv", "sensitive": "Dis"}, "an anatomy release needs sensitive_table and group"),
        ({"scheme": "generalized", "table": "k2.csv", "sensitive_table": "st.csv", "sensitive": "Dis"}, "sensitive_table is for anatomy releases"),
        ({"scheme": "generalized", "table": "missing.csv", "sensitive": "Dis"}, r"release\.grouped\.table"),
    ],
)
def test_bad_grouped_specs_are_refused_at_load(files, grouped, message):
    with pytest.raises((JobSpecError, ReleaseError), match=message):
        check_files(load_job(write_job(files, grouped, [{"family": "relative_threat"}])))


def test_a_release_needs_something_released(files):
    (files / "job.yaml").write_text(yaml.safe_dump({"name": "g", "release": {"original": "original.csv"}, "scenarios": [{"family": "relative_threat"}]}))
    with pytest.raises(JobSpecError, match="a release needs anonymized tables or a grouped"):
        load_job(files / "job.yaml")


def test_best_row_match_says_it_cannot_read_a_grouped_release(files):
    from alc_dask import run_attack

    release = Release.load(files / "original.csv", [], grouped=generalized(files))
    with pytest.raises(ScenarioError, match="attacked by bayesian_group"):
        run_attack(release, "Dis", ["Nat", "ZIP"], baseline="prior", seed=0)
    assert np.array_equal(release.grouped.original_sensitive, release.grouped.sensitive_codes)
