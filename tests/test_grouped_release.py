"""Group-anonymized releases from files: Table I of Boreale et al. 2020 as a generalized table (with
and without a hierarchy) and as Anatomy's two tables, the cell rules, and bad input named before any work."""

import re

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from alc_dask.cli import EXIT_BAD_INPUT, main
from alc_dask.data import Release, ReleaseError, ScenarioError
from alc_dask.data.generalization import Domain, Hierarchy
from alc_dask.engine.runner import manifest, prepare_release
from alc_dask.errors import JobSpecError
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
    assert [sorted(cell(grouped, row, "Nat")) for row in range(8)] == [
        ["Japan", "Malaysia"],
        ["Japan", "Malaysia"],
        ["Japan"],
        ["Japan"],
        ["China", "Japan"],
        ["China", "Japan"],
        ["India", "Malaysia"],
        ["India", "Malaysia"],
    ]
    assert [len(cell(grouped, row, "ZIP")) for row in range(8)] == [10, 10, 10, 10, 1, 1, 1, 1]
    decoded = [(grouped.domains[0][n], grouped.domains[1][z]) for n, z in grouped.original_qi]
    assert decoded == list(zip(ORIGINAL["Nat"], ORIGINAL["ZIP"].astype(str)))
    assert list(grouped.sensitive_values[grouped.original_sensitive]) == ORIGINAL["Dis"].tolist()
    for a in range(2):  # CSR of the distinct cells: one id per cell, codes sorted within it
        assert grouped.cell_offsets[a].dtype == np.int64 and grouped.cell_values[a].dtype == np.int32
        assert len(grouped.cell_offsets[a]) == len(np.unique(grouped.qi[:, a])) + 1
        for c in range(len(grouped.cell_offsets[a]) - 1):
            codes = grouped.cell_values[a][grouped.cell_offsets[a][c] : grouped.cell_offsets[a][c + 1]]
            assert np.all(np.diff(codes) > 0)
    assert all(array.flags.c_contiguous for array in (grouped.qi, grouped.original_qi, grouped.sensitive_codes, grouped.group_offsets))
    assert grouped.qi.dtype == grouped.original_qi.dtype == grouped.sensitive_codes.dtype == np.int32 and grouped.group_offsets.dtype == np.int64


def test_rows_are_sorted_by_group_in_order_of_first_appearance(files):
    shuffled = [6, 2, 0, 7, 3, 1, 4, 5]
    GENERALIZED.iloc[shuffled].to_csv(files / "k2.csv", index=False)
    grouped = Release.load(files / "original.csv", [], grouped=generalized(files)).grouped
    assert grouped.group_offsets.tolist() == [0, 2, 4, 6, 8]
    rows = [6, 7, 2, 3, 0, 1, 4, 5]  # group of row 7 (India/Malaysia) first, then Japan's, ...
    assert list(grouped.sensitive_values[grouped.sensitive_codes]) == ORIGINAL["Dis"].iloc[rows].tolist()
    GENERALIZED.assign(G=["b", "b", "a", "a", "b", "b", "c", "c"]).to_csv(files / "k2.csv", index=False)
    grouped = Release.load(files / "original.csv", [], grouped=generalized(files, group="G")).grouped
    assert grouped.group_offsets.tolist() == [0, 4, 6, 8]  # group b: rows 1, 2, 5, 6 (its cells may differ)
    assert list(grouped.sensitive_values[grouped.sensitive_codes]) == ORIGINAL["Dis"].iloc[[0, 1, 4, 5, 2, 3, 6, 7]].tolist()


def test_a_control_table_is_encoded_in_the_same_codes(files):
    control = pd.DataFrame({"Nat": ["Japan", "Peru"], "ZIP": [45509, 45501], "Dis": ["Flu", "Flu"]})
    control.to_csv(files / "control.csv", index=False)
    grouped = Release.load(
        files / "original.csv", [], control=files / "control.csv", grouped=generalized(files, hierarchies={"ZIP": files / "zip.csv"})
    ).grouped
    japan, zip_45509 = list(grouped.domains[0]).index("Japan"), list(grouped.domains[1]).index("45509")
    assert grouped.control_qi.tolist() == [[japan, zip_45509], [-1, list(grouped.domains[1]).index("45501")]]  # Peru: outside the domain


