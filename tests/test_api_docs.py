"""The public API's docstrings: every public function and class has a numpydoc docstring with an
Examples section, and every example runs as a doctest, as a user would paste it (nothing imported
beforehand, in an empty folder). The examples that start a Dask cluster are marked long, like the
tests that do."""

import doctest
import importlib
import inspect
import shutil

import pytest

from alc_dask.attacks import registry

# The public API: what ``alc_dask`` and its subpackages export, and the modules the README has users
# import; None stands for the module's whole ``__all__`` (or every public name it defines).
API = {
    "alc_dask": None,
    "alc_dask.measure": None,
    "alc_dask.attacks": None,
    "alc_dask.errors": None,
    "alc_dask.anonymize": None,
    "alc_dask.families": ("CheckExamples", "Evaluation", "EvaluationFamily", "FamilyParams", "HeadlineInterval", "column", "family_names", "get_family"),
    "alc_dask.results": ("read_scores", "read_predictions"),
    "alc_dask.testing": ("check_family", "family_checks", "parametrize_with_checks", "NamedCheck", "FamilyCheck", "ContractError", "demo_columns"),
    "alc_dask.testing.truth": ("truth_releases", "TruthReleases"),
    "alc_dask.measure.pitman_yor": ("PitmanYor",),
    "alc_dask.measure.scaling_fits": ("Fit", "fit_correctness", "fit_profile", "fit_baselines"),
    "alc_dask.verdict": ("Verdict", "verdict_of", "read_verdict"),
    "alc_dask.report.exposure": ("exposure_of", "exposure_of_results"),
    "alc_dask.report.history": ("audit_history",),
}

RUN_JOB = "alc_dask.engine.runner.run_job"
# Examples that read ``results``, the output folder of run_job's example (run once, copied to each).
ON_RESULTS = frozenset(
    {
        "alc_dask.report.exposure.exposure_of",
        "alc_dask.report.exposure.exposure_of_results",
        "alc_dask.verdict.Verdict",
        "alc_dask.verdict.read_verdict",
        "alc_dask.verdict.verdict_of",
        "alc_dask.results.read_predictions",
        "alc_dask.results.read_scores",
    }
)
# Examples that start a Dask cluster (seconds each), or read what one wrote: run in make test's step of long cases.
LONG = frozenset({RUN_JOB, "alc_dask.apps.evaluate.evaluate", "alc_dask.apps.worst_columns.worst_columns", *ON_RESULTS})

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _public_objects():
    """Every public function and class of the API, by the name users import it under."""
    for package, names in API.items():
        module = importlib.import_module(package)
        for name in names or getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]:
            value = getattr(module, name)
            if (inspect.isfunction(value) or inspect.isclass(value)) and value.__module__.startswith("alc_dask"):
                yield f"{package}.{name}", value


PUBLIC = dict(_public_objects())
# The modules defining them: every example in these runs, the API's and any other.
API_MODULES = sorted({value.__module__ for value in PUBLIC.values()})


def _doctests() -> dict[str, doctest.DocTest]:
    finder = doctest.DocTestFinder()
    return {test.name: test for name in API_MODULES for test in finder.find(importlib.import_module(name), globs={}) if test.examples}


DOCTESTS = _doctests()


def _run(test: doctest.DocTest, folder) -> str:
    """Run ``test`` in ``folder`` as pasted there; the report of its failures (empty when it passes).
    Attacks it registers stay in a copy of the registry."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        patch.setattr(registry, "_REGISTERED", dict(registry._REGISTERED))
        test.globs = {}  # the example imports what it uses
        output = []
        doctest.DocTestRunner(optionflags=FLAGS).run(test, out=output.append)
        return "".join(output)


@pytest.fixture(scope="module")
def job_results(tmp_path_factory):
    """The output folder of run_job's example, which this runs."""
    folder = tmp_path_factory.mktemp("run_job_example")
    failures = _run(DOCTESTS[RUN_JOB], folder)
    assert not failures, failures
    return folder / "results"


@pytest.mark.parametrize("name", [pytest.param(name, marks=[pytest.mark.long] if name in LONG else []) for name in DOCTESTS])
def test_example_runs(name, tmp_path, request):
    if name == RUN_JOB:
        request.getfixturevalue("job_results")  # runs it, and fails when it fails
        return
    if name in ON_RESULTS:
        shutil.copytree(request.getfixturevalue("job_results"), tmp_path / "results")
    failures = _run(DOCTESTS[name], tmp_path)
    assert not failures, failures


def test_a_wrong_output_or_a_warning_fails_an_example(tmp_path):
    parser = doctest.DocTestParser()
    wrong = parser.get_doctest(">>> 1 + 1\n3\n", {}, "wrong", None, 0)
    warns = parser.get_doctest(">>> import warnings\n>>> warnings.warn('a warning is an error in this suite')\n", {}, "warns", None, 0)
    right = parser.get_doctest(">>> import os\n>>> os.listdir('.')\n[]\n", {}, "right", None, 0)
    assert "Expected:\n    3\nGot:\n    2" in _run(wrong, tmp_path)
    assert "UserWarning: a warning is an error in this suite" in _run(warns, tmp_path)
    assert _run(right, tmp_path) == ""


def test_the_api_s_examples_are_collected():
    assert {RUN_JOB, *ON_RESULTS, *LONG} <= set(DOCTESTS)
    assert "alc_dask.measure.best.best_prc" in DOCTESTS and "alc_dask.data.release.Release.load" in DOCTESTS


@pytest.mark.parametrize("value", list(PUBLIC.values()), ids=list(PUBLIC))
def test_public_object_has_a_numpydoc_docstring_with_an_example(value):
    doc = inspect.getdoc(value) or ""
    assert ">>> " in doc.partition("Examples\n--------\n")[2], f"{value.__qualname__}: no Examples section with an example"
    if inspect.isfunction(value):
        assert "Returns\n-------" in doc or "-> None" in str(inspect.signature(value)), f"{value.__qualname__}: no Returns section"
        if len(inspect.signature(value).parameters):
            assert "Parameters\n----------" in doc, f"{value.__qualname__}: no Parameters section"
    else:
        undocumented = [m for m, member in vars(value).items() if not m.startswith("_") and inspect.isfunction(member) and not member.__doc__]
        assert not undocumented, f"{value.__qualname__}: methods without a docstring: {undocumented}"
