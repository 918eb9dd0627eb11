"""Planning ALC scenarios: each (secret, known columns) an entry describes becomes one evaluation per
attack and baseline, measured with the job's ALC settings, checked against the release.

Entries of the ALC family are explicit scenarios or one of its generators (``entries``): every
column as the secret, sampled known-column sets, or the ALC paper's protocol. A secret with a single
value in the original cannot be attacked by construction: its scenarios are kept, ``skipped``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import numpy as np

from alc_dask.data import ColumnKind, Release, ScenarioError
from alc_dask.data.combinations import alone, combined_ranks
from alc_dask.errors import JobSpecError
from alc_dask.families.alc.paper import missing_entries, paper_secrets, read_paper_jobs, select_paper_entries
from alc_dask.families.alc.params import AlcSettings
from alc_dask.families.alc.targets import TargetSelector, select_rows
from alc_dask.families.planning import PlanContext, Planned, column_named
from alc_dask.families.registry import get_family

ALC = "alc"


def planned(context: PlanContext, entry, where: str, produced: Iterable[tuple]) -> list[Planned]:
    """The evaluations of ``produced`` (secret, known, origin, attack or None, baselines, targets) of
    the entry at ``where``: each crossed with the job's attacks unless it names its own."""
    settings = context.settings[ALC]
    if not context.memo.get((ALC, "targets checked")):  # the job's selection, checked once per job
        check_targets("targets", settings.targets, context.release)
        context.memo[(ALC, "targets checked")] = True
    produced = list(produced)
    if not produced:
        raise JobSpecError(f"{where} ({_kind(entry)}) expands to no scenario")
    skips = context.memo.setdefault((ALC, "skips"), {})
    measuring = {name: getattr(settings, name) for name in AlcSettings.model_fields}
    evaluations = []
    for secret, known, origin, attack, baselines, targets in produced:
        _check_baselines(context.release, baselines, f"{where}.baseline" if getattr(entry, "baseline", None) else "baselines")
        if secret not in skips:
            skips[secret] = skip_reason(context.release, secret)
        tolerance = getattr(entry, "tolerance", None) or _continuous_only(context.release, secret, settings.tolerance)
        for attack_spec, baseline in itertools.product([attack] if attack else settings.attacks, baselines):
            params = dict(secret=secret, known=tuple(known), attack=attack_spec, baseline=baseline, targets=targets, **{**measuring, "tolerance": tolerance})
            family = get_family(ALC)(params)
            _check_attack(family, context.release, where, origin)
            evaluations.append(Planned(family, origin, skips[secret]))
    return evaluations


def _check_attack(family, release: Release, where: str, origin: str) -> None:
    try:
        family.check_attack(release)
    except ScenarioError as error:
        scenario = "" if origin == "explicit" else f" ({origin}, secret {family.params.secret!r})"
        raise JobSpecError(f"{where}{scenario}: {error}") from None


def _continuous_only(release: Release, secret: str, tolerance):
    """The job's tolerance applies to its continuous secrets; a categorical one is scored by its value."""
    return tolerance if tolerance is not None and release.column(secret).kind is ColumnKind.CONTINUOUS else None


def skip_reason(release: Release, secret: str) -> str | None:
    """Why ``secret`` cannot be attacked by construction (one value in the original table), or None."""
    if release.secret_values_present(secret).size < 2:
        return f"constant secret: {secret!r} has a single value in the original table, nothing to infer"
    return None


