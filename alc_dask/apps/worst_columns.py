"""``alc_dask.worst_columns``: the strongest attack over the subsets of columns an attacker may know,
reported honestly.

A release judged on one choice of known columns may leak through another: two columns that say
little each can identify people together. The search (``worst_columns_search``) tries the subsets,
each as one evaluation of its family run by the normal engine (local cluster or a Dask cluster):
the ALC or Anonymeter's inference of a secret, or membership. Taking the best of many subsets
measured on the same people would report luck as a leak, so the targets are split in two halves
by the seed (``worst_columns_measures``): the subset is *chosen* on one half and *measured* on the
other, which played no part in choosing it. The result states how many subsets were tried, the
chosen subset, its held-out measure with its interval and label, and the selection half's beside it.

Its files, in the output folder: ``worst_columns.json`` (the result), ``subsets.parquet`` (each
subset tried, its phase and selection figure) and ``runs/`` (the engine's results of every evaluation).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from alc_dask.apps.check import CheckInputs, Table, read_inputs
from alc_dask.apps.staging import engine_inputs
from alc_dask.apps.worst_columns_measures import (
    FAMILIES,
    HELD_OUT,
    SELECTION,
    AlcSubsets,
    Halves,
    InferenceSubsets,
    MembershipSubsets,
    SubsetAttack,
    measured_on,
)
from alc_dask.apps.worst_columns_report import WorstColumns
from alc_dask.apps.worst_columns_search import Tried, fitting_size, search
from alc_dask.errors import OptionError
from alc_dask.shown import shown

DEFAULT_MAX_SIZE = 2
DEFAULT_BUDGET = 50
DEFAULT_TARGETS = 2000
"""The battery's attacks per inference evaluation: 1000 a half, a 95% interval of about ±3 points on a rate near 0.5."""
NEEDS_CONTROL = ("inference", "membership")
COLUMNS_FIELD = {"alc": "known", "inference": "aux_cols", "membership": "columns"}
"""Where each family's parameters name the columns known."""


@dataclass(frozen=True)
class Request:
    """A search asked for, checked against the tables: which family, secret and candidate columns, how far to search."""

    family: str
    secret: str | None
    candidates: tuple[str, ...]
    max_size: int
    budget: int
    targets: int
    seed: int
    attack: str | None = None
    """The family's attack, None for its default."""

    def settings(self) -> dict:
        return {"family": self.family, "attack": self.attack, "secret": self.secret, "candidates": list(self.candidates)} | {
            name: getattr(self, name) for name in ("max_size", "budget", "targets", "seed")
        }


