"""Every registered family keeps the family contract, each named check its own test
(``alc_dask.testing.family_checks``), as scikit-learn's ``parametrize_with_checks`` runs every
estimator through its checks; so does the plugin example, installed as a user installs it; and a
family breaking part of the contract fails exactly the checks of that part."""

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from test_family_plugins import PLUGIN_FAMILY, install, on_path

from alc_dask.families import CheckExamples, Evaluation, EvaluationFamily, FamilyParams, family_names, get_family
from alc_dask.testing import ContractError, check_family, demo_columns, family_checks
from alc_dask.testing.contract import check_declarations, examples_of, registered
from alc_dask.testing.demo import write_demo, write_job
from alc_dask.testing.leak import check_copy_worse_than_fresh, check_exposure
from alc_dask.testing.planning import check_measures, pickled_by_value, planned
from alc_dask.testing.values import same

IN_THE_DEFAULT_RUN = "disclosure"
"""The one family whose checks on a cluster the default run makes (10-50 s a family on two busy
cores); the others' run with ``-m long``. Every family's checks without a cluster are in the default run."""


def named_checks() -> list:
    params = []
    for name in family_names():
        for check in family_checks(name):
            slow = check.needs_cluster and name != IN_THE_DEFAULT_RUN
            params.append(pytest.param(check, id=check.id, marks=pytest.mark.long if slow else ()))
    return params


@pytest.mark.parametrize("check", named_checks())
def test_every_registered_family_keeps_the_contract(check):
    check()


@pytest.mark.long
def test_check_family_runs_every_check_and_returns_what_it_ran(tmp_path):
    check = check_family(IN_THE_DEFAULT_RUN, tmp_path)
    assert check.scenarios >= 1 and set(check.scores["family"]) == {IN_THE_DEFAULT_RUN}
    assert list(check.seconds) == [c.name for c in family_checks(IN_THE_DEFAULT_RUN)]


class Declared(EvaluationFamily):
    """A family whose declarations keep the contract."""

    name = "declared"
    Params = FamilyParams
    fields = (pa.field("score", pa.float64()), pa.field("risk", pa.string()))
    headline = "score"


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        ({"headline": "scroe"}, "family 'declared', headline: headline 'scroe' is not one of the fields ['score', 'risk']"),
        ({"fields": (pa.field("score", pa.string()), pa.field("risk", pa.string()))}, "headline: headline 'score' must be a number"),
        ({"fields": (pa.field("risk", pa.string()), pa.field("risk", pa.string()))}, "fields: fields names ['risk'] more than once"),
        ({"run_dependent": frozenset({"score"})}, "run_dependent: the headline must not depend on where a run ran"),
        ({"Params": dict}, "Params: Params must be a subclass of alc_dask.families.FamilyParams"),
    ],
)
def test_declarations_breaking_the_contract_are_named(attributes, message):
    check_declarations(Declared)
    with pytest.raises(ContractError, match=re.escape(message)):
        check_declarations(type("Broken", (Declared,), attributes))


class Examined(Declared):
    """A family keeping its declarations, with entries that plan on the demo release."""

    name = "examined"

    @classmethod
    def check_examples(cls, columns):
        return CheckExamples([{}])

    def evaluate(self, release, seed):
        return Evaluation({"score": 0.5, "risk": "safe"})


class RunDependentHeadline(Examined):
    """Breaks the declarations: its headline may differ between runs."""

    run_dependent = frozenset({"score"})


class WritingMore(Examined):
    """Breaks the evaluations: a measure it does not declare."""

    def evaluate(self, release, seed):
        return Evaluation({"score": 0.5, "risk": "safe", "extra": 1})


@pytest.fixture
def installed_as_examined(monkeypatch):
    """Installs a class of this module as the family ``examined`` in this process (planning finds it; workers would not)."""
    from alc_dask.families import registry
    from alc_dask.jobs.spec import job_model

    def install(cls):
        real = registry.installed
        monkeypatch.setattr(registry, "installed", lambda group: {**real(group), "examined": f"{__name__}:{cls.__name__}"})
        job_model.cache_clear()
        return cls

    yield install
    job_model.cache_clear()


def _failed_off_the_cluster(family) -> set[str]:
    failed = set()
    for check in family_checks(family):
        if not check.needs_cluster:
            try:
                check()
            except ContractError:
                failed.add(check.name)
    return failed


