"""The job spec: a release, the scenarios to evaluate it with, a seed, where results go, and how
audits judge them; every family's own settings and scenario entries are the family's.

A job file is data (YAML or JSON), validated strictly: unknown keys are errors, so a typo never
silently falls back to a default. Relative paths are relative to the job file. The job's model
(``job_model``) is composed from the registered families: each brings its job-wide settings (keys
at the top level of a job) and its scenario generators (``generate:`` entries); any other entry is
one evaluation of the family it names (the default family when it names none), validated by it.
"""

import math
import re
import typing
from functools import cache
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, ByteSize, ConfigDict, Discriminator, Field, Tag, create_model, field_validator, model_validator

from alc_dask.data.parts import DEFAULT_BROADCAST_LIMIT, ROWS_PER_PART
from alc_dask.errors import InternalError
from alc_dask.families import DEFAULT_FAMILY, family_names, get_family
from alc_dask.families.planning import Generator
from alc_dask.jobs.files import read_kinds
from alc_dask.strict_numbers import NoBooleanNumbers

SAFE_NAME = r"^[A-Za-z0-9_.-]+$"


def _not_dots(name: str) -> str:
    if name in (".", ".."):
        raise ValueError(f"{name!r} is not a name (it would step out of the output folder)")
    return name


SafeName = Annotated[str, Field(pattern=SAFE_NAME), AfterValidator(_not_dots)]
"""Job and release names become folder and file names: letters, digits, ``. _ -``, not ``.`` or ``..``."""


def safe_label(stem: str) -> str:
    """``stem`` as a ``SafeName``: other characters become ``_``; nothing usable left gives ``release``."""
    label = re.sub(r"[^A-Za-z0-9_.-]+", "_", stem).strip(".")
    return label or "release"


class Strict(NoBooleanNumbers):
    model_config = ConfigDict(extra="forbid", frozen=True)


HIERARCHIES = "release.grouped.hierarchies"
"""The field of a generalization hierarchy's file: a file of its own format, not a table."""


class GroupedSpec(Strict):
    """A group-anonymized release (Boreale et al. 2020, §II): a ``generalized`` table (k-anonymity, ℓ-diversity:
    generalized quasi-identifier cells, the sensitive value in clear; groups by ``group`` or by
    alike cells), or ``anatomy``: a quasi-identifier ``table`` and a ``sensitive_table`` joined by
    ``group`` (with ``count`` per sensitive value, or one row each). ``hierarchies`` (ARX's CSV
    format, ``hierarchy_delimiter`` between levels) resolve generalized cells; ``k`` and ``l``, when
    declared, are checked per group. See ``alc_dask.data.generalization`` for what a cell covers."""

    scheme: Literal["generalized", "anatomy"]
    """``generalized``: one table of generalized cells (k-anonymity, ℓ-diversity); ``anatomy``: a
    quasi-identifier table and a sensitive table joined by a group id."""
    table: str
    """The generalized table, or Anatomy's quasi-identifier table (a path or URL)."""
    sensitive_table: str | None = None
    """Anatomy's table of sensitive values per group."""
    sensitive: str
    """The sensitive column, the one the attacker infers."""
    quasi_identifiers: Annotated[list[str], Field(min_length=1)] | None = None
    """Default: every column of ``table`` but the sensitive and group columns."""
    group: str | None = None
    """The group id column; a generalized table without one groups rows with alike cells."""
    count: str | None = None
    """Anatomy's column of how many rows of a group hold each sensitive value (else one row each)."""
    hierarchies: dict[str, str] = {}
    """Column -> its generalization hierarchy, a file in ARX's CSV format."""
    hierarchy_delimiter: Annotated[str, Field(min_length=1, max_length=1)] = ";"
    """The character between a hierarchy's levels."""
    k: Annotated[int, Field(ge=1)] | None = None
    """The k the release declares, checked per group."""
    l: Annotated[int, Field(ge=1)] | None = None  # noqa: E741 (the scheme's own name)
    """The ℓ the release declares (distinct sensitive values per group), checked per group."""

    @model_validator(mode="after")
    def _scheme_tables(self):
        if self.scheme == "anatomy" and (self.sensitive_table is None or self.group is None):
            raise ValueError("an anatomy release needs sensitive_table and group (the column joining the two tables)")
        if self.scheme == "generalized" and self.sensitive_table is not None:
            raise ValueError("sensitive_table is for anatomy releases; a generalized table holds its sensitive column")
        if self.scheme == "generalized" and self.count is not None:
            raise ValueError("count is for anatomy releases (the sensitive table's column); a generalized table has one row a person")
        return self

    def files(self) -> list[tuple[str, str]]:
        """(field, path) of each of its files."""
        files = [("release.grouped.table", self.table)]
        if self.sensitive_table:
            files.append(("release.grouped.sensitive_table", self.sensitive_table))
        return files + [(f"{HIERARCHIES}.{c}", p) for c, p in self.hierarchies.items()]


