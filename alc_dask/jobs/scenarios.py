"""Expanding a job spec into scenarios: each one evaluation of one family, with a stable id and seed.

A scenario's id is a readable prefix (the evaluation's short description, e.g. the secret) and a
short hash of everything that defines it, so the same scenario has the same id in every run
(resumption and audits match on it). Ids of the default family hash exactly what they hashed before
families existed, so earlier results resume. A scenario's seed comes from the job seed and the id
only, never from where or when it runs.
"""

import hashlib
import itertools
import json
import re
from dataclasses import dataclass

import numpy as np

from alc_dask.data import ColumnKind, Release, ScenarioError
from alc_dask.families import DEFAULT_FAMILY, EvaluationFamily, get_family
from alc_dask.families.alc.family import AlcFamily, AlcSettings
from alc_dask.families.alc.paper import missing_entries, paper_secrets, read_paper_jobs, select_paper_entries
from alc_dask.families.alc.targets import TargetSelector, select_rows
from alc_dask.jobs.errors import JobSpecError
from alc_dask.jobs.spec import EachColumn, ExplicitScenario, FamilyScenario, JobSpec, PaperProtocol, QuasiIdentifierSets, SampledKnown


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

    Refuses, naming ``source`` and the field, what no scenario could run with: unknown columns, an
    entry that expands to nothing, a target selection or baseline the release cannot serve, an
    evaluation its family finds impossible on this release. A scenario that cannot be attacked by
    construction (a constant secret) is kept, ``skipped``.
    """
    try:
        _check_targets("targets", spec.targets, release)
        return _expand(spec, release)
    except JobSpecError as error:
        raise JobSpecError(f"{source}: {error}") from None


def _expand(spec: JobSpec, release: Release) -> list[Scenario]:
    scenarios, seen = [], set()
    for family, origin, skipped in _evaluations(spec, release):
        identifier = scenario_id(family)
        if identifier in seen:
            continue
        seen.add(identifier)
        seed = scenario_seed(spec.seed, identifier)
        scenarios.append(Scenario(id=identifier, index=len(scenarios), family=family, seed=seed, origin=origin, skipped=skipped))
    return scenarios


def _evaluations(spec: JobSpec, release: Release) -> list[tuple[EvaluationFamily, str, str | None]]:
    """(family, origin, why skipped or None) of every evaluation the spec's entries describe.

    Every entry is checked, so that one error names each entry at fault, in spec order.
    """
    settings, skips, evaluations, problems = alc_settings(spec), {}, [], {}
    for i, entry in enumerate(spec.scenarios):
        try:
            evaluations += _entry_evaluations(spec, entry, f"scenarios[{i}]", release, settings, skips)
        except JobSpecError as error:
            problems.setdefault(str(error))  # a job-wide field at fault is named once
    if len(problems) > 1:
        raise JobSpecError(f"{len(problems)} problems in the scenarios:\n" + "\n".join(f"  {problem}" for problem in problems))
    if problems:
        raise JobSpecError(next(iter(problems)))
    return evaluations


def _entry_evaluations(spec: JobSpec, entry, where: str, release: Release, settings: dict, skips: dict) -> list:
    """The evaluations of the entry at ``where`` (``skips`` remembers each secret's skip reason)."""
    if isinstance(entry, FamilyScenario):
        return [(_checked_family(entry, release, where), where, None)]
    if isinstance(entry, QuasiIdentifierSets):
        evaluations = []
        for quasi in sample_quasi_identifier_sets(release, entry, spec.seed, where):
            params = {"quasi_identifiers": quasi, "population": entry.population, "fit": entry.fit, "allow_negative_gamma": entry.allow_negative_gamma}
            evaluations.append((_checked_family(FamilyScenario(family="identification", **params), release, where), f"{where} quasi_identifier_sets", None))
        return evaluations
    produced = list(_entry_scenarios(spec, entry, release, where))
    if not produced:
        raise JobSpecError(f"{where} ({_kind(entry)}) expands to no scenario")
    evaluations = []
    for secret, known, origin, attack, baselines, targets in produced:
        _check_baselines(release, baselines, f"{where}.baseline" if getattr(entry, "baseline", None) else "baselines")
        if secret not in skips:
            skips[secret] = skip_reason(release, secret)
        tolerance = getattr(entry, "tolerance", None) or _continuous_only(release, secret, settings["tolerance"])
        for attack_spec, baseline in itertools.product([attack] if attack else spec.attacks, baselines):
            params = dict(secret=secret, known=tuple(known), attack=attack_spec, baseline=baseline, targets=targets, **{**settings, "tolerance": tolerance})
            family = AlcFamily(params)
            _check_attack(family, release, where, origin)
            evaluations.append((family, origin, skips[secret]))
    return evaluations


def _check_attack(family: AlcFamily, release: Release, where: str, origin: str) -> None:
    try:
        family.check_attack(release)
    except ScenarioError as error:
        scenario = "" if origin == "explicit" else f" ({origin}, secret {family.params.secret!r})"
        raise JobSpecError(f"{where}{scenario}: {error}") from None


def _continuous_only(release: Release, secret: str, tolerance):
    """The job's tolerance applies to its continuous secrets; a categorical one is scored by its value."""
    return tolerance if tolerance is not None and release.column(secret).kind is ColumnKind.CONTINUOUS else None


def _checked_family(entry: FamilyScenario, release: Release, where: str) -> EvaluationFamily:
    family = get_family(entry.family)(entry.params)
    try:
        family.check(release)
    except ScenarioError as error:
        raise JobSpecError(f"{where} ({entry.family}): {error}") from None
    return family


def alc_settings(spec: JobSpec) -> dict:
    """The job-wide settings every scenario of the ALC family is measured with."""
    return {name: getattr(spec, name) for name in AlcSettings.model_fields}


def skip_reason(release: Release, secret: str) -> str | None:
    """Why ``secret`` cannot be attacked by construction (one value in the original table), or None."""
    if release.secret_values_present(secret).size < 2:
        return f"constant secret: {secret!r} has a single value in the original table, nothing to infer"
    return None


def _entry_scenarios(spec: JobSpec, entry, release: Release, where: str):
    """(secret, known, origin, attack or None, baselines, targets) of one spec entry."""
    if isinstance(entry, ExplicitScenario):
        _check_explicit(release, entry, where)
        baselines = [entry.baseline] if entry.baseline else spec.baselines
        yield entry.secret, entry.known, "explicit", entry.attack, baselines, entry.targets or spec.targets
    elif isinstance(entry, EachColumn):
        for secret in _secrets(release, entry, where):
            yield secret, _others(release, secret, entry, where), "each_column", None, spec.baselines, spec.targets
    elif isinstance(entry, SampledKnown):
        for secret in _secrets(release, entry, where):
            _others(release, secret, entry, where)
            for known, share in sample_known_sets(release, secret, entry, spec.seed):
                yield secret, known, f"sampled_known unique={share:.2f}", None, spec.baselines, spec.targets
    elif isinstance(entry, PaperProtocol):
        baselines = {"ours": ["ml"], "prior": ["prior"], "both": ["ml", "prior"]}[entry.approach]
        for secret, known, job_num in paper_attacks(entry, release, spec.seed, where):
            yield secret, known, f"paper job {job_num}", None, baselines, spec.targets


def paper_attacks(entry: PaperProtocol, release: Release, job_seed: int, where: str = "paper") -> list[tuple[str, list[str], int]]:
    """(secret, known, job number) of the entry's attacks, repeats dropped, or a seeded sample of them.

    Every known column of a chosen jobs.json entry must be a column of the release; ``where`` names
    the entry in errors.
    """
    source = "ours" if entry.approach == "both" else entry.approach
    try:
        entries = read_paper_jobs(entry.jobs_file)
    except (OSError, ValueError) as error:
        raise JobSpecError(f"{where}.jobs_file: {error}") from None
    chosen = select_paper_entries(entries, entry.dataset, source, entry.entries)
    if not chosen:
        raise JobSpecError(f"{where} (paper): {missing_entries(entries, entry.dataset, source, entry.jobs_file)}")
    attacks, seen = [], set()
    for index, paper_entry in chosen:
        known = paper_entry["known_columns"]
        _check_paper_known(release, known, f"{where}.jobs_file: {entry.jobs_file}: entry [{index}]")
        for secret in paper_secrets(list(release.columns), known, entry.secrets_per_entry):
            if (secret, frozenset(known)) not in seen:
                seen.add((secret, frozenset(known)))
                attacks.append((secret, known, paper_entry["job_num"]))
    if entry.sample is not None and entry.sample < len(attacks):
        chosen = np.random.default_rng([job_seed, *entry.dataset.encode()]).choice(len(attacks), entry.sample, replace=False)
        attacks = [attacks[i] for i in sorted(chosen)]
    return attacks


def sample_known_sets(release: Release, secret: str, entry: SampledKnown, job_seed: int) -> list[tuple[list[str], float]]:
    """Up to ``entry.per_secret`` distinct known-column sets for ``secret`` with their unique share."""
    others = [c for c in release.columns if c != release.column(secret).name]
    size = min(entry.size, len(others))
    rng = np.random.default_rng([job_seed, *secret.encode()])
    found: dict[tuple[str, ...], float] = {}
    for _ in range(entry.tries):
        chosen = tuple(sorted(rng.choice(others, size, replace=False).tolist()))
        if chosen not in found:
            found[chosen] = unique_share(release, chosen)
        if sum(share >= entry.min_unique for share in found.values()) >= entry.per_secret:
            break
    ranked = sorted(found.items(), key=lambda item: (-(item[1] >= entry.min_unique), -item[1], item[0]))
    return [(list(known), share) for known, share in ranked[: entry.per_secret]]


def sample_quasi_identifier_sets(release: Release, entry: QuasiIdentifierSets, job_seed: int, where: str) -> list[list[str]]:
    """Up to ``entry.count`` distinct sorted sets of ``entry.size`` columns (fewer when fewer exist)."""
    pool = entry.columns or list(release.original.columns)
    for i, name in enumerate(pool):
        _check_column(release, name, f"{where}.columns[{i}]")
    if entry.size > len(pool):
        raise JobSpecError(f"{where}.size: {entry.size} is more than the {len(pool)} columns to draw from")
    rng = np.random.default_rng([job_seed, entry.count, entry.size])
    found: dict[tuple[str, ...], None] = {}
    for _ in range(100 * entry.count):
        found.setdefault(tuple(sorted(rng.choice(pool, entry.size, replace=False).tolist())), None)
        if len(found) == entry.count:
            break
    return [list(quasi) for quasi in found]


def unique_share(release: Release, columns) -> float:
    """The share of original rows whose combination of values in ``columns`` no other row has."""
    keys = []
    for name in columns:
        values = release.original.column_array(name)
        if release.column(name).kind is ColumnKind.CATEGORICAL:
            keys.append(values.astype(np.float64))
        else:
            keys.append(np.nan_to_num(values, nan=np.inf))
    _, inverse, counts = np.unique(np.stack(keys, axis=1), axis=0, return_inverse=True, return_counts=True)
    return float(np.mean(counts[inverse.ravel()] == 1))


def _secrets(release: Release, entry: EachColumn | SampledKnown, where: str) -> list[str]:
    if entry.secrets is None:
        return list(release.columns)
    for i, secret in enumerate(entry.secrets):
        _check_column(release, secret, f"{where}.secrets[{i}]")
    return entry.secrets


def _others(release: Release, secret: str, entry, where: str) -> list[str]:
    """The columns besides the secret's (all known by ``each_column``); none is an error."""
    others = [c for c in release.columns if c != release.column(secret).name]
    if not others:
        raise JobSpecError(f"{where} ({_kind(entry)}): secret {secret!r} leaves no other column to know; the release has only {list(release.columns)}")
    return others


def _check_explicit(release: Release, entry: ExplicitScenario, where: str) -> None:
    _check_targets(f"{where}.targets", entry.targets, release)
    secret = _check_column(release, entry.secret, f"{where}.secret")
    for i, name in enumerate(entry.known):
        if _check_column(release, name, f"{where}.known[{i}]") == secret:
            raise JobSpecError(f"{where}.known[{i}]: {name!r} is the secret column; known columns are the others")
    if entry.tolerance is not None and release.column(secret).kind is ColumnKind.CATEGORICAL:
        raise JobSpecError(f"{where}.tolerance: secret {entry.secret!r} is categorical; a tolerance applies to continuous secrets")


def _check_paper_known(release: Release, known: list[str], where: str) -> None:
    for name in known:
        try:
            release.column(name)
        except ScenarioError:
            raise JobSpecError(f"{where}: known column {name!r} is not in the release; the release has {', '.join(release.columns)}") from None


def _check_column(release: Release, name: str, field: str) -> str:
    """The release column ``name`` stands for (a ``__discretized`` copy stands for its column)."""
    try:
        return release.column(name).name
    except ScenarioError:
        raise JobSpecError(f"{field}: unknown column {name!r}; the release has {', '.join(release.columns)}") from None


def _check_targets(field: str, selector: TargetSelector | None, release: Release) -> None:
    """A target selection must select rows of this release (the run would fail each scenario)."""
    if selector is not None:
        try:
            select_rows(release, selector)
        except ScenarioError as error:
            raise JobSpecError(f"{field}: {error}") from None


def _check_baselines(release: Release, baselines: list[str], field: str) -> None:
    if "control" in baselines and release.control is None:
        raise JobSpecError(f"{field}: baseline 'control' needs a release with a control table (release.control)")


def _kind(entry) -> str:
    return getattr(entry, "generate", "explicit")