def test_table_i_c_reads_as_anatomy(files):
    grouped = Release.load(files / "original.csv", [], grouped=anatomy(files)).grouped
    assert grouped.scheme == "anatomy" and grouped.cell_offsets == ()
    assert grouped.group_offsets.tolist() == [0, 2, 4, 6, 8]
    nations = grouped.domains[0][grouped.qi[:, 0]].tolist()
    assert nations == QIT["Nat"].tolist()
    assert list(grouped.sensitive_values[grouped.sensitive_codes]) == ST["Dis"].tolist()


def test_anatomy_groups_follow_the_quasi_identifier_table(files):
    QIT.iloc[[4, 5, 0, 1, 2, 3, 6, 7]].to_csv(files / "qit.csv", index=False)
    ST.iloc[::-1].to_csv(files / "st.csv", index=False)
    grouped = Release.load(files / "original.csv", [], grouped=anatomy(files)).grouped
    assert grouped.group_offsets.tolist() == [0, 2, 4, 6, 8]
    assert list(grouped.domains[0][grouped.qi[:, 0]]) == ["Japan", "China", "Japan", "Malaysia", "Japan", "Japan", "Malaysia", "India"]
    by_group = list(grouped.sensitive_values[grouped.sensitive_codes])
    assert by_group == ["Diabetes", "HIV", "Flu", "Heart", "Stomach", "Flu", "Heart", "Flu"]  # group 3, 1, 2, 4; the sensitive table's order within
    assert grouped.original_qi.shape == (8, 2) and (grouped.original_qi >= 0).all()


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
        ("[-5--3]", {"-3"}),
        ("]30, 40]", {"35", "39", "40"}),
        ("[29.5, 35.0]", {"30", "35"}),
        (">=40", {"40", "45"}),
        ("<5", {"-3"}),
        ("<= 5", {"-3", "5"}),
        ("> 40", {"45"}),
        ("{5, 45}", {"5", "45"}),
        ("{5,45.0}", {"5", "45"}),
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
        ("{Mars}", "its member 'Mars' is not a value of the domain"),
        ("{Malaysia, Mars}", "its member 'Mars'"),
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
        (lambda f: ST.assign(Count=[1, 1.5, 1, 1, 1, 1, 1, 1]).to_csv(f / "st.csv", index=False), r"st\.csv: column 'Count', row 2: count '1\.5'"),
        (lambda f: ST.assign(Count=[1, 1, 1, 1, "x", 1, 1, 1]).to_csv(f / "st.csv", index=False), r"st\.csv: column 'Count', row 5: count 'x'"),
        (lambda f: ST.assign(Count=[1, 1, 2, 0, 1, 1, 1, 1]).to_csv(f / "st.csv", index=False), None),  # 2 Flu, 0 Stomach: still 2 rows
        (lambda f: QIT[QIT["GID"] != 2].to_csv(f / "qit.csv", index=False), r"group '2' is only in .*st\.csv"),
        (lambda f: QIT.assign(GID=[1, 1, 2, None, 3, 3, 4, 4]).to_csv(f / "qit.csv", index=False), r"qit\.csv: column 'GID', row 4: a missing group id"),
        (lambda f: QIT.assign(Nat=["Japan", None, *QIT["Nat"][2:]]).to_csv(f / "qit.csv", index=False), r"qit\.csv: column 'Nat', row 2: a missing quasi"),
        (lambda f: ST.assign(Dis=[None, *ST["Dis"][1:]]).to_csv(f / "st.csv", index=False), r"st\.csv: column 'Dis', row 1: a missing sensitive value"),
    ],
)
def test_bad_anatomy_tables_are_named(files, change, message):
    change(files)
    if message is None:
        Release.load(files / "original.csv", [], grouped=anatomy(files))
        return
    with pytest.raises(ReleaseError, match=message):
        Release.load(files / "original.csv", [], grouped=anatomy(files))


def test_declared_k_and_l_are_checked_per_anatomy_group(files):
    ST.assign(Dis=["Flu", "Flu", *ST["Dis"][2:]]).to_csv(files / "st.csv", index=False)
    with pytest.raises(ReleaseError, match=r"qit\.csv: group '1' has 1 distinct sensitive values, fewer than the declared l = 2"):
        Release.load(files / "original.csv", [], grouped=anatomy(files, l=2))
    with pytest.raises(ReleaseError, match=r"qit\.csv: group '1' has 2 rows, fewer than the declared k = 3"):
        Release.load(files / "original.csv", [], grouped=anatomy(files, k=3))


