"""What a family declares, checked before anything runs: its registration, its class attributes and
the examples it is checked with."""

from __future__ import annotations

import pyarrow as pa
from pydantic import BaseModel

from alc_dask.families import CheckExamples, EvaluationFamily, FamilyParams, family_names, get_family
from alc_dask.families.planning import Generator


class ContractError(AssertionError):
    """A family breaks its contract: the message names the family and the part of the contract.

    Examples
    --------
    >>> from alc_dask.testing import ContractError, family_checks
    >>> declarations = next(family_checks("no_such_family"))
    >>> try:
    ...     declarations()
    ... except ContractError as error:
    ...     print(error.family, "|", error.part)
    no_such_family | registration
    """

    def __init__(self, family: str, part: str, problem: str):
        super().__init__(f"family {family!r}, {part}: {problem}")
        self.family, self.part, self.problem = family, part, problem


def expect(condition: bool, family: str, part: str, problem: str) -> None:
    if not condition:
        raise ContractError(family, part, problem)


def registered(name: str) -> type[EvaluationFamily]:
    """The class registered as ``name`` in the ``alc_dask.families`` entry points."""
    expect(
        name in family_names(),
        name,
        "registration",
        f"no entry point of the group alc_dask.families is named {name!r} (known: {', '.join(family_names())}); "
        "declare it in the package's pyproject.toml and install the package",
    )
    cls = get_family(name)
    expect(
        isinstance(cls, type) and issubclass(cls, EvaluationFamily), name, "registration", f"the entry point gives {cls!r}, not an EvaluationFamily subclass"
    )
    expect(getattr(cls, "name", None) == name, name, "name", f"{cls.__name__}.name is {getattr(cls, 'name', None)!r}, not the entry point's name {name!r}")
    return cls


def check_declarations(cls: type[EvaluationFamily]) -> None:
    """Params, fields, headline, run-dependent measures, entries and generators as the contract says."""
    name = cls.name
    expect(_subclass(getattr(cls, "Params", None), FamilyParams), name, "Params", "Params must be a subclass of alc_dask.families.FamilyParams")
    fields = getattr(cls, "fields", None)
    expect(
        isinstance(fields, tuple | list) and len(fields) > 0 and all(isinstance(f, pa.Field) for f in fields),
        name,
        "fields",
        "fields must be a non-empty tuple of pyarrow fields",
    )
    names = [f.name for f in fields]
    doubled = sorted({n for n in names if names.count(n) > 1})
    expect(not doubled, name, "fields", f"fields names {doubled} more than once")
    types = {f.name: f.type for f in fields}
    headline = getattr(cls, "headline", None)
    expect(headline in types, name, "headline", f"headline {headline!r} is not one of the fields {names}")
    expect(
        pa.types.is_floating(types[headline]) or pa.types.is_integer(types[headline]),
        name,
        "headline",
        f"headline {headline!r} must be a number (higher: more exposed); it is {types[headline]}",
    )
    unknown = sorted(set(cls.run_dependent) - set(types))
    expect(not unknown, name, "run_dependent", f"{unknown} are not fields")
    expect(headline not in cls.run_dependent, name, "run_dependent", "the headline must not depend on where a run ran")
    expect(_subclass(cls.entry_model(), BaseModel), name, "Entry", "entry_model() must be a pydantic model")
    expect(cls.JobSettings is None or _subclass(cls.JobSettings, BaseModel), name, "JobSettings", "JobSettings must be None or a pydantic model")
    criterion = getattr(cls, "criterion", None)
    expect(
        criterion is None or (isinstance(criterion, str) and criterion.strip() != ""),
        name,
        "criterion",
        f"criterion must be None or a question's name; got {criterion!r}",
    )
    wrong = [g for g in cls.generators if not _subclass(g, Generator)]
    expect(not wrong, name, "generators", f"{wrong} are not subclasses of alc_dask.families.planning.Generator")


def examples_of(cls: type[EvaluationFamily], columns: tuple[str, ...]) -> CheckExamples:
    """The family's ``check_examples(columns)``, checked for shape."""
    name = cls.name
    try:
        examples = cls.check_examples(columns)
    except NotImplementedError as error:
        raise ContractError(name, "check_examples", str(error)) from None
    expect(isinstance(examples, CheckExamples), name, "check_examples", f"must return alc_dask.families.CheckExamples; got {type(examples).__name__}")
    entries = examples.entries
    expect(
        isinstance(entries, list) and len(entries) > 0 and all(isinstance(e, dict) for e in entries),
        name,
        "check_examples",
        "entries must be a non-empty list of job entries (dicts)",
    )
    others = sorted({e["family"] for e in entries if e.get("family", name) != name})
    expect(not others, name, "check_examples", f"entries of other families {others}: a family is checked with its own entries")
    expect(examples.release in ("tables", "grouped"), name, "check_examples", f"release must be 'tables' or 'grouped'; got {examples.release!r}")
    return examples


def _subclass(value, base: type) -> bool:
    return isinstance(value, type) and issubclass(value, base)
