"""Expanding a job spec into scenarios: each one evaluation of one family, with a stable id and seed.

A scenario's id is a readable prefix (the evaluation's short description, e.g. the secret) and a
short hash of everything that defines it, so the same scenario has the same id in every run
(resumption and audits match on it). Ids of the default family hash exactly what they hashed before
families existed, so earlier results resume. A scenario's seed comes from the job seed and the id
only, never from where or when it runs.
"""

import hashlib
import json
import re
from dataclasses import dataclass

from alc_dask.data import Release
from alc_dask.errors import JobSpecError
from alc_dask.families import DEFAULT_FAMILY, EvaluationFamily, get_family
from alc_dask.families.planning import Generator, PlanContext, Planned
from alc_dask.jobs.spec import JobSpec


@dataclass(frozen=True)
class Scenario:
    id: str
    index: int
    family: EvaluationFamily
    """The evaluation, its parameters validated."""
    seed: int
    origin: str
    """Which spec entry produced it, e.g. ``each_column``, ``paper job 12`` or ``scenarios[3]``."""
    skipped: str | None = None
    """Why the scenario cannot be attacked by construction (it is recorded as ``skipped``), or None."""

    @property
    def params(self):
        return self.family.params

    @property
    def identity_json(self) -> str:
        return json.dumps(self.family.identity(), sort_keys=True)


def scenario_id(family: EvaluationFamily) -> str:
    identity = family.identity()
    if family.name != DEFAULT_FAMILY:
        identity = {"family": family.name, **identity}
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:10]
    return f"{_readable_prefix(family.describe())}-{digest}"


def _readable_prefix(description: str) -> str:
    """The description in ASCII letters, digits and ``_``, starting with a letter or digit (``s`` if none).

    Parts are named after the id, and Parquet dataset readers skip files starting with ``_`` or ``.``.
    """
    return re.sub(r"[^A-Za-z0-9]+", "_", description).lstrip("_")[:24] or "s"


def scenario_seed(job_seed: int, identifier: str) -> int:
    """A 31-bit seed from the job seed and the scenario id: the same on any worker, in any order."""
    return int.from_bytes(hashlib.sha256(f"{job_seed}/{identifier}".encode()).digest()[:4], "big") & 0x7FFFFFFF


def expand(spec: JobSpec, release: Release, source: str = "job") -> list[Scenario]:
    """Every scenario of the job, in spec order, duplicates dropped (the first one kept).

    Each entry is planned by its family or generator, which refuses, naming ``source`` and the
    field, what no scenario could run with: unknown columns, an entry that expands to nothing, an
    evaluation impossible on this release. A scenario that cannot be run by construction (a constant
    secret, say) is kept, ``skipped``.
    """
    try:
        return _numbered(spec, _evaluations(spec, release))
    except JobSpecError as error:
        raise JobSpecError(f"{source}: {error}") from None


def _numbered(spec: JobSpec, evaluations: list[Planned]) -> list[Scenario]:
    scenarios, seen = [], set()
    for family, origin, skipped in evaluations:
        identifier = scenario_id(family)
        if identifier in seen:
            continue
        seen.add(identifier)
        seed = scenario_seed(spec.seed, identifier)
        scenarios.append(Scenario(id=identifier, index=len(scenarios), family=family, seed=seed, origin=origin, skipped=skipped))
    return scenarios


def _evaluations(spec: JobSpec, release: Release) -> list[Planned]:
    """The evaluations every entry describes. Every entry is planned, so that one error names each
    entry at fault, in spec order."""
    context = PlanContext(release, spec.seed, spec.family_settings())
    evaluations, problems = [], {}
    for i, entry in enumerate(spec.scenarios):
        try:
            evaluations += _planned(entry, context, f"scenarios[{i}]")
        except JobSpecError as error:
            problems.setdefault(str(error))  # a job-wide field at fault is named once
    if len(problems) > 1:
        raise JobSpecError(f"{len(problems)} problems in the scenarios:\n" + "\n".join(f"  {problem}" for problem in problems))
    if problems:
        raise JobSpecError(next(iter(problems)))
    return evaluations


def _planned(entry, context: PlanContext, where: str) -> list[Planned]:
    if isinstance(entry, Generator):
        return entry.plan(context, where)
    family = get_family(entry.family)
    return family.plan(family.entry_model().model_validate(entry.params), context, where)