def worst_columns(
    original: Table,
    release: Table,
    secret: str | None = None,
    control: Table | None = None,
    *,
    family: str | None = None,
    attack: str | None = None,
    columns: list[str] | None = None,
    max_size: int = DEFAULT_MAX_SIZE,
    budget: int = DEFAULT_BUDGET,
    targets: int = DEFAULT_TARGETS,
    seed: int = 0,
    output: str | os.PathLike | None = None,
    progress: bool = False,
    scheduler: str | None = None,
    workers: int | None = None,
    client=None,
) -> WorstColumns:
    """The strongest attack over the subsets of columns an attacker may know, chosen on one half of
    the targets and measured on the other.

    Every subset of up to ``max_size`` candidate columns is tried, then greedy forward selection
    from the strongest of ``max_size`` columns, at most ``budget`` subsets in all, each one
    evaluation of ``family`` run by the engine. The halves are split by ``seed``; the held-out
    half, which played no part in choosing, measures the chosen subset. Start it from a script's
    ``if __name__ == "__main__":`` block: a local cluster's worker processes import the main module.

    Parameters
    ----------
    original, release : path or pandas.DataFrame
        The people the release was made from, and the release (Parquet or CSV files, or DataFrames).
    secret : str, optional
        The column inferred (families ``alc`` and ``inference``); None for membership.
    control : path or pandas.DataFrame, optional
        Other people of the same population, never released (``inference`` and ``membership`` need it).
    family : {"alc", "inference", "membership"}, optional
        The family searched (default: ``alc`` given a secret, else ``membership``).
    attack : str, optional
        The family's attack (default: its own: ``best_row_match``, ``nearest``, ``distance_ratio``):
        a registered attribute attack for ``alc``, ``nearest`` or ``ml_on_release`` for
        ``inference``, a registered membership attack for ``membership``.
    columns : list of str, optional
        The candidate columns (default: every column of the release but the secret).
    max_size : int, default 2
        Every subset of up to this many columns is tried before the greedy steps.
    budget : int, default 50
        Subsets evaluated at most, in all.
    targets : int, default 2000
        Targets of each evaluation (membership: members, and as many non-members), split in halves.
    seed : int, default 0
        Seeds the halves and every evaluation.
    output : path, optional
        Where results go (default: a new temporary folder).
    progress : bool, default False
        Show a progress bar per round of evaluations.
    scheduler : str, optional
        Address (or scheduler file) of a running Dask cluster.
    workers : int, optional
        Worker processes of the local cluster (default: one per core).
    client : distributed.Client, optional
        A client to run on instead, left open.

    Returns
    -------
    WorstColumns
        The subsets tried, the chosen one with its held-out measure, interval and label, and the
        selection half's figure beside it; also written to ``output`` (``worst_columns.json``,
        ``subsets.parquet``).

    Raises
    ------
    InputError
        Bad input, before any cluster starts: an unknown secret or column, a budget below 1, a
        ``max_size`` above the candidate columns, a family that needs a control table without one.

    Examples
    --------
    >>> import alc_dask
    >>> from alc_dask.testing.truth import truth_releases
    >>> truth = truth_releases(rows=500)
    >>> found = alc_dask.worst_columns(truth.members, truth.releases["copy"], secret="occupation", columns=["age", "sex", "region", "income"],
    ...                                max_size=1, budget=6, targets=300, output="worst", workers=1)
    >>> found.tried, found.chosen.columns, found.label
    (6, ('age', 'income'), 'flagged')
    >>> found.held_out.low >= 0.5
    True
    """
    inputs = read_inputs(original, release, control)
    request = request_of(inputs, secret, family, columns, max_size, budget, targets, seed, attack)
    folder = Path(output) if output is not None else Path(tempfile.mkdtemp(prefix="alc-dask-worst-columns-"))
    from alc_dask.engine import OnDemandClient

    with OnDemandClient(client, scheduler, workers) as cluster:
        return run_search(request, inputs, folder, cluster, progress)