def test_bad_generalized_tables_are_named(files):
    with pytest.raises(ReleaseError, match=r"k2\.csv: column 'Disease' is missing"):
        Release.load(files / "original.csv", [], grouped=generalized(files, sensitive="Disease"))
    with pytest.raises(ReleaseError, match=r"k2\.csv: column 'Age' is missing"):
        Release.load(files / "original.csv", [], grouped=generalized(files, quasi_identifiers=["Nat", "Age"]))
    with pytest.raises(ReleaseError, match=r"k2\.csv: the group of row 1 has 2 rows, fewer than the declared k = 3"):
        Release.load(files / "original.csv", [], grouped=generalized(files, k=3))
    with pytest.raises(ReleaseError, match=r"k2\.csv: the group of row 1 has 2 distinct sensitive values, fewer than the declared l = 3"):
        Release.load(files / "original.csv", [], grouped=generalized(files, l=3))
    with pytest.raises(
        ReleaseError, match=r"k2\.csv: column 'ZIP', row 3: cell '\[100, 200\]' cannot be read \(no value of the domain lies in this interval\)"
    ):
        GENERALIZED.assign(ZIP=["4550*", "4550*", "[100, 200]", "[100, 200]", *GENERALIZED["ZIP"][4:]]).to_csv(files / "k2.csv", index=False)
        Release.load(files / "original.csv", [], grouped=generalized(files))
    with pytest.raises(ReleaseError, match=r"k2\.csv: column 'Nat', row 7: cell '\{India, Peru\}' cannot be read \(its member 'Peru'"):
        GENERALIZED.assign(Nat=[*GENERALIZED["Nat"][:6], "{India, Peru}", "{India, Peru}"]).to_csv(files / "k2.csv", index=False)
        Release.load(files / "original.csv", [], grouped=generalized(files))
    with pytest.raises(ReleaseError, match=r"k2\.csv: column 'Nat', row 1: cell '' cannot be read \(it is empty\)"):
        GENERALIZED.assign(Nat=[None, *GENERALIZED["Nat"][1:]]).to_csv(files / "k2.csv", index=False)
        Release.load(files / "original.csv", [], grouped=generalized(files))
    GENERALIZED.assign(Age=30).to_csv(files / "k2.csv", index=False)
    with pytest.raises(ReleaseError, match=r"original\.csv: column 'Age' is missing"):
        Release.load(files / "original.csv", [], grouped=generalized(files))
    GENERALIZED.to_csv(files / "k2.csv", index=False)
    ORIGINAL.drop(columns=["ID", "Dis"]).to_csv(files / "original.csv", index=False)
    with pytest.raises(ReleaseError, match=r"original\.csv: column 'Dis' is missing"):
        Release.load(files / "original.csv", [files / "original.csv"], grouped=generalized(files))


def test_numbers_written_otherwise_are_one_value():
    domain = Domain.joined(["37", "40"], ["37.0", "38", "040"])
    assert domain.values.tolist() == ["37", "38", "40"] and domain.codes(["37.0", None, "41"]).tolist() == [0, -1, -1]


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
        (
            {"scheme": "generalized", "table": "k2.csv", "sensitive": "Dis", "hierarchies": {"ZIP": "nope.csv"}},
            r"release\.grouped\.hierarchies\.ZIP: .*nope\.csv",
        ),
        ({"scheme": "generalized", "table": "k2.csv", "sensitive": "Dis", "count": "n"}, "count is for anatomy releases"),
        ({"scheme": "generalized", "table": "k2.csv", "sensitive": "Dis", "k": 0}, r"grouped\.k: Input should be greater than or equal to 1"),
        ({"scheme": "generalized", "table": "k2.csv", "sensitive": "Dis", "hierarchy_delimiter": ";;"}, r"grouped\.hierarchy_delimiter"),
    ],
)
def test_bad_grouped_specs_are_refused_at_load(files, grouped, message):
    with pytest.raises((JobSpecError, ReleaseError), match=message):
        check_files(load_job(write_job(files, grouped, [{"family": "relative_threat"}])))


