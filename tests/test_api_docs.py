"""The public API's docstrings: every public function and class has a numpydoc docstring with an
Examples section, and every example runs as a doctest, as a user would paste it (nothing imported
beforehand). The examples that start a Dask cluster are marked long, like the tests that do."""

import doctest
import importlib
import inspect

import pytest

from alc_dask.attacks import registry

# The public API: what ``alc_dask`` and its subpackages export for users (the names the README shows);
# None stands for the package's whole ``__all__``.
API = {
    "alc_dask": None,
    "alc_dask.measure": None,
    "alc_dask.attacks": None,
    "alc_dask.errors": None,
    "alc_dask.families": ("CheckExamples", "Evaluation", "EvaluationFamily", "FamilyParams", "HeadlineInterval", "column", "family_names", "get_family"),
    "alc_dask.results": ("read_scores", "read_predictions"),
    "alc_dask.testing": ("check_family", "FamilyCheck", "ContractError"),
}


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

# Examples that start a Dask cluster (seconds each): run in make test's step of long cases.
LONG = frozenset()

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _doctests():
    finder = doctest.DocTestFinder()
    for name in API_MODULES:
        for test in finder.find(importlib.import_module(name), globs={}):
            if not test.examples:
                continue
            marks = [pytest.mark.long] if test.name in LONG else []
            yield pytest.param(test, id=test.name, marks=marks)


@pytest.mark.parametrize("test", list(_doctests()))
def test_example_runs(test, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # files an example writes
    monkeypatch.setattr(registry, "_REGISTERED", dict(registry._REGISTERED))  # attacks an example registers stay in it
    test.globs = {}  # as a user pastes it: the example imports what it uses
    output = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, out=output.append)
    assert runner.failures == 0, "".join(output)


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
