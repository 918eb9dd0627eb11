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

import numpy as np

from alc_dask.data import ColumnKind, Release, ScenarioError
from alc_dask.families import DEFAULT_FAMILY, EvaluationFamily, get_family
from alc_dask.families.alc import AlcFamily
from alc_dask.jobs.load import JobSpecError
from alc_dask.jobs.paper import paper_entries, paper_secrets
from alc_dask.jobs.spec import EachColumn, ExplicitScenario, FamilyScenario, JobSpec, PaperProtocol, SampledKnown


@dataclass(frozen=True)
class Scenario:
    id: str
    index: int
    family: EvaluationFamily
    """The evaluation, its parameters validated."""
    seed: int
    origin: str
    """Which spec entry produced it, e.g. ``each_column``, ``paper job 12`` or ``scenarios[3]``."""

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


def expand(spec: JobSpec, release: Release) -> list[Scenario]:
    """Every scenario of the job, in spec order, duplicates dropped (the first one kept)."""
    scenarios, seen = [], set()
    for family, origin in _evaluations(spec, release):
        identifier = scenario_id(family)
        if identifier in seen:
            continue
        seen.add(identifier)
        scenarios.append(Scenario(id=identifier, index=len(scenarios), family=family, seed=scenario_seed(spec.seed, identifier), origin=origin))
    return scenarios


def _evaluations(spec: JobSpec, release: Release):
    """(family, origin) of every evaluation the spec's entries describe."""
    settings = alc_settings(spec)
    for index, entry in enumerate(spec.scenarios):
        if isinstance(entry, FamilyScenario):
            family = get_family(entry.family)(entry.params)
            try:
                family.check(release)
            except ScenarioError as error:
                raise JobSpecError(f"scenarios[{index}] ({entry.family}): {error}") from None
            yield family, f"scenarios[{index}]"
            continue
        for secret, known, origin, attack, baselines, targets in _entry_scenarios(spec, entry, release):
            for attack_spec in [attack] if attack else spec.attacks:
                for baseline in baselines:
                    params = dict(secret=secret, known=tuple(known), attack=attack_spec, baseline=baseline, targets=targets, **settings)
                    yield AlcFamily(params), origin


def alc_settings(spec: JobSpec) -> dict:
    """The job-wide settings every scenario of the ALC family is measured with."""
    return {name: getattr(spec, name) for name in ("halting", "measure", "baseline_settings", "swap_fraction", "batch_size", "store_values")}


def _entry_scenarios(spec: JobSpec, entry, release: Release):
    """(secret, known, origin, attack or None, baselines, targets) of one spec entry."""
    columns = list(release.columns)
    if isinstance(entry, ExplicitScenario):
        baselines = [entry.baseline] if entry.baseline else spec.baselines
        yield entry.secret, entry.known, "explicit", entry.attack, baselines, entry.targets or spec.targets
    elif isinstance(entry, EachColumn):
        for secret in entry.secrets or columns:
            yield secret, [c for c in columns if c != secret], "each_column", None, spec.baselines, spec.targets
    elif isinstance(entry, SampledKnown):
        for secret in entry.secrets or columns:
            for known, share in sample_known_sets(release, secret, entry, spec.seed):
                yield secret, known, f"sampled_known unique={share:.2f}", None, spec.baselines, spec.targets
    elif isinstance(entry, PaperProtocol):
        baselines = {"ours": ["ml"], "prior": ["prior"], "both": ["ml", "prior"]}[entry.approach]
        for secret, known, job_num in paper_attacks(entry, columns, spec.seed):
            yield secret, known, f"paper job {job_num}", None, baselines, spec.targets


def paper_attacks(entry: PaperProtocol, columns: list[str], job_seed: int) -> list[tuple[str, list[str], int]]:
    """(secret, known, job number) of the entry's attacks, repeats dropped, or a seeded sample of them."""
    source = "ours" if entry.approach == "both" else entry.approach
    attacks, seen = [], set()
    for paper_entry in paper_entries(entry.jobs_file, entry.dataset, source, entry.entries):
        known = paper_entry["known_columns"]
        for secret in paper_secrets(columns, known, entry.secrets_per_entry):
            if (secret, frozenset(known)) not in seen:
                seen.add((secret, frozenset(known)))
                attacks.append((secret, known, paper_entry["job_num"]))
    if entry.sample is not None and entry.sample < len(attacks):
        chosen = np.random.default_rng([job_seed, *entry.dataset.encode()]).choice(len(attacks), entry.sample, replace=False)
        attacks = [attacks[i] for i in sorted(chosen)]
    return attacks


def sample_known_sets(release: Release, secret: str, entry: SampledKnown, job_seed: int) -> list[tuple[list[str], float]]:
    """Up to ``entry.per_secret`` distinct known-column sets for ``secret`` with their unique share."""
    others = [c for c in release.columns if c != secret]
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


def unique_share(release: Release, columns) -> float:
    """The share of original rows whose combination of values in ``columns`` no other row has."""
    table = release.original
    keys = []
    for name in columns:
        column = release.column(name)
        if column.kind is ColumnKind.CATEGORICAL:
            keys.append(table.codes[table.categorical.index(name)].astype(np.float64))
        else:
            keys.append(np.nan_to_num(table.values[table.continuous.index(name)], nan=np.inf))
    _, inverse, counts = np.unique(np.stack(keys, axis=1), axis=0, return_inverse=True, return_counts=True)
    return float(np.mean(counts[inverse.ravel()] == 1))
