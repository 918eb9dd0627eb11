"""The inputs a hostile or hurried user gives ``check``, ``evaluate`` and job files, each refused in
one line naming what they wrote (one test per defect found)."""

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

import alc_dask
from alc_dask.apps import check
from alc_dask.apps.synthetic import make_demo_release
from alc_dask.cli import main
from alc_dask.cli_exit_codes import EXIT_BAD_INPUT
from alc_dask.data.errors import ReleaseError
from alc_dask.errors import OptionError
from alc_dask.families.membership.family import MembershipParams
from alc_dask.families.privacy_models.family import PrivacyModelsParams
from alc_dask.jobs import job_model
from alc_dask.jobs.spec import GeneratorSpec


@pytest.fixture(scope="module")
def tables():
    return make_demo_release(400, 0)


@pytest.mark.parametrize(
    ("model", "values", "field"),
    [
        (GeneratorSpec, {"name": "mst", "epsilon": True}, "epsilon"),
        (PrivacyModelsParams, {"declared_k": True}, "declared_k"),
        (MembershipParams, {"n_members": True}, "n_members"),
    ],
)
def test_yaml_true_is_not_a_number(model, values, field):
    """``epsilon: true``, ``declared_k: true`` and ``seed: true`` were accepted as 1."""
    with pytest.raises(ValidationError, match=rf"{field}\n  Value error, true is not a number"):
        model.model_validate(values)


def test_a_jobs_seed_of_true_is_refused():
    job = {
        "name": "j",
        "release": {"original": "o.parquet", "anonymized": ["a.parquet"]},
        "scenarios": [{"secret": "s", "known": ["k"]}],
        "seed": True,
        "output": "o",
    }
    with pytest.raises(ValidationError, match=r"seed\n  Value error, true is not a number"):
        job_model().model_validate(job)
    assert job_model().model_validate(job | {"seed": 1}).seed == 1


def test_a_control_table_of_one_row_is_refused_naming_it(tables):
    """A 1-row control reached a linkability scenario: "scenarios[6] (linkability): n_neighbors: 10
    is more than the 1 rows", an internal scenario the user never wrote."""
    with pytest.raises(ReleaseError, match=r"the control table \(a DataFrame\): 1 rows are too few for any evaluation: the control table needs at least 10"):
        check.read_inputs(tables["original"], tables["weak"], tables["control"].iloc[:1])


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"original": {"age": [1, 2]}}, "original: expected a path to a Parquet or CSV file (or a folder of parts) or a pandas DataFrame; got dict"),
        ({"workers": 0}, "workers: must be a whole number of at least 1; got 0"),
        ({"families": []}, "families: name at least one family in a list"),
        ({"families": "alc"}, "families: name at least one family in a list"),
        ({"seed": -1}, "seed: must be a whole number of at least 0; got -1"),
    ],
)
def test_evaluate_names_the_parameter_it_cannot_take(tables, monkeypatch, arguments, message):
    """A dict as the original gave a bare TypeError, workers=0 was accepted, families=[] said
    "scenarios: List should have at least 1 item"."""
    monkeypatch.setattr("alc_dask.engine.connect", lambda *a, **k: pytest.fail("a cluster was started"))
    given = {"original": tables["original"], "release": tables["weak"]} | arguments
    with pytest.raises(OptionError) as raised:
        alc_dask.evaluate(**given)
    assert str(raised.value).startswith(message)


def test_a_named_index_is_not_dropped_unseen(tables):
    """A DataFrame's index (person ids) was dropped silently; a named one is now refused with the fix."""
    with pytest.raises(OptionError, match=r"original: the DataFrame's index 'person' would not be evaluated; make it a column with \.reset_index\(\)"):
        check.read_inputs(tables["original"].rename_axis("person"), tables["weak"])
    filtered = tables["original"].iloc[::2]  # an unnamed index with gaps: rows filtered, nothing to evaluate
    assert len(check.read_inputs(filtered, tables["weak"]).original) == len(filtered)


def test_two_releases_checked_without_choosing_a_folder_each_get_their_own(tables, tmp_path, monkeypatch):
    """``check o r1`` then ``check o r2`` into the default folder exited 2: "changed: release.anonymized, release.name"."""
    outputs = []

    def run_check(inputs, output, seed, **options):
        outputs.append(output)
        raise SystemExit(0)

    monkeypatch.setattr(check, "run_check", run_check)
    monkeypatch.chdir(tmp_path)
    for name in ("original", "weak", "strong"):
        tables[name].to_parquet(tmp_path / f"{name}.parquet", index=False)
    for release in ("weak", "strong"):
        CliRunner().invoke(main, ["check", "original.parquet", f"{release}.parquet"])
    assert [str(output) for output in outputs] == ["alc-out/check/weak", "alc-out/check/strong"]


def test_check_refuses_yaml_like_booleans_in_types(tables, tmp_path):
    for name in ("original", "weak"):
        tables[name].to_parquet(tmp_path / f"{name}.parquet", index=False)
    result = CliRunner().invoke(main, ["check", str(tmp_path / "original.parquet"), str(tmp_path / "weak.parquet"), "--types", "age=true"])
    assert result.exit_code == EXIT_BAD_INPUT and "types: age='true': a column's kind is one of" in result.output


def test_the_advice_of_a_busy_folder_names_options_check_has():
    """Two checks into one folder advised "(--wait) … (--out)", options check lacked."""
    import inspect
    import re

    from alc_dask.apps.check_command import check as check_command
    from alc_dask.results import lease

    advice = re.findall(r"\(--([a-z-]+)\)", inspect.getsource(lease.FolderLease.acquire))
    options = {name.lstrip("-") for parameter in check_command.params for name in parameter.opts}
    assert advice == ["wait", "out"] and set(advice) <= options