@pytest.mark.parametrize(("family", "failing"), [(Examined, set()), (RunDependentHeadline, {"declarations"}), (WritingMore, {"evaluate here"})])
def test_a_family_breaking_one_part_of_the_contract_fails_exactly_its_checks(installed_as_examined, family, failing):
    assert _failed_off_the_cluster(installed_as_examined(family)) == failing


def test_a_class_not_installed_is_told_why_its_checks_cannot_plan():
    with pytest.raises(ContractError, match=re.escape("registration: a job finds a family by its entry point")):
        [check() for check in family_checks(Examined) if check.name == "plan"]


def test_check_family_reports_every_check_that_fails_not_the_first_alone():
    with pytest.raises(ContractError) as error:
        check_family(RunDependentHeadline)
    message = str(error.value)
    every_check = ", ".join(check.name for check in family_checks(RunDependentHeadline))
    assert message.startswith(f"family 'examined', {every_check}: declarations: run_dependent: the headline must not depend")
    assert "| plan: registration: a job finds a family by its entry point" in message  # not installed: said by every check that needs it


def test_a_family_without_check_examples_is_told_what_to_write():
    with pytest.raises(ContractError) as error:
        examples_of(Declared, demo_columns())
    assert str(error.value).startswith(
        "family 'declared', check_examples: Declared.check_examples(columns) is not written: return alc_dask.families.CheckExamples(entries=[...])"
    )
    assert "age, sex, region" in str(error.value)


def test_a_family_labels_on_its_own_scale_with_no_risk_field_required():
    """The verdict labels every family from its headline's interval and threshold: no ALC band imposed."""
    check_declarations(type("OwnScale", (Declared,), {"fields": (pa.field("score", pa.float64()),)}))
    check_measures(type("OwnScale", (Declared,), {"fields": (pa.field("score", pa.float64()),)}), "s-1", {"score": 0.5})


def test_measures_undeclared_or_of_another_type_are_named():
    check_measures(Declared, "s-1", {"score": 0.5, "risk": "safe"})
    for row, message in [
        ({"score": 0.5, "risk": "safe", "extra": 1}, "measures: scenario s-1 wrote ['extra'], which are not among the family's fields"),
        ({"score": "high", "risk": "safe"}, "measures: scenario s-1: score = 'high' is not double as declared"),
    ]:
        with pytest.raises(ContractError, match=re.escape(message)):
            check_measures(Declared, "s-1", row)


def scores(headlines: list[float], risks: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"status": "ok", "score": headlines, "risk": risks}, index=pd.Index(["a", "b"], name="scenario_id"))


def test_a_copy_scored_no_worse_than_a_fresh_sample_breaks_the_first_rule():
    check_copy_worse_than_fresh(Declared, scores([0.9, 0.6], ["serious", "at risk"]), scores([0.1, -0.2], ["safe", "no loss"]))
    with pytest.raises(
        ContractError, match=re.escape("must score higher on 'score' than a fresh sample of the same population: ['b: copy 0.1, fresh sample 0.1']")
    ):
        check_copy_worse_than_fresh(Declared, scores([0.9, 0.1], ["serious", "safe"]), scores([0.1, 0.1], ["safe", "safe"]))


def test_exposure_naming_values_or_rows_outside_the_original_breaks_the_contract():
    original = pd.DataFrame({"region": ["north", "south", "east"], "age": [31.0, 44.0, 58.0]})
    ok = pd.DataFrame({"scenario_id": ["a"], "status": ["ok"]})

    def exposing(records: list, evidence: str) -> type[EvaluationFamily]:
        return type("Exposing", (Declared,), {"exposed": classmethod(lambda cls, predictions, row: pd.DataFrame({"record": records, "evidence": evidence}))})

    check_exposure(exposing([0, 2], "found to be a member"), ok, pd.DataFrame({"scenario_id": []}), original)
    with pytest.raises(ContractError, match=re.escape("evidence shows values of the original: {'region inferred: south': ['south']}")):
        check_exposure(exposing([1], "region inferred: south"), ok, pd.DataFrame({"scenario_id": []}), original)
    with pytest.raises(ContractError, match=re.escape("evidence shows values of the original: {'aged 44': ['44']}")):
        check_exposure(exposing([1], "aged 44"), ok, pd.DataFrame({"scenario_id": []}), original)
    with pytest.raises(ContractError, match=re.escape("records must be distinct rows of the original (0 to 2)")):
        check_exposure(exposing([1, 3], "linked"), ok, pd.DataFrame({"scenario_id": []}), original)


