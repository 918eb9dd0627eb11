"""One ALC scenario end to end: ``run_attack`` drives a built-in or registered attack in batches;
``AttackLoop`` hands targets one at a time to an attack of your own (the loop of Francis & Wagner 2025, §5). Both run
on ``ScenarioRun``, which sizes every batch to end exactly at the next halting checkpoint, so
batching never changes a result.
"""

from collections.abc import Sequence

from alc_dask.attacks.base import AttackKind
from alc_dask.attacks.registry import build_attack
from alc_dask.data import Release
from alc_dask.families.alc.loop.custom import AttackLoop, Target
from alc_dask.families.alc.loop.result import AttackResult
from alc_dask.families.alc.loop.scenario_run import ScenarioRun
from alc_dask.families.alc.targets import TargetSelector

__all__ = ["AttackLoop", "AttackResult", "ScenarioRun", "Target", "run_attack"]


def run_attack(
    release: Release,
    secret: str,
    known: Sequence[str],
    attack: str = "best_row_match",
    baseline: str = "ml",
    targets: TargetSelector | Sequence[int] | dict | None = None,
    seed: int = 0,
    *,
    batch_size: int = 50,
    attack_params: dict | None = None,
    **settings,
) -> AttackResult:
    """Run one ALC scenario in this process: how much better than a baseline does ``attack`` guess
    ``secret`` from ``known`` on ``release``?

    Targets are original rows attacked in a seeded random order; each gets the attack's guess and
    the baseline's, and the halting rules stop as soon as the ALC is known well enough. The same
    seed gives the same result bit for bit, however the targets are batched.

    Parameters
    ----------
    release : Release
        The original, anonymized and (for ``baseline="control"``) control tables.
    secret : str
        The column to guess.
    known : sequence of str
        The columns the attacker knows of each target.
    attack : str, default "best_row_match"
        A registered attribute-inference attack (built in, installed, or `register_attack`'s).
    baseline : {"ml", "prior", "control"}, default "ml"
        ``ml``: models trained on the original without the targets; ``prior``: the attack on a
        swapped copy of the original (recall 1); ``control``: the attack on the control table.
    targets : TargetSelector, dict, sequence of int or None, optional
        None for every original row; a ``TargetSelector`` (or its dict form) for a pre-targeted
        group; or row indices.
    seed : int, default 0
        Seeds the target order, the baseline's models and every draw.
    batch_size : int, default 50
        Targets per batch (results do not depend on it).
    attack_params : dict, optional
        The attack's parameters.
    **settings
        ``halting`` (`HaltingRules`), ``measure`` (`MeasureSettings`), ``baseline_settings``, ``swap_fraction``.

    Returns
    -------
    AttackResult
        The ALC, both sides' measures, why it halted, and every prediction.

    Raises
    ------
    ScenarioError
        A scenario the release cannot support (an unknown column, the secret among the known ones, ...).
    SettingError
        An unknown attack or a parameter it refuses.

    Examples
    --------
    A release that copies its people gives their occupation away; a fresh sample of the same
    population teaches no more than the population does:

    >>> from alc_dask import run_attack
    >>> from alc_dask.testing.truth import truth_releases
    >>> truth = truth_releases(rows=500)
    >>> known = ["age", "sex", "region", "education"]
    >>> copied = run_attack(truth.release("copy"), "occupation", known, seed=0)
    >>> round(copied.alc, 2), copied.halt_code
    (0.97, 'early_high_loose')
    >>> fresh = run_attack(truth.release("bootstrap"), "occupation", known, seed=0)
    >>> round(fresh.alc, 2)
    -0.05
    """
    built = build_attack(attack, AttackKind.ATTRIBUTE, **(attack_params or {}))
    run = ScenarioRun(release, secret, known, baseline=baseline, targets=targets, seed=seed, attack=built, **settings)
    while (rows := run.next_targets(batch_size)).size:
        run.record(run.attacker.predict(release, rows))
    return run.result(attack)