def request_of(inputs: CheckInputs, secret, family, columns, max_size, budget, targets, seed, attack=None) -> Request:
    """The request checked: each problem one ``OptionError`` naming the argument (and its option)."""
    family = family or ("alc" if secret is not None else "membership")
    if family not in FAMILIES:
        raise OptionError(f"family (--family): {family!r} is not a family the search runs; it runs {list(FAMILIES)}")
    original, released = list(inputs.original.columns), [c for c in inputs.original.columns if c in set(inputs.release.columns)]
    if family == "membership" and secret is not None:
        raise OptionError(f"secret (--secret): membership infers no secret; leave {secret!r} out, or give --family alc or inference")
    if family != "membership":
        if secret is None:
            raise OptionError(f"secret (--secret): family {family} infers a secret: name its column")
        if secret not in original:
            raise OptionError(f"secret (--secret): {secret!r} is not a column of the original table; it has {original}")
        if secret not in released:
            raise OptionError(f"secret (--secret): {secret!r} is not a column of the release, so nothing of it can be inferred from the release")
    if family in NEEDS_CONTROL and inputs.control is None:
        raise OptionError(f"control (--control): family {family} compares members with non-members: give a control table of other people")
    candidates = _candidates(released, secret, columns)
    for name, value, least in (("budget", budget, 1), ("max_size", max_size, 1), ("targets", targets, 2), ("seed", seed, 0)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < least:
            raise OptionError(f"{name} (--{name.replace('_', '-')}): must be a whole number of at least {least}; got {shown(value)}")
    if max_size > len(candidates):
        raise OptionError(f"max_size (--max-size): {max_size} is more than the {len(candidates)} columns the attacker may know: {list(candidates)}")
    return Request(family, secret, candidates, int(max_size), int(budget), int(targets), int(seed), _checked_attack(family, attack))


def _checked_attack(family: str, attack: str | None) -> str | None:
    """``attack`` if ``family`` has it (a registered attack of its kind; inference's own two)."""
    from typing import get_args

    from alc_dask.attacks.base import AttackKind
    from alc_dask.attacks.registry import build_attack
    from alc_dask.families.wp29.inference import InferenceParams
    from alc_dask.measure import SettingError

    if attack is None:
        return None
    if family == "inference":
        known = get_args(InferenceParams.model_fields["attack"].annotation)
        if attack not in known:
            raise OptionError(f"attack (--attack): {attack!r} is not an attack of family inference; it has {list(known)}")
        return attack
    try:
        build_attack(attack, AttackKind.MEMBERSHIP if family == "membership" else AttackKind.ATTRIBUTE)
    except SettingError as error:
        raise OptionError(f"attack (--attack): {error}") from None
    return attack


def _candidates(released: list[str], secret: str | None, columns) -> tuple[str, ...]:
    """The columns the attacker may know: those asked for (default: every column of the release but the secret), in the table's order."""
    if columns is None:
        return tuple(c for c in released if c != secret)
    asked = list(columns)
    for name in asked:
        if name == secret:
            raise OptionError(f"columns (--column): {name!r} is the secret; the attacker would know it already")
        if name not in released:
            raise OptionError(f"columns (--column): {name!r} is not a column of both the original table and the release; they share {released}")
    if not asked:
        raise OptionError("columns (--column): lists no column; leave it out to let the attacker know any column of the release")
    return tuple(c for c in released if c in set(asked))


def run_search(request: Request, inputs: CheckInputs, folder: Path, cluster, progress: bool = False) -> WorstColumns:
    """The search of ``request`` on ``cluster`` (an ``OnDemandClient``), its files written to ``folder``."""
    started = time.perf_counter()
    folder.mkdir(parents=True, exist_ok=True)
    attack = subset_attack(request, inputs)
    rows = {"original": len(inputs.original)} | ({"control": len(inputs.control)} if inputs.control is not None else {})
    with engine_inputs(inputs, folder, shared=cluster.elsewhere) as paths:
        rounds = SubsetRounds(request, attack, _job(request, attack, paths, folder), folder / "runs", cluster, Halves(request.seed, rows), progress)
        outcome = search(request.candidates, request.max_size, request.budget, rounds, request.seed)
        chosen = outcome.chosen
        held_out = rounds.measure(chosen, HELD_OUT) if chosen is not None else None
    result = WorstColumns.of(request.settings(), attack.headline, outcome, held_out, folder, time.perf_counter() - started)
    result.write()
    return result


def subset_attack(request: Request, inputs: CheckInputs) -> SubsetAttack:
    if request.family == "membership":
        return MembershipSubsets(request.targets, len(inputs.original), request.attack)
    if request.family == "inference":
        return InferenceSubsets(request.secret, request.targets, request.attack)
    return AlcSubsets(request.secret, request.targets, _floor_correct(inputs, request.secret), request.attack)


def _floor_correct(inputs: CheckInputs, secret: str) -> np.ndarray:
    """Whether always guessing the secret's most common value is right, for each original row, on
    the secret's codes as the engine encodes them (a continuous secret by its bins)."""
    from alc_dask.data import Release

    codes = Release.load(inputs.original, [inputs.release], control=inputs.control).secret_column(secret)
    return codes == np.bincount(codes).argmax()


def _job(request: Request, attack: SubsetAttack, paths: dict[str, str | None], folder: Path) -> dict:
    """The battery's job around one entry of the family: its release and, for the ALC, its ML baseline."""
    from alc_dask.apps.battery import battery_job

    job = battery_job(
        paths["original"], paths["release"], paths["control"], str((folder / "runs").resolve()), [attack.entry(request.candidates[:1])], request.seed
    )
    return job | {"name": "worst-columns"} | attack.job_settings()


class SubsetRounds:
    """Evaluates subsets for the search, a round at a time: each round one run of the engine into the
    same results folder (so a search run again resumes), each subset measured on the selection half."""

    def __init__(self, request: Request, attack: SubsetAttack, job: dict, runs: Path, cluster, halves: Halves, progress: bool):
        self.request, self.attack, self.job, self.runs, self.cluster, self.halves, self.progress = request, attack, job, runs, cluster, halves, progress
        self.rows: dict[str, pd.Series] = {}

    def __call__(self, subsets: list[tuple[str, ...]], phase: str) -> list[Tried]:
        if not subsets:
            return []
        from alc_dask.engine import run_job
        from alc_dask.jobs import validate_job

        spec = validate_job(self.job | {"scenarios": [self.attack.entry(columns) for columns in subsets]}, "the worst-columns search")
        scores = run_job(spec, client=self.cluster.get(), progress=self.progress)
        field = COLUMNS_FIELD[self.request.family]
        by_columns = {frozenset(json.loads(row["params"])[field]): row for _, row in scores.iterrows()}
        rows = [by_columns[frozenset(columns)] for columns in subsets]
        self.rows |= {row["scenario_id"]: row for row in rows}
        measured = self._measured([row["scenario_id"] for row in rows if row["status"] == "ok"], SELECTION)
        return [
            Tried(columns, phase, row["scenario_id"], measured.get(row["scenario_id"]), None if row["status"] == "ok" else f"{row['status']}: {row['error']}")
            for columns, row in zip(subsets, rows, strict=True)
        ]

    def measure(self, item: Tried, half: str):
        return self._measured([item.scenario_id], half)[item.scenario_id]

    def _measured(self, scenario_ids: list[str], half: str) -> dict:
        from alc_dask.results import read_predictions

        if not scenario_ids:
            return {}
        predictions = read_predictions(self.runs, scenario_ids)
        by_id = dict(tuple(predictions.groupby("scenario_id", sort=False)))
        return {sid: measured_on(self.attack, by_id[sid], self.rows[sid], self.halves, half) for sid in scenario_ids}


def battery_searches(inputs: CheckInputs, folder: Path, seed: int = 0, workers: int | None = None) -> list[WorstColumns]:
    """``check --worst-columns``: a search of the ALC per secret of the battery, and given a control
    table one of membership per attack of the battery, each in its own folder under ``folder``
    (``<secret>``, ``membership-<attack>``): the default budget and targets, every subset of up to
    the default size if they fit in the budget, else of single columns (and then greedy steps)."""
    from alc_dask.apps.battery import secrets_of
    from alc_dask.engine import OnDemandClient
    from alc_dask.families.membership.family import BATTERY_ATTACKS
    from alc_dask.jobs.spec import safe_label

    released = set(inputs.release.columns)
    wanted = [(secret, "alc", None) for secret in secrets_of(inputs.typed.get("original", inputs.original)) if secret in released]
    wanted += [(None, "membership", attack) for attack in BATTERY_ATTACKS] if inputs.control is not None else []
    requests = []
    for secret, family, attack in wanted:
        others = len([c for c in inputs.original.columns if c in released and c != secret])
        if others:
            size = fitting_size(others, DEFAULT_BUDGET, DEFAULT_MAX_SIZE)  # the budget left to greedy steps, not to a sample of pairs
            requests.append(request_of(inputs, secret, family, None, size, DEFAULT_BUDGET, DEFAULT_TARGETS, seed, attack))
    with OnDemandClient(None, None, workers) as cluster:
        return [run_search(request, inputs, folder / safe_label(request.secret or f"membership-{request.attack}"), cluster) for request in requests]