def test_a_hierarchy_file_is_checked_as_a_file_not_as_a_table(files):
    (files / "age.txt").write_text("5;[0, 10[;[0, 10[;*\n15;[10, 20[;[10, 20[;*\n")  # read as a CSV table, its header would repeat " 10[" twice
    grouped = {"scheme": "generalized", "table": "k2.csv", "sensitive": "Dis", "hierarchies": {"ZIP": "zip.csv", "Nat": "age.txt"}}
    spec = load_job(write_job(files, grouped, [{"family": "relative_threat"}]))
    check_files(spec)
    assert [field for field, _ in spec.release.files()] == [
        "release.original",
        "release.grouped.table",
        "release.grouped.hierarchies.Nat",  # the job file's order (safe_dump sorts keys)
        "release.grouped.hierarchies.ZIP",
    ]
    assert all(path.startswith(str(files)) for _, path in spec.release.files())  # relative to the job file


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


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        ({"secret": "Dis", "known": ["Nat"]}, r"scenarios\[0\]: bayesian_group: known must be the release's quasi-identifiers \['Nat', 'ZIP'\]; got \['Nat'\]"),
        ({"secret": "Nat", "known": ["ZIP"]}, r"scenarios\[0\]: bayesian_group: secret 'Nat' is not the release's sensitive column 'Dis'"),
        (
            {"generate": "each_column", "secrets": ["ZIP"]},
            r"scenarios\[0\] \(each_column, secret 'ZIP'\): bayesian_group: secret 'ZIP' is not the release's sensitive column",
        ),
    ],
)
def test_plan_refuses_a_bayesian_group_scenario_the_grouped_table_does_not_fit(files, scenario, message):
    grouped = {"scheme": "generalized", "table": "k2.csv", "sensitive": "Dis", "hierarchies": {"ZIP": "zip.csv"}}
    job = write_job(files, grouped, [{**scenario, "attack": {"name": "bayesian_group"}} if "secret" in scenario else scenario])
    if "generate" in scenario:
        job.write_text(job.read_text() + "attacks: [bayesian_group]\n")
    result = CliRunner().invoke(main, ["plan", str(job)])
    assert result.exit_code == EXIT_BAD_INPUT, result.output
    assert re.search(message, result.output), result.output


def test_a_hierarchy_that_misses_values_of_the_original_is_refused_before_any_work(files):
    """Without 45501 and 55503 among its leaves, no cell covers those two people: the attack would
    have read them as absent from the release (the relative threat of a probe fell from 0.135 to 0.008)."""
    rows = [line for line in (files / "zip.csv").read_text().splitlines() if not line.startswith(("45501", "55503"))]
    (files / "zip.csv").write_text("\n".join(rows) + "\n")
    job = write_job(files, generalized(files, hierarchies={"ZIP": "zip.csv"}) | {"table": "k2.csv"}, [{"family": "relative_threat"}])
    for command in ("plan", "run"):
        result = CliRunner().invoke(main, [command, str(job)])
        assert result.exit_code == EXIT_BAD_INPUT, result.output
        expected = f"{files / 'zip.csv'}: the hierarchy of column 'ZIP' does not cover 2 values of {files / 'original.csv'}, e.g. '45501' (row 1)"
        assert expected in result.output, result.output
    assert not (files / "out" / "scores").exists() or not list((files / "out" / "scores").iterdir())


def test_a_hierarchy_that_misses_a_value_of_an_anatomy_table_is_refused(files):
    QIT.assign(ZIP=QIT["ZIP"].replace(77701, 88801)).to_csv(files / "qit.csv", index=False)
    with pytest.raises(ReleaseError, match=r"zip\.csv: the hierarchy of column 'ZIP' does not cover value '88801' \(row 7\) of .*qit\.csv"):
        Release.load(files / "original.csv", [], grouped=anatomy(files, hierarchies={"ZIP": files / "zip.csv"}))


def test_a_bad_anatomy_count_in_parquet_is_shown_as_written(files):
    ST.assign(Count=[1, 1, 1, 1, 1, 1, 1, -3]).to_parquet(files / "st.parquet")
    job = write_job(files, anatomy(files) | {"table": "qit.csv", "sensitive_table": "st.parquet"}, [{"family": "relative_threat"}])
    result = CliRunner().invoke(main, ["plan", str(job)])
    assert result.exit_code == EXIT_BAD_INPUT
    assert f"{files / 'st.parquet'}: column 'Count', row 8: count -3 is not a whole number of 0 or more" in result.output, result.output
