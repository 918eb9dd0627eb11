"""One attack scenario end to end: targets in batches, baseline and attack predictions in pairs,
halting, and the result.

``run_attack`` drives a built-in or registered attack in batches; ``AttackLoop`` hands targets one
at a time to an attack of your own (the paper's §5 loop). Both run on ``ScenarioRun``, which sizes
every batch to end exactly at the next halting checkpoint, so batching never changes a result.
"""

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from alc_dask.attacks import ABSTAINED, Predictions
from alc_dask.attacks.registry import build_attack
from alc_dask.baseline.blocks import block_size
from alc_dask.baseline.selection import BaselineSettings
from alc_dask.baseline.sources import BaselineMode, ControlBaseline, MlBaseline, PriorBaseline
from alc_dask.data import Release, ScenarioError
from alc_dask.measure import (
    Checkpoint,
    HaltCode,
    HaltingMonitor,
    HaltingRules,
    MeasureSettings,
    PrcResult,
    RecallBasis,
    alc,
    pretargeted_scale,
    prc_at_full_recall,
)
from alc_dask.targets import TargetSelector, column_values, select_rows


@dataclass(frozen=True)
class AttackResult:
    """A scenario's outcome: the best base and attack measures (chosen independently) and their
    ALC, the attack at recall 1 with its ALC, why it halted, and every prediction made."""

    secret: str
    known: tuple[str, ...]
    attack_name: str
    baseline: str
    model: str
    expected_base_prc: float | None
    halt_code: str
    base: PrcResult
    attack: PrcResult
    alc: float
    attack_full_recall: PrcResult
    alc_full_recall: float
    pairs: int
    abstentions: int
    recall_basis: str
    seconds: float
    seed: int
    predictions: pd.DataFrame = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row of scores (no predictions), ready to be written or concatenated."""
        row = {
            "secret": self.secret,
            "known": list(self.known),
            "attack": self.attack_name,
            "baseline": self.baseline,
            "model": self.model,
            "expected_base_prc": self.expected_base_prc,
            "halt_code": self.halt_code,
            "alc": self.alc,
            **self.base.to_dict("base_"),
            **self.attack.to_dict("attack_"),
            "alc_full_recall": self.alc_full_recall,
            **self.attack_full_recall.to_dict("attack_full_recall_"),
            "pairs": self.pairs,
            "abstentions": self.abstentions,
            "recall_basis": self.recall_basis,
            "seconds": self.seconds,
            "seed": self.seed,
        }
        return pd.DataFrame([row])


class ScenarioRun:
    """The bookkeeping of one scenario: which targets come next, their baseline predictions, the
    pairs recorded so far and the halting checks. Attacks only supply their predictions."""

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
    ):
        self.started = time.perf_counter()
        self.release, self.secret, self.known, self.seed = release, secret, tuple(known), seed
        self.mode = _mode(baseline)
        release.usable_tables(secret, known)  # scenario errors first: secret among known, absent columns ...
        truth = release.true_codes(secret, release.original)
        if np.unique(truth).size < 2:
            raise ScenarioError(f"secret {secret!r} has a single value in the original table: nothing to infer")
        self.order, self.recall_basis, scale = self._target_order(targets, seed)
        self.measure = MeasureSettings(
            confidence_level=measure.confidence_level, rmin=measure.rmin, alpha=measure.alpha, abs_weight=measure.abs_weight, recall_scale=scale
        )
        self.source = self._baseline_source(baseline_settings, attack, swap_fraction, client)
        if isinstance(self.source, ControlBaseline):
            self.order = self.order[: self.source.available_pairs]
        self.monitor = HaltingMonitor(halting, expected_base_prc=self.source.expected_prc, measure=self.measure)
        self.block = block_size(release.original.n_rows)
        self.columns = {name: [] for name in ("target", "base_code", "base_confidence", "base_true", "attack_code", "attack_confidence", "attack_true", "abstained")}
        self.pairs = 0
        self.outcome: Checkpoint | None = None
        self._pending: tuple | None = None

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
        rules = self.monitor.rules
        next_check = rules.min_pairs if self.pairs < rules.min_pairs else self.pairs + rules.check_every - (self.pairs - rules.min_pairs) % rules.check_every
        size = min(limit, next_check - self.pairs, self.block - in_block, len(self.order) - self.pairs)
        pair_index = np.arange(self.pairs, self.pairs + size)
        rows = self.order[pair_index]
        base_codes, base_confidence = self.source.predict(rows, pair_index)
        self._pending = (rows, pair_index, base_codes, base_confidence)
        return rows

    def record(self, attack: Predictions) -> None:
        """Pair the attack's predictions with the baseline's for the targets just handed out."""
        rows, pair_index, base_codes, base_confidence = self._pending
        if len(attack.codes) != len(rows):
            raise ValueError(f"expected {len(rows)} attack predictions, got {len(attack.codes)}")
        self._pending = None
        abstained = np.asarray(attack.abstained, dtype=bool)
        codes = np.where(abstained, base_codes, attack.codes)  # spec §5: abstain = baseline's guess, confidence 0
        confidence = np.where(abstained, 0.0, attack.confidence)
        if self.mode is BaselineMode.PRIOR:
            confidence = np.ones(len(rows))
            base_confidence = np.ones(len(rows))
        for name, values in (
            ("target", rows),
            ("base_code", base_codes),
            ("base_confidence", base_confidence),
            ("base_true", self.source.truth(rows, pair_index)),
            ("attack_code", codes),
            ("attack_confidence", confidence),
            ("attack_true", self.release.true_codes(self.secret, self.release.targets(rows))),
            ("abstained", abstained),
        ):
            self.columns[name].append(np.asarray(values))
        self.pairs += len(rows)
        if self.monitor.is_checkpoint(self.pairs):
            checkpoint = self.monitor.check(*self._measures())
            if checkpoint.halted:
                self.outcome = checkpoint

    def result(self, attack_name: str) -> AttackResult:
        if not self.done:
            raise RuntimeError("the scenario has not finished")
        predictions = self.predictions()
        attack_full = prc_at_full_recall(predictions["attack_correct"].to_numpy(), **self._full_recall_settings())
        base_full = prc_at_full_recall(predictions["base_correct"].to_numpy(), **self._full_recall_settings())
        return AttackResult(
            secret=self.secret,
            known=self.known,
            attack_name=attack_name,
            baseline=self.mode.value,
            model=self.source.model_name,
            expected_base_prc=self.source.expected_prc,
            halt_code=self.outcome.halt_code.value,
            base=self.outcome.base,
            attack=self.outcome.attack,
            alc=self.outcome.alc,
            attack_full_recall=attack_full,
            alc_full_recall=alc(base_full.prc, attack_full.prc, abs_weight=self.measure.abs_weight),
            pairs=self.pairs,
            abstentions=int(predictions["abstained"].sum()),
            recall_basis=self.recall_basis,
            seconds=time.perf_counter() - self.started,
            seed=self.seed,
            predictions=predictions,
        )

    def predictions(self) -> pd.DataFrame:
        data = {name: np.concatenate(parts) if parts else np.empty(0) for name, parts in self.columns.items()}
        frame = pd.DataFrame(data)
        frame["base_correct"] = frame["base_code"] == frame["base_true"]
        frame["attack_correct"] = frame["attack_code"] == frame["attack_true"]
        return frame

    def _measures(self):
        frame = {name: np.concatenate(parts) for name, parts in self.columns.items()}
        return (
            frame["base_code"] == frame["base_true"],
            frame["base_confidence"],
            frame["attack_code"] == frame["attack_true"],
            frame["attack_confidence"],
        )

    def _finish(self) -> None:
        if self.pairs == 0:
            raise ScenarioError(f"secret {self.secret!r}: no targets to attack")
        self.outcome = self.monitor.finish(*self._measures())

    def _full_recall_settings(self) -> dict:
        m = self.measure
        return dict(confidence_level=m.confidence_level, rmin=m.rmin, alpha=m.alpha, recall_scale=m.recall_scale)

    def _target_order(self, targets, seed: int):
        rng = np.random.default_rng(seed)
        population = self.release.original.n_rows
        if targets is None:
            return rng.permutation(population), "random", 1.0
        if isinstance(targets, dict):
            targets = TargetSelector.model_validate(targets)
        if isinstance(targets, TargetSelector):
            rows = select_rows(self.release, targets)
            basis = RecallBasis(targets.recall_basis)
            return rng.permutation(rows), basis.value, pretargeted_scale(len(rows), population, basis)
        rows = np.unique(np.asarray(targets, dtype=np.int64))
        if rows.size == 0 or rows.min() < 0 or rows.max() >= population:
            raise ScenarioError(f"targets: row indices must lie in [0, {population}); got {len(rows)} rows")
        return rng.permutation(rows), "random", 1.0

    def _baseline_source(self, settings, attack, swap_fraction, client):
        if self.mode is BaselineMode.ML:
            return MlBaseline(self.release, self.secret, self.known, settings, self.measure, self.seed)
        if self.mode is BaselineMode.PRIOR:
            return PriorBaseline(self.release, self.secret, self.known, attack or build_attack("best_row_match"), swap_fraction, self.seed)
        return ControlBaseline(self.release, self.secret, self.known, attack or build_attack("best_row_match"), self.seed, client)


def _mode(baseline: str) -> BaselineMode:
    try:
        return BaselineMode(baseline)
    except ValueError:
        raise ScenarioError(f"baseline must be one of {[m.value for m in BaselineMode]}; got {baseline!r}") from None


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
    """Run one scenario: ``attack`` (a registered name) on ``release`` for ``secret`` given ``known``.

    ``baseline`` is ``"ml"`` (models on the original minus the targets), ``"prior"`` (the attack on a
    swapped copy of the original; recall 1) or ``"control"`` (the attack on the control table).
    ``targets``: None for all original rows in a seeded random order, a ``TargetSelector`` (or its
    dict form) for a pre-targeted group, or row indices. Further keywords: ``halting``
    (``HaltingRules``), ``measure`` (``MeasureSettings``), ``baseline_settings``, ``swap_fraction``.
    """
    attacker = build_attack(attack, **(attack_params or {}))
    run = ScenarioRun(release, secret, known, baseline=baseline, targets=targets, seed=seed, attack=attacker, client=client, **settings)
    while (rows := run.next_targets(batch_size)).size:
        run.record(attacker.predict(release, secret, known, rows, client=client))
    return run.result(attack)


@dataclass(frozen=True)
class Target:
    """One target handed to a custom attack: its original row and the values of the known columns."""

    row: int
    known: dict


class AttackLoop:
    """The paper's attack loop for attacks of your own.

    ::

        loop = AttackLoop(release, secret="income", known=["age", "zip"], baseline="ml", seed=0)
        for target in loop:
            guess, score = my_guess(target.known)        # your attack
            if guess is None:
                loop.abstain()
            else:
                loop.predict(guess, confidence=score)    # a secret value and a rank score
        result = loop.result()                           # an AttackResult, as run_attack gives

    The loop makes the baseline prediction for each target, pairs it with yours and stops when the
    halting rules say the ALC is known well enough.
    """

    def __init__(self, release: Release, secret: str, known: Sequence[str], *, name: str = "custom", **options):
        self.release, self.secret, self.known, self.name = release, secret, list(known), name
        self._run = ScenarioRun(release, secret, known, **options)
        self._codes = release.secret_codes(secret)
        self._known_columns = {column: column_values(release, column) for column in self.known}
        self._current: Target | None = None

    def __iter__(self) -> Iterator[Target]:
        while (rows := self._run.next_targets(1)).size:
            row = int(rows[0])
            self._current = Target(row, {column: values[row] for column, values in self._known_columns.items()})
            yield self._current
            if self._current is not None:
                raise RuntimeError("call predict() or abstain() for every target")

    def predict(self, value, confidence: float) -> None:
        """Predict ``value`` (a secret value, a number for a continuous secret) with a rank score."""
        code = self._encode(value)
        self._record(Predictions(np.array([code], np.int32), np.array([float(confidence)]), np.array([False])))

    def abstain(self) -> None:
        self._record(Predictions(np.array([ABSTAINED], np.int32), np.zeros(1), np.array([True])))

    def result(self) -> AttackResult:
        return self._run.result(self.name)

    def _record(self, predictions: Predictions) -> None:
        if self._current is None:
            raise RuntimeError("no target is waiting for a prediction")
        self._current = None
        self._run.record(predictions)

    def _encode(self, value) -> int:
        encoded = self._codes.encode(pd.Series([value]) if hasattr(self._codes, "values") else np.array([float(value)]))
        return int(encoded[0])