def test_entries_that_do_not_plan_on_the_demo_release_are_named(tmp_path):
    demo = write_demo(tmp_path, "tables")
    job = write_job(tmp_path, "typo", demo.checked, [{"family": "linkability", "aux_cols": [["agee"], ["sex"]]}], {}, seed=0)
    with pytest.raises(ContractError, match=re.escape("family 'linkability', check_examples: the entries do not plan on the demo release:")) as error:
        planned(get_family("linkability"), job)
    assert "aux_cols[0]: 'agee' is not a column of the release" in str(error.value)


def test_evaluations_that_pickle_only_by_value_are_named():
    from pydantic import create_model

    hidden = create_model("NotItsName", x=(int, 0))  # this module has no attribute of that name
    assert "NotItsName" in pickled_by_value([hidden()])
    assert pickled_by_value([get_family("singling_out")(mode="univariate")]) is None


def test_a_check_refuses_a_folder_holding_files(tmp_path):
    (tmp_path / "results").mkdir()
    with pytest.raises(ValueError, match="not empty; check_family writes its releases and results in a folder of its own"):
        check_family("singling_out", tmp_path)
    with pytest.raises(ValueError, match="not empty"):
        next(family_checks("singling_out", tmp_path))


def test_an_unregistered_name_is_refused_naming_the_known_families():
    with pytest.raises(
        ContractError, match=re.escape("family 'exact_copy', registration: no entry point of the group alc_dask.families is named 'exact_copy'")
    ):
        registered("exact_copy")


def test_values_are_the_same_only_when_missing_on_both_sides_or_equal_element_by_element():
    assert same(float("nan"), None) and same(pd.NA, np.nan)
    assert same([1.0, {"a": [2, 3]}], np.array([1.0, {"a": np.array([2, 3])}], dtype=object))
    assert not same(0.1 + 0.2, 0.3) and not same([1, 2], [1, 2, 3]) and not same(None, 0.0)


BLIND = '''
"""A family that finds every release safe: it breaks the first rule."""

import pyarrow as pa

from alc_dask.families import CheckExamples, Evaluation, EvaluationFamily, FamilyParams


class Blind(EvaluationFamily):
    name = "blind"
    Params = FamilyParams
    fields = (pa.field("blind_score", pa.float64()), pa.field("risk", pa.string()))
    headline = "blind_score"

    @classmethod
    def check_examples(cls, columns):
        return CheckExamples([{}])

    def evaluate(self, release, seed):
        return Evaluation({"blind_score": 0.0, "risk": "no loss"})
'''

BLIND_PROJECT = """
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "blind-family"
version = "0.1.0"

[project.entry-points."alc_dask.families"]
blind = "blind_family:Blind"

[tool.setuptools]
py-modules = ["blind_family"]
"""

CHECK = """
import sys

from alc_dask.testing import check_family

if __name__ == "__main__":
    print(check_family(sys.argv[1], sys.argv[2]))
"""


@pytest.fixture(scope="module")
def plugins_site(tmp_path_factory) -> Path:
    """The plugin example and the blind family, installed with pip as users install packages."""
    blind = tmp_path_factory.mktemp("blind-family")
    (blind / "blind_family.py").write_text(textwrap.dedent(BLIND).lstrip())
    (blind / "pyproject.toml").write_text(BLIND_PROJECT.lstrip())
    return install(tmp_path_factory.mktemp("site"), PLUGIN_FAMILY, blind)


@pytest.mark.long
def test_the_plugin_example_installed_passes_its_own_tests_and_the_contract(plugins_site, tmp_path):
    environment = {**os.environ, "PYTHONPATH": on_path(plugins_site)}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(PLUGIN_FAMILY / "tests")]
    run = subprocess.run(command, cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "11 passed" in run.stdout  # its own three tests, and the contract's eight checks


@pytest.mark.long
def test_a_family_finding_every_release_safe_fails_the_check_on_the_first_rule(plugins_site, tmp_path):
    (tmp_path / "check.py").write_text(CHECK)
    environment = {**os.environ, "PYTHONPATH": on_path(plugins_site)}
    run = subprocess.run([sys.executable, "check.py", "blind", "out"], cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=600)
    assert run.returncode != 0
    assert (
        "ContractError: family 'blind', copy against fresh: copy against fresh sample: "
        "a release copying the original must score higher on 'blind_score' "
        "than a fresh sample of the same population"
    ) in run.stderr