class GeneratorSpec(Strict):
    """How the release was made, as its maker declares it: the generator's ``name`` and ``version``,
    and for a differentially private one its promise, ``epsilon`` (and ``delta``, 0 when left out).
    The membership family reads a declared ε against what its attacks prove (``alc_dask.measure.dp_audit``)."""

    name: Annotated[str, Field(min_length=1)]
    """The generator, e.g. ``mst``."""
    version: str | None = None
    epsilon: Annotated[float, Field(gt=0, allow_inf_nan=False)] | None = None
    """A differentially private generator's ε."""
    delta: Annotated[float, Field(ge=0, lt=1)] | None = None
    """Its δ, beside ε (0 when left out)."""

    @model_validator(mode="after")
    def _delta_with_epsilon(self):
        if self.delta is not None and self.epsilon is None:
            raise ValueError(f"delta ({self.delta:g}) is declared without epsilon: a DP generator declares ε, and δ beside it")
        return self


class ReleaseSpec(Strict):
    """The tables of one release; ``columns`` overrides inferred kinds (categorical|continuous),
    inferred by this project's rule or, with ``kinds: reference``, by the reference package's.

    A table is a Parquet or CSV file, a folder or glob of part files, local or an fsspec URL. A
    release whose tables would take more than ``broadcast_limit`` encoded (8 bytes a cell at most)
    stays on the cluster's workers in parts of ``rows_per_part`` rows; a smaller one is copied to
    every worker, the fastest way for it. ``broadcast_limit: 0`` keeps every release on the workers.
    A release may be (or also hold) a group-anonymized table, ``grouped``; such a release is always
    read whole. ``generator`` declares how the release was made (see ``GeneratorSpec``).
    """

    name: SafeName | None = None
    """The release's label in results and audit folders (letters, digits, ``. _ -``); default: the
    first anonymized table's file stem."""
    original: str
    """The original table the release was made from: its people are the targets."""
    anonymized: list[str] = []
    """The released tables (one or more; a single path is a list of one)."""
    control: str | None = None
    """Original records kept out of the release (people of the same population not in it): the
    WP29 families, membership and the control baseline need it."""
    grouped: GroupedSpec | None = None
    """A group-anonymized table (k-anonymous, ℓ-diverse or Anatomy) of the release."""
    columns: dict[str, Literal["categorical", "continuous"]] | str = {}
    """Column -> its kind, overriding the inferred one; or the path of a YAML or JSON file holding
    that mapping (a sidecar `check --types` and `evaluate(types=)` read too)."""
    kinds: Literal["alc_dask", "reference"] = "alc_dask"
    """How kinds are inferred: this project's rule, or ``reference``: as the ALC package 1.0.32 does."""
    broadcast_limit: ByteSize = ByteSize(DEFAULT_BROADCAST_LIMIT)
    """Up to this size encoded (``512MiB``, or bytes) the release is copied to every worker; beyond,
    it stays on the workers in parts."""
    rows_per_part: Annotated[int, Field(ge=1)] = ROWS_PER_PART
    """Rows per encoded part of a release kept on the workers (Parquet row groups are kept whole)."""
    generator: GeneratorSpec | None = None
    """How the release was made, as its maker declares it (recorded, and audited by the membership family)."""

    @field_validator("anonymized", mode="before", json_schema_input_type=str | list[str])
    @classmethod
    def _one_or_many(cls, value):
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _something_released(self):
        if not self.anonymized and self.grouped is None:
            raise ValueError("a release needs anonymized tables or a grouped (group-anonymized) table; it has neither")
        return self

    @property
    def column_kinds(self) -> dict[str, str]:
        """``columns`` as a mapping, read from its file when it names one."""
        if isinstance(self.columns, str):
            return read_kinds(self.columns, "release.columns")
        return dict(self.columns)

    @property
    def read_whole(self) -> bool:
        """A group-anonymized release is read whole, whatever its size (its groups span its rows)."""
        return self.grouped is not None

    @property
    def label(self) -> str:
        """The release's name in results and audit folders: ``name``, else the first anonymized table's
        (or the grouped table's) file stem made safe (see ``safe_label``)."""
        if self.name:
            return self.name
        first = self.anonymized[0] if self.anonymized else self.grouped.table
        return safe_label(first.replace("\\", "/").rsplit("/", 1)[-1].split(".", 1)[0])

    def files(self) -> list[tuple[str, str]]:
        """(field, path) of every file of the release."""
        files = [("release.original", self.original), *((f"release.anonymized[{i}]", p) for i, p in enumerate(self.anonymized))]
        if self.control:
            files.append(("release.control", self.control))
        return files + (self.grouped.files() if self.grouped else [])


