"""The job spec: a release, the scenarios to attack it with, and how every scenario is measured.

A job file is data (YAML or JSON), validated strictly: unknown keys are errors, so a typo never
silently falls back to a default. Relative paths are relative to the job file.
"""

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ByteSize, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

from alc_dask.data.parts import DEFAULT_BROADCAST_LIMIT, ROWS_PER_PART
from alc_dask.families import DEFAULT_FAMILY
from alc_dask.families.alc.family import AlcSettings, AttackSpec, Baseline
from alc_dask.families.alc.settings import ToleranceSpec
from alc_dask.families.alc.targets import TargetSelector

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


class Strict(BaseModel):
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
    table: str
    sensitive_table: str | None = None
    sensitive: str
    quasi_identifiers: Annotated[list[str], Field(min_length=1)] | None = None
    """Default: every column of ``table`` but the sensitive and group columns."""
    group: str | None = None
    count: str | None = None
    hierarchies: dict[str, str] = {}
    hierarchy_delimiter: Annotated[str, Field(min_length=1, max_length=1)] = ";"
    k: Annotated[int, Field(ge=1)] | None = None
    l: Annotated[int, Field(ge=1)] | None = None  # noqa: E741 (the scheme's own name)

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


class ReleaseSpec(Strict):
    """The tables of one release; ``columns`` overrides inferred kinds (categorical|continuous),
    inferred by this project's rule or, with ``kinds: reference``, by the reference package's.

    A table is a Parquet or CSV file, a folder or glob of part files, local or an fsspec URL. A
    release whose tables would take more than ``broadcast_limit`` encoded (8 bytes a cell at most)
    stays on the cluster's workers in parts of ``rows_per_part`` rows; a smaller one is copied to
    every worker, the fastest way for it. ``broadcast_limit: 0`` keeps every release on the workers.
    A release may be (or also hold) a group-anonymized table, ``grouped``; such a release is always
    read whole.
    """

    name: SafeName | None = None
    original: str
    anonymized: list[str] = []
    control: str | None = None
    grouped: GroupedSpec | None = None
    columns: dict[str, Literal["categorical", "continuous"]] = {}
    kinds: Literal["alc_dask", "reference"] = "alc_dask"
    broadcast_limit: ByteSize = ByteSize(DEFAULT_BROADCAST_LIMIT)
    rows_per_part: Annotated[int, Field(ge=1)] = ROWS_PER_PART

    @field_validator("anonymized", mode="before")
    @classmethod
    def _one_or_many(cls, value):
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _something_released(self):
        if not self.anonymized and self.grouped is None:
            raise ValueError("a release needs anonymized tables or a grouped (group-anonymized) table; it has neither")
        return self

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


class AlcEntry(Strict):
    """An entry of the default family may say so: ``family: alc``."""

    family: Literal["alc"] = DEFAULT_FAMILY


class FamilyScenario(BaseModel):
    """One evaluation of another family: ``family`` names it, every other key is its parameter,
    validated by the family itself when the job is loaded (``alc_dask.jobs.load``)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    family: str

    @property
    def params(self) -> dict:
        return dict(self.model_extra)


class ExplicitScenario(AlcEntry):
    """One scenario written out; attack, baseline and targets default to the job's."""

    secret: str
    known: Annotated[list[str], Field(min_length=1)]
    attack: AttackSpec | None = None
    baseline: Baseline | None = None
    targets: TargetSelector | None = None
    tolerance: ToleranceSpec | None = None
    """The job's tolerance for this scenario's continuous secret, or its own."""


class EachColumn(AlcEntry):
    """Every column (or the listed ``secrets``) as the secret, all other columns known."""

    generate: Literal["each_column"]
    secrets: Annotated[list[str], Field(min_length=1)] | None = None


class SampledKnown(AlcEntry):
    """Per secret, ``per_secret`` sets of ``size`` known columns whose value combinations are mostly
    unique: at least ``min_unique`` of the original rows are alone with their combination (the
    paper's good known-column sets). Sets are drawn at random from the other columns, seeded by the
    job seed; when fewer than ``per_secret`` pass after ``tries`` draws, the most unique are used."""

    generate: Literal["sampled_known"]
    per_secret: Annotated[int, Field(ge=1)] = 3
    size: Annotated[int, Field(ge=1)] = 3
    min_unique: Annotated[float, Field(ge=0, le=1)] = 0.5
    tries: Annotated[int, Field(ge=1)] = 200
    secrets: Annotated[list[str], Field(min_length=1)] | None = None


