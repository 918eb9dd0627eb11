"""How a job's scenario entries become evaluations: the part of the family contract the job layer
calls, so that the job layer names no family.

A family plans its own entries (``EvaluationFamily.plan``) and brings its own scenario generators
(``Generator`` subclasses listed in its ``generators``): each turns one entry of a job's
``scenarios`` into ``Planned`` evaluations, checked against the release, or raises ``JobSpecError``
naming the entry's field. ``PlanContext`` is what every planner may read: the release, the job's
seed and the job-wide settings of each family (its ``JobSettings``, at the top level of a job).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from pydantic import BaseModel, ConfigDict

from alc_dask.data import ScenarioError
from alc_dask.errors import JobSpecError

if TYPE_CHECKING:
    from alc_dask.data import Release
    from alc_dask.families.base import EvaluationFamily


class Planned(NamedTuple):
    family: EvaluationFamily
    """The evaluation, its parameters validated."""
    origin: str
    """Which entry produced it, e.g. ``each_column``, ``paper job 12`` or ``scenarios[3]``."""
    skipped: str | None = None
    """Why it cannot be run by construction (recorded as ``skipped``), or None."""


@dataclass
class PlanContext:
    """What planning an entry may read; ``memo`` keeps work shared by a job's entries (a secret's
    skip reason, say), keyed by the planner."""

    release: Release
    job_seed: int
    settings: dict[str, BaseModel] = field(default_factory=dict)
    """Family name -> its validated job-wide settings (families that declare ``JobSettings``)."""
    memo: dict[Any, Any] = field(default_factory=dict)


class Generator(BaseModel):
    """A scenario generator: one job entry (``generate: <name>``) that a family expands into many
    evaluations. Subclasses declare ``generate: Literal["<name>"]`` and the entry's other keys, and
    implement ``plan``. ``files`` names the fields holding paths (made absolute against the job
    file's folder, and checked to exist before any work)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    files: ClassVar[tuple[str, ...]] = ()

    def plan(self, context: PlanContext, where: str) -> list[Planned]:
        raise NotImplementedError

    def evaluation(self, params: dict[str, Any]) -> EvaluationFamily:
        """An evaluation of the family the generator expands into (its ``family`` field), found by
        name as a job finds it: a generator's module need not import its family's."""
        from alc_dask.families.registry import get_family

        return get_family(self.family)(params)


def checked(family: EvaluationFamily, release: Release, where: str) -> EvaluationFamily:
    """``family`` once its own check passes on ``release``; its ``ScenarioError`` names the entry."""
    try:
        family.check(release)
    except ScenarioError as error:
        raise JobSpecError(f"{where} ({family.name}): {error}") from None
    return family


def column_named(release: Release, name: str, field: str) -> str:
    """The release column ``name`` stands for (a ``__discretized`` copy stands for its column);
    an unknown one is an error naming ``field``."""
    try:
        return release.column(name).name
    except ScenarioError:
        raise JobSpecError(f"{field}: unknown column {name!r}; the release has {', '.join(release.columns)}") from None
