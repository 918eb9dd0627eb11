"""The bookkeeping of one ALC scenario: targets in batches, baseline and attack paired, halting.

Every batch ends exactly at the next halting checkpoint (and inside one control block), so the
batch size never changes a result.
"""

import time
from collections.abc import Sequence

import numpy as np

from alc_dask.attacks import Predictions
from alc_dask.attacks.registry import build_attack
from alc_dask.baseline.blocks import block_size
from alc_dask.baseline.selection import BaselineSettings
from alc_dask.baseline.sources import BaselineMode, ControlBaseline, MlBaseline, PriorBaseline
from alc_dask.data import Release, ScenarioError
from alc_dask.families.alc.loop.pairs import PairLog
from alc_dask.families.alc.loop.result import AttackResult
from alc_dask.families.alc.loop.scoring import SecretScoring
from alc_dask.families.alc.loop.targets import target_order
from alc_dask.families.alc.targets import TargetSelector
from alc_dask.measure import Checkpoint, HaltingMonitor, HaltingRules, MatchedCoverage, MeasureSettings, Tolerance, alc, matched_coverage

FLOOR_MODEL = "most common value (floor)"
"""The model reported when always guessing the secret's most common value beats the baseline."""


class ScenarioRun:
    """Which targets come next, their baseline predictions, the pairs recorded so far and the
    halting checks. Attacks only supply their predictions.

    The baseline reported is never weaker than always guessing the secret's most common value in
    the original table, measured on the same targets (at recall 1): when that guess does better,
    it is the baseline (model ``FLOOR_MODEL``) and the ALC is measured against it. Halting
    decisions are the trained baseline's.
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
        attack=None,
        halting: HaltingRules = HaltingRules(),
        measure: MeasureSettings = MeasureSettings(),
        baseline_settings: BaselineSettings = BaselineSettings(),
        swap_fraction: float = 0.2,
        client=None,
        tolerance: Tolerance | None = None,
    ):
        self.started = time.perf_counter()
        self.release, self.secret, self.known, self.seed = release, secret, tuple(known), seed
        self.mode = _mode(baseline)
        release.usable_tables(secret, known)  # scenario errors first: secret among known, absent columns ...
        if release.secret_values_present(secret).size < 2:
            raise ScenarioError(f"secret {secret!r} has a single value in the original table: nothing to infer")
        self.scoring = SecretScoring(release, secret, tolerance)
        self.order, self.recall_basis, scale = target_order(release, targets, seed)
        self.measure = MeasureSettings(
            confidence_level=measure.confidence_level, rmin=measure.rmin, alpha=measure.alpha, abs_weight=measure.abs_weight, recall_scale=scale
        )
        self.source = _baseline_source(self, baseline_settings, attack, swap_fraction, client)
        self.floor = self.scoring.floor_guess()
        if isinstance(self.source, ControlBaseline):
            self.order = self.order[: self.source.available_pairs]
        self.monitor = HaltingMonitor(halting, expected_base_prc=self.source.expected_prc, measure=self.measure)
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
        if self.pairs == len(self.order):
            self._finish()
            return np.empty(0, dtype=np.int64)
        in_block = self.pairs % self.block
        if in_block == 0:
            self.source.start_block(self.order[self.pairs : self.pairs + self.block])
        size = min(limit, _pairs_to_next_check(self.monitor.rules, self.pairs), self.block - in_block, len(self.order) - self.pairs)
        pair_index = np.arange(self.pairs, self.pairs + size)
        rows = self.order[pair_index]
        self._pending = (rows, pair_index, *self.source.predict(rows, pair_index))
        return rows

    def record(self, attack: Predictions) -> None:
        """Pair the attack's predictions with the baseline's for the targets just handed out."""
        rows, pair_index, base_predicted, base_confidence = self._pending
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
        )
        if self.monitor.is_checkpoint(self.pairs):
            checkpoint = self.monitor.check(*self.log.measures())
            if checkpoint.halted:
                self.outcome = checkpoint

    def result(self, attack_name: str) -> AttackResult:
        if not self.done:
            raise RuntimeError("the scenario has not finished")
        columns = self.log.columns()
        floor = self.measure.at_full_recall(self._floor_correct(columns["base_true"]))
        base, model, best = self.outcome.base, self.source.model_name, self.outcome.alc
        if floor.prc > base.prc:
            base, model, best = floor, FLOOR_MODEL, alc(floor.prc, self.outcome.attack.prc, abs_weight=self.measure.abs_weight)
        base_full = max(self.measure.at_full_recall(columns["base_correct"]), floor, key=lambda measure: measure.prc)
        attack_full = self.measure.at_full_recall(columns["attack_correct"])
        matched = self._matched_coverage(columns, floored=model == FLOOR_MODEL)
        return AttackResult(
            secret=self.secret,
            known=self.known,
            attack_name=attack_name,
            baseline=self.mode.value,
            model=model,
            expected_base_prc=self.source.expected_prc,
            baseline_note=self.source.note,
            halt_code=self.outcome.halt_code.value,
            base=base,
            attack=self.outcome.attack,
            alc=best,
            floor_prc=floor.prc,
            attack_full_recall=attack_full,
            alc_full_recall=alc(base_full.prc, attack_full.prc, abs_weight=self.measure.abs_weight),
            matched=matched,
            tolerance=self.scoring.tolerance,
            pairs=self.pairs,
            abstentions=int(columns["abstained"].sum()),
            recall_basis=self.recall_basis,
            seconds=time.perf_counter() - self.started,
            seed=self.seed,
            columns=columns,
        )

    def _matched_coverage(self, columns: dict, floored: bool) -> MatchedCoverage:
        """The attack's predictions at its best cut against the reported baseline's on the same
        targets: those attacked when that cut was measured (the best may be an earlier checkpoint's)."""
        attack = self.outcome.attack
        if not attack.found:
            return MatchedCoverage.none()
        measured = {name: values[: attack.attempts] for name, values in columns.items()}
        predicted = measured["attack_confidence"] >= attack.confidence_cut
        if floored:
            base_correct, base_confidence = self._floor_correct(measured["base_true"]), np.ones(attack.attempts)
        else:
            base_correct, base_confidence = measured["base_correct"], measured["base_confidence"]
        return matched_coverage(predicted, measured["attack_correct"], base_correct, base_confidence, self.measure.confidence_level)

    def _floor_correct(self, truth: np.ndarray) -> np.ndarray:
        return self.scoring.correct(np.full(len(truth), self.floor), truth)

    def _finish(self) -> None:
        if self.pairs == 0:
            raise ScenarioError(f"secret {self.secret!r}: no targets to attack")
        self.outcome = self.monitor.finish(*self.log.measures())


def _baseline_source(run: ScenarioRun, settings, attack, swap_fraction, client):
    if run.mode is BaselineMode.ML:
        return MlBaseline(run.release, run.secret, run.known, settings, run.measure, run.seed, run.scoring.tolerance)
    attack = attack or build_attack("best_row_match")
    if run.mode is BaselineMode.PRIOR:
        return PriorBaseline(run.release, run.secret, run.known, attack, swap_fraction, run.seed, run.scoring)
    return ControlBaseline(run.release, run.secret, run.known, attack, run.seed, run.scoring, client)


def _pairs_to_next_check(rules: HaltingRules, pairs: int) -> int:
    if pairs < rules.min_pairs:
        return rules.min_pairs - pairs
    return rules.check_every - (pairs - rules.min_pairs) % rules.check_every


def _mode(baseline: str) -> BaselineMode:
    try:
        return BaselineMode(baseline)
    except ValueError:
        raise ScenarioError(f"baseline must be one of {[m.value for m in BaselineMode]}; got {baseline!r}") from None