class QuasiIdentifierSets(Strict):
    """``count`` sets of ``size`` quasi-identifiers drawn at random (seeded by the job seed) from
    ``columns`` (default: every column), each an evaluation of the ``identification`` family with
    the other keys as its parameters."""

    generate: Literal["quasi_identifier_sets"]
    count: Annotated[int, Field(ge=1)] = 4
    size: Annotated[int, Field(ge=1)] = 4
    columns: Annotated[list[str], Field(min_length=1)] | None = None
    population: Annotated[int, Field(ge=1)]
    fit: Literal["measurements", "profile"] = "measurements"
    allow_negative_gamma: bool = False


class PaperProtocol(AlcEntry):
    """The paper's experiment: entries of its jobs.json for one dataset, each with its first
    ``secrets_per_entry`` shuffled non-known columns as secrets. ``approach`` ours attacks with the
    ML baseline, prior with the prior baseline, both with each (the two approaches of the paper
    share their known-column sets). ``sample`` draws that many of the attacks at random (seeded by
    the job seed) instead of running them all."""

    generate: Literal["paper"]
    jobs_file: str
    dataset: str
    approach: Literal["ours", "prior", "both"] = "ours"
    entries: Annotated[int, Field(ge=1)] | None = None
    secrets_per_entry: Annotated[int, Field(ge=1)] = 5
    sample: Annotated[int, Field(ge=1)] | None = None


def _scenario_kind(entry) -> str | None:
    """An entry of another family is that family's; else one with ``generate`` is that generator,
    and any other mapping is an explicit scenario."""
    get = entry.get if isinstance(entry, dict) else lambda key, default: getattr(entry, key, default)
    if get("family", DEFAULT_FAMILY) != DEFAULT_FAMILY:
        return "family"
    return get("generate", "explicit")


ScenarioEntry = Annotated[
    Annotated[ExplicitScenario, Tag("explicit")]
    | Annotated[EachColumn, Tag("each_column")]
    | Annotated[SampledKnown, Tag("sampled_known")]
    | Annotated[PaperProtocol, Tag("paper")]
    | Annotated[QuasiIdentifierSets, Tag("quasi_identifier_sets")]
    | Annotated[FamilyScenario, Tag("family")],
    Discriminator(
        _scenario_kind, custom_error_type="scenario_kind", custom_error_message="generate must be each_column, sampled_known, paper or quasi_identifier_sets"
    ),
]


class AuditSpec(Strict):
    """When a nightly audit flags a scenario as worse than the previous audit's."""

    worse_by: Annotated[float, Field(ge=0)] = 0.05
    flag_pi_at: Annotated[float, Field(gt=0, le=1)] | None = None
    """Also flag an ALC scenario vulnerable at matched coverage with a precision improvement at
    least this (off by default: the ALC's labels decide)."""


class JobSpec(AlcSettings, Strict):
    """A whole job. Scenarios are crossed with ``attacks`` and ``baselines`` unless they name their own;
    the ALC settings (``halting``, ``measure``, ``baseline_settings``, ...) come from ``AlcSettings``."""

    name: SafeName
    release: ReleaseSpec
    scenarios: Annotated[list[ScenarioEntry], Field(min_length=1)]
    attacks: Annotated[list[AttackSpec], Field(min_length=1)] = [AttackSpec(name="best_row_match")]
    baselines: Annotated[list[Baseline], Field(min_length=1)] = ["ml"]
    targets: TargetSelector | None = None
    seed: Annotated[int, Field(ge=0)] = 0
    output: str = "alc-out"
    audit: AuditSpec = AuditSpec()

    @field_validator("attacks", mode="before")
    @classmethod
    def _attack_names(cls, value):
        """``attacks: [best_row_match]`` is short for ``[{name: best_row_match}]``."""
        if isinstance(value, list):
            return [{"name": item} if isinstance(item, str) else item for item in value]
        return value