def paper_attacks(entry, release: Release, job_seed: int, where: str = "paper") -> list[tuple[str, list[str], int]]:
    """(secret, known, job number) of the paper entry's attacks, repeats dropped, or a seeded sample of them.

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


def sample_known_sets(release: Release, secret: str, entry, job_seed: int, shares: UniqueShares | None = None) -> list[tuple[list[str], float]]:
    """Up to ``entry.per_secret`` distinct known-column sets for ``secret`` with their unique share;
    ``shares`` keeps each set's share for the next secrets that draw it."""
    others = [c for c in release.columns if c != release.column(secret).name]
    size = min(entry.size, len(others))
    rng = np.random.default_rng([job_seed, *secret.encode()])
    shares = UniqueShares(release) if shares is None else shares
    found: dict[tuple[str, ...], float] = {}
    for _ in range(entry.tries):
        chosen = tuple(sorted(rng.choice(others, size, replace=False).tolist()))
        if chosen not in found:
            found[chosen] = shares(chosen)
        if sum(share >= entry.min_unique for share in found.values()) >= entry.per_secret:
            break
    ranked = sorted(found.items(), key=lambda item: (-(item[1] >= entry.min_unique), -item[1], item[0]))
    return [(list(known), share) for known, share in ranked[: entry.per_secret]]


class UniqueShares:
    """The share of original rows whose combination of values in a set of columns no other row has,
    for the many sets a plan draws. Each column is read once (gathered once from the workers for a
    partitioned original) and ranked once; a set's rows are then compared as one integer per row.
    Sorting the rows of every set as records (``np.lexsort``) took a third of ``plan``'s own work on
    the demo's 5 000 rows, and at a million rows a third of a second per set."""

    def __init__(self, release: Release):
        self._release = release
        self._ranks: dict[str, tuple[np.ndarray, int]] = {}
        self._shares: dict[tuple[str, ...], float] = {}

    def __call__(self, columns) -> float:
        key = tuple(columns)
        if key not in self._shares:
            self._shares[key] = float(np.mean(alone(combined_ranks([self._ranked(name) for name in key]))))
        return self._shares[key]

    def _ranked(self, name: str) -> tuple[np.ndarray, int]:
        """Each row's rank among the column's distinct values, and how many there are; a continuous
        column's missing values are alike (ranked as infinity)."""
        if name not in self._ranks:
            values = self._release.original.column_array(name)
            if self._release.column(name).kind is not ColumnKind.CATEGORICAL:
                values = np.nan_to_num(values, nan=np.inf)
            distinct, ranks = np.unique(values, return_inverse=True)
            self._ranks[name] = (ranks.reshape(-1).astype(np.int64), len(distinct))
        return self._ranks[name]


def secrets(release: Release, entry, where: str) -> list[str]:
    """The entry's secrets: its list (each checked), or every column."""
    if entry.secrets is None:
        return list(release.columns)
    for i, secret in enumerate(entry.secrets):
        column_named(release, secret, f"{where}.secrets[{i}]")
    return entry.secrets


def others(release: Release, secret: str, entry, where: str) -> list[str]:
    """The columns besides the secret's (all known by ``each_column``); none is an error."""
    rest = [c for c in release.columns if c != release.column(secret).name]
    if not rest:
        raise JobSpecError(f"{where} ({_kind(entry)}): secret {secret!r} leaves no other column to know; the release has only {list(release.columns)}")
    return rest


def check_explicit(release: Release, entry, where: str) -> None:
    check_targets(f"{where}.targets", entry.targets, release)
    secret = column_named(release, entry.secret, f"{where}.secret")
    for i, name in enumerate(entry.known):
        if column_named(release, name, f"{where}.known[{i}]") == secret:
            raise JobSpecError(f"{where}.known[{i}]: {name!r} is the secret column; known columns are the others")
    if entry.tolerance is not None and release.column(secret).kind is ColumnKind.CATEGORICAL:
        raise JobSpecError(f"{where}.tolerance: secret {entry.secret!r} is categorical; a tolerance applies to continuous secrets")


def _check_paper_known(release: Release, known: list[str], where: str) -> None:
    for name in known:
        try:
            release.column(name)
        except ScenarioError:
            raise JobSpecError(f"{where}: known column {name!r} is not in the release; the release has {', '.join(release.columns)}") from None


def check_targets(field: str, selector: TargetSelector | None, release: Release) -> None:
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