class FamilyScenario(BaseModel):
    """One evaluation of the family ``family`` names (the default family when it names none); every
    other key is its parameter, validated by the family itself when the job is loaded."""

    model_config = ConfigDict(extra="allow", frozen=True)

    family: str = DEFAULT_FAMILY

    @property
    def params(self) -> dict:
        return dict(self.model_extra)


class AuditSpec(Strict):
    """When a nightly audit flags an evaluation: flagged on its family's scale, or worse than at the
    previous audit (its headline's interval wholly above the previous one; see ``alc_dask.report.audit``)."""

    worse_by: Annotated[float, Field(ge=0)] = 0.05
    """For a headline without an interval (a point, such as the relative threat's): worse when higher
    than the previous audit's by more than this."""
    flag_pi_at: Annotated[float, Field(gt=0, le=1)] | None = None
    """Also flag an ALC scenario vulnerable at matched coverage with a precision improvement at
    least this (off by default: the ALC's labels decide)."""
    thresholds: dict[str, float] = {}
    """Family -> the headline value from which its evaluations are flagged in the verdict, instead
    of the family's own threshold (see ``alc_dask.verdict``)."""

    @field_validator("thresholds")
    @classmethod
    def _known_families(cls, thresholds: dict[str, float]) -> dict[str, float]:
        known = family_names()
        for name, value in thresholds.items():
            if name not in known:
                raise ValueError(f"thresholds: unknown family {name!r}; known families: {', '.join(known)}")
            if not math.isfinite(value):
                raise ValueError(f"thresholds.{name}: must be a finite number; got {value}")
        return thresholds


class JobSpec(Strict):
    """The fields of every job; ``job_model()`` adds the families' settings and scenario entries."""

    name: SafeName
    """The job's name (letters, digits, ``. _ -``; not ``.`` or ``..``)."""
    release: ReleaseSpec
    """The release evaluated: the original, its anonymized tables, a control table."""
    scenarios: Annotated[list[FamilyScenario | Generator], Field(min_length=1)]
    """The evaluations: one entry per evaluation, or a generator of many."""
    seed: Annotated[int, Field(ge=0)] = 0
    """Every scenario's seed is drawn from it and the scenario's id: the same seed, the same scores."""
    output: str = "alc-out"
    """Where results go: a folder (relative to the job file) or an fsspec URL such as ``s3://bucket/prefix``."""
    audit: AuditSpec = AuditSpec()
    """How nightly audits and the verdict judge the evaluations."""

    def family_settings(self) -> dict[str, BaseModel]:
        """Family name -> its job-wide settings, for the families that declare them."""
        settings = {}
        for name in family_names():
            model = get_family(name).JobSettings
            if model is not None:
                settings[name] = model.model_validate({key: getattr(self, key) for key in model.model_fields})
        return settings


def generator_name(generator: type[Generator]) -> str:
    """What an entry's ``generate:`` says for ``generator``."""
    return typing.get_args(generator.model_fields["generate"].annotation)[0]


def generators() -> dict[str, type[Generator]]:
    """Every registered family's scenario generators by name."""
    found: dict[str, type[Generator]] = {}
    for name in family_names():
        for generator in get_family(name).generators:
            if found.setdefault(generator_name(generator), generator) is not generator:
                raise InternalError(f"two families bring a scenario generator named {generator_name(generator)!r}")
    return found


@cache
def job_model() -> type[JobSpec]:
    """The job's model: ``JobSpec`` with every registered family's job settings (no two may declare
    the same key) and scenario entries."""
    owners: dict[str, str] = dict.fromkeys(JobSpec.model_fields, "the job")
    bases = []
    for name in family_names():
        model = get_family(name).JobSettings
        if model is None:
            continue
        for key in model.model_fields:
            if owners.setdefault(key, name) != name:
                raise InternalError(f"family {name!r} declares the job setting {key!r}, which {owners[key]} declares too")
        bases.append(model)
    kinds = generators()
    entry = Annotated[
        Union[tuple(Annotated[model, Tag(name)] for name, model in kinds.items()) + (Annotated[FamilyScenario, Tag("family")],)],  # noqa: UP007
        Discriminator(_entry_kind, custom_error_type="scenario_kind", custom_error_message=f"generate must be {_either(list(kinds))}"),
    ]
    return create_model("Job", __base__=(JobSpec, *bases), __doc__=JobSpec.__doc__, scenarios=(Annotated[list[entry], Field(min_length=1)], ...))


def _entry_kind(entry: Any) -> str:
    """An entry with ``generate`` is that generator's; any other describes one evaluation."""
    generate = entry.get("generate") if isinstance(entry, dict) else getattr(entry, "generate", None)
    return "family" if generate is None else str(generate)


def _either(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
