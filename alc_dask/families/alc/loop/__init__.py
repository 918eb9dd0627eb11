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
    client=None,
    attack_params: dict | None = None,
    **settings,
) -> AttackResult:
    """Run one scenario: ``attack`` (a registered attribute-inference attack's name) on ``release``
    for ``secret`` given ``known``, built with ``attack_params``.

    ``baseline`` is ``"ml"`` (models on the original minus the targets), ``"prior"`` (the attack on a
    swapped copy of the original; recall 1) or ``"control"`` (the attack on the control table).
    ``targets``: None for all original rows in a seeded random order, a ``TargetSelector`` (or its
    dict form) for a pre-targeted group, or row indices. Further keywords: ``halting``
    (``HaltingRules``), ``measure`` (``MeasureSettings``), ``baseline_settings``, ``swap_fraction``.
    """
    built = build_attack(attack, AttackKind.ATTRIBUTE, **(attack_params or {}))
    run = ScenarioRun(release, secret, known, baseline=baseline, targets=targets, seed=seed, attack=built, client=client, **settings)
    while (rows := run.next_targets(batch_size)).size:
        run.record(run.attacker.predict(release, rows, client=client))
    return run.result(attack)
