"""The bookkeeping of one ALC scenario: targets in batches, baseline and attack paired, halting.

Every batch ends exactly at the next halting checkpoint (and inside one control block), so the
batch size never changes a result.
"""

import time
from collections.abc import Sequence

import numpy as np

from alc_dask.attacks.base import AttackKind, AttributeAttack, AttributeTask, Predictions
from alc_dask.attacks.registry import build_attack
from alc_dask.baseline.blocks import block_size
from alc_dask.baseline.selection import BaselineSettings
from alc_dask.baseline.sources import BaselineMode, ControlBaseline, MlBaseline, OthersAttack, PriorBaseline
from alc_dask.data import Release, ScenarioError
from alc_dask.families.alc.loop.attacker import Attacker
from alc_dask.families.alc.loop.pairs import PairLog
from alc_dask.families.alc.loop.result import AttackResult
from alc_dask.families.alc.loop.scoring import SecretScoring
from alc_dask.families.alc.loop.summary import summarize
from alc_dask.families.alc.loop.targets import target_order
from alc_dask.families.alc.targets import TargetSelector
from alc_dask.measure import Checkpoint, HaltCode, HaltingMonitor, HaltingRules, MeasureSettings, Tolerance


class ScenarioRun:
    """Which targets come next, their baseline predictions, the pairs recorded so far and the
    halting checks. Attacks only supply their predictions; ``attacker`` is the scenario's attack
    (``best_row_match`` when none is given), which the prior and control baselines ask too. The
    finished scenario is summed up by ``summary.summarize``.
    """

    def __init__(
        self,
        release: Release,
        secret: str,
        known: Sequence[str],
        *,
        baseline: str = "ml",
        targets: TargetSelector | Sequence[int] | None = None,
        seed: int = 0,
        attack: AttributeAttack | None = None,
        halting: HaltingRules = HaltingRules(),
        measure: MeasureSettings = MeasureSettings(),
        baseline_settings: BaselineSettings = BaselineSettings(),
        swap_fraction: float = 0.2,
        tolerance: Tolerance | None = None,
    ):
        self.started = time.perf_counter()
        self.release, self.secret, self.known, self.seed = release, secret, tuple(known), seed
        self.mode = _mode(baseline)
        release.usable_tables(secret, known)  # scenario errors first: secret among known, absent columns ...
        if release.secret_values_present(secret).size < 2:
            raise ScenarioError(f"secret {secret!r} has a single value in the original table: nothing to infer")
        self.scoring = SecretScoring(release, secret, tolerance)
        self.attacker = Attacker(attack or build_attack("best_row_match", AttackKind.ATTRIBUTE), AttributeTask(secret, self.known, tolerance))
        self.attacker.check(release)
        self.order, self.recall_basis, scale = target_order(release, targets, seed)
        self.measure = MeasureSettings(
            confidence_level=measure.confidence_level, rmin=measure.rmin, alpha=measure.alpha, abs_weight=measure.abs_weight, recall_scale=scale
        )
        self.source = _baseline_source(self, baseline_settings, swap_fraction)
        self.others = (
            OthersAttack(release, self.attacker, self.scoring, baseline_settings.near_duplicate_ratio)
            if self.mode is BaselineMode.ML and baseline_settings.attack_on_others and OthersAttack.applies(release)
            else None
        )
        self.base_side = "model"
        """Which baseline the latest measures took: ``model`` (the source) or ``others`` (``OthersAttack``)."""
        self.floor = self.scoring.floor_guess()
        if isinstance(self.source, ControlBaseline):
            self.order = self.order[: self.source.available_pairs]
        self.available = min(len(self.order), halting.max_pairs or len(self.order))
        self.monitor = HaltingMonitor(halting, expected_base_prc=self.source.expected_prc, measure=self.measure, available=self.available)
        self.block = block_size(release.original.n_rows)
        self.log = PairLog()
        self.outcome: Checkpoint | None = None
        self._pending: tuple | None = None

    @property
    def pairs(self) -> int:
        return self.log.count

    @property
    def done(self) -> bool:
        return self.outcome is not None

    def next_targets(self, limit: int) -> np.ndarray:
        """Up to ``limit`` target rows, never past the next checkpoint nor the current block."""
        if self._pending is not None:
            raise RuntimeError("record the predictions of the previous targets first")
        if self.done:
            return np.empty(0, dtype=np.int64)
        if self.pairs == self.available:
            self._finish(HaltCode.EXHAUSTED if self.available == len(self.order) else HaltCode.BUDGET)
            return np.empty(0, dtype=np.int64)
        in_block = self.pairs % self.block
        if in_block == 0:
            block = self.order[self.pairs : self.pairs + self.block]
            for source in (self.source, self.others):
                if source is not None:
                    source.start_block(block)
        size = min(limit, _pairs_to_next_check(self.monitor.rules, self.pairs), self.block - in_block, self.available - self.pairs)
        pair_index = np.arange(self.pairs, self.pairs + size)
        rows = self.order[pair_index]
        others = self.others.predict(rows, pair_index) if self.others is not None else None
        self._pending = (rows, pair_index, *self.source.predict(rows, pair_index), others)
        return rows

    def record(self, attack: Predictions) -> None:
        """Pair the attack's predictions with the baseline's for the targets just handed out."""
        rows, pair_index, base_predicted, base_confidence, others = self._pending
        if len(attack.codes) != len(rows):
            raise ValueError(f"expected {len(rows)} attack predictions, got {len(attack.codes)}")
        if self.scoring.numeric and attack.values is None:
            raise ScenarioError(f"the attack predicts no numbers: it cannot score secret {self.secret!r} within a tolerance")
        self._pending = None
        abstained = np.asarray(attack.abstained, dtype=bool)
        predicted = np.where(abstained, base_predicted, self.scoring.predicted(attack))  # Francis & Wagner 2025, §5: abstain = baseline's guess, confidence 0
        confidence = np.where(abstained, 0.0, attack.confidence)
        if self.mode is BaselineMode.PRIOR:
            confidence = base_confidence = np.ones(len(rows))
        base_true, attack_true = self.source.truth(rows, pair_index), self.scoring.truth(self.release.targets(rows))
        if others is not None:
            others = {"others_code": others[0], "others_confidence": others[1], "others_correct": self.scoring.correct(others[0], base_true)}
        self.log.append(
            target=rows,
            base_code=base_predicted,
            base_confidence=base_confidence,
            base_true=base_true,
            base_correct=self.scoring.correct(base_predicted, base_true),
            attack_code=predicted,
            attack_confidence=confidence,
            attack_true=attack_true,
            attack_correct=self.scoring.correct(predicted, attack_true),
            abstained=abstained,
            **(others or {}),
        )
        if self.monitor.is_checkpoint(self.pairs):
            checkpoint = self.monitor.check(*self.measures())
            if checkpoint.halted:
                self.outcome = checkpoint

    def measures(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(base correct, base confidence, attack correct, attack confidence) of every pair so far,
        the base being the stronger of the model and the attack on other people: the one with the
        higher PRC at its best cut (of the halting rules' tight width where both have one, else the
        loose). Both are measured on the same targets, so picking the stronger can only lower the
        ALC: a leak it hides would be one a release of other people shows as plainly."""
        base_correct, base_confidence, attack_correct, attack_confidence = self.log.measures()
        self.base_side = "model"
        if self.others is not None:
            others_correct, others_confidence = self.log.others()
            if _prc(self, others_correct, others_confidence) > _prc(self, base_correct, base_confidence):
                self.base_side, base_correct, base_confidence = "others", others_correct, others_confidence
        return base_correct, base_confidence, attack_correct, attack_confidence

    def result(self, attack_name: str) -> AttackResult:
        if not self.done:
            raise RuntimeError("the scenario has not finished")
        return summarize(self, attack_name)

    def _finish(self, code: HaltCode) -> None:
        if self.pairs == 0:
            raise ScenarioError(f"secret {self.secret!r}: no targets to attack")
        self.outcome = self.monitor.finish(*self.measures(), code=code)


def _baseline_source(run: ScenarioRun, settings, swap_fraction):
    if run.mode is BaselineMode.ML:
        first_block = run.order[: block_size(run.release.original.n_rows)]
        return MlBaseline(run.release, run.secret, run.known, settings, run.measure, run.seed, run.scoring.tolerance, first_block)
    if run.mode is BaselineMode.PRIOR:
        return PriorBaseline(run.release, run.attacker, swap_fraction, run.seed, run.scoring)
    return ControlBaseline(run.release, run.attacker, run.seed, run.scoring)


def _prc(run: ScenarioRun, correct: np.ndarray, confidence: np.ndarray) -> float:
    rules, measure = run.monitor.rules, run.measure
    tight = measure.best_prc(correct, confidence, rules.tight_interval)
    return tight.prc if tight.found else measure.best_prc(correct, confidence, rules.loose_interval).prc


def _pairs_to_next_check(rules: HaltingRules, pairs: int) -> int:
    if pairs < rules.min_pairs:
        return rules.min_pairs - pairs
    return rules.check_every - (pairs - rules.min_pairs) % rules.check_every


def _mode(baseline: str) -> BaselineMode:
    try:
        return BaselineMode(baseline)
    except ValueError:
        raise ScenarioError(f"baseline must be one of {[m.value for m in BaselineMode]}; got {baseline!r}") from None
