"""When to stop attacking: the reference implementation's halting rules as a small state machine
(Francis & Wagner 2025, §5.1, give their idea; the reference's thresholds are the defaults).

Attacks are expensive, so a scenario stops as soon as its ALC is known well enough: at once when
even loose intervals put it far from the decision thresholds, or when neither the base nor the
attack PRC improves any more. Every threshold is a field of :class:`HaltingRules`.

The reference's rules can stop on an ALC nothing has settled: a baseline and an attack both right
for 150 targets out of 150 give an interval from far below 0 to 1. With ``settle_at`` (the verdict's
threshold) a stop the rules call for waits until the verdict's interval
(``alc_dask.measure.sequential``) lies wholly on one side of it at one of the verdict's looks, or
until no attack could put it past the threshold with the targets there are; the targets or the
budget (``max_pairs``) running out stops it in any case.
"""

from dataclasses import dataclass, replace
from enum import StrEnum

from alc_dask.measure._checks import check_count, check_number, check_order
from alc_dask.measure.best import MeasureSettings, PrcResult
from alc_dask.measure.coefficient import alc as alc_of
from alc_dask.measure.sequential import FIRST_LOOK, Cut, PrcShape, alc_interval, best_provable_alc, next_look


class HaltCode(StrEnum):
    """Why a scenario stopped: its ALC far above or below the thresholds already by loose or tight
    intervals, neither side improving any more, the baseline close to its expected PRC, or out of targets.

    Examples
    --------
    >>> from alc_dask.measure import HaltCode
    >>> HaltCode("exhausted") is HaltCode.EXHAUSTED
    True
    """

    EARLY_HIGH_LOOSE = "early_high_loose"
    EARLY_LOW_LOOSE = "early_low_loose"
    EARLY_LOW_TIGHT = "early_low_tight"
    EARLY_HIGH_TIGHT = "early_high_tight"
    DIMINISHING_RETURNS = "diminishing_returns"
    CLOSE_TO_EXPECTED = "close_to_expected"
    EXHAUSTED = "exhausted"
    BUDGET = "budget"


@dataclass(frozen=True)
class HaltingRules:
    """Every threshold of the halting rules; the defaults are the reference implementation's.

    Parameters
    ----------
    min_pairs, check_every : int
        The first check after ``min_pairs`` pairs, then one every ``check_every``.
    tight_interval, loose_interval : float
        The widest Wilson interval of a measure for a tight check, and for a loose one (used while
        no tight measure exists), in (0, 1]; tight at most loose.
    loose_high_alc, loose_low_alc : float
        Halt when the optimistic ALC from loose intervals is above the first, or the pessimistic
        one below the second.
    tight_low_alc, tight_high_alc : float
        Halt when the ALC of tight measures is below the first or above the second.
    min_progress, progress_share : float
        A side progresses when its PRC gains at least ``max(min_progress, progress_share · (1 − PRC))``.
    diminishing_alc : float
        Below this ALC, a check where neither side progresses halts.
    expected_split_alc, expected_loose_closeness, expected_tight_closeness : float
        Above ``diminishing_alc``, a stalled ML baseline halts once within the loose closeness of
        its expected PRC (the tight one from ``expected_split_alc`` on).
    settle_at : float or None
        The ALC threshold the verdict judges against (0.5, the ALC's "at risk", Francis & Wagner
        2025, §6.1): a stop the rules above call for waits for the verdict's interval to settle
        against it (see the module's docstring). None: the rules alone, as the reference
        implementation (and the paper's experiment) halts.
    max_pairs : int or None
        Pairs at most, a budget: the scenario then ends with the code ``budget``. None: no budget.

    Raises
    ------
    SettingError
        A value out of range or bounds out of order, naming the field.

    Examples
    --------
    >>> from alc_dask.measure import HaltingRules
    >>> HaltingRules(check_every=100).min_pairs
    50
    >>> HaltingRules(tight_interval=0.3)
    Traceback (most recent call last):
    ...
    alc_dask.measure._checks.SettingError: loose_interval must be at least tight_interval (0.3); got 0.25
    """

    min_pairs: int = 50
    check_every: int = 50
    tight_interval: float = 0.1
    loose_interval: float = 0.25
    loose_high_alc: float = 0.9
    loose_low_alc: float = 0.0
    tight_low_alc: float = 0.0
    tight_high_alc: float = 0.98
    min_progress: float = 0.01
    progress_share: float = 0.05
    diminishing_alc: float = 0.5
    expected_split_alc: float = 0.75
    expected_loose_closeness: float = 0.05
    expected_tight_closeness: float = 0.01
    settle_at: float | None = 0.5
    max_pairs: int | None = None

    def __post_init__(self):
        """Refuse rules that cannot be applied; a ``SettingError`` names the field and the value."""
        check_count("min_pairs", self.min_pairs)
        check_count("check_every", self.check_every)
        for name in ("tight_interval", "loose_interval"):  # Wilson intervals are at most 1 wide
            check_number(name, getattr(self, name), 0.0, 1.0, open_low=True)
        check_order("tight_interval", self.tight_interval, "loose_interval", self.loose_interval)
        for name in _ALC_THRESHOLDS:  # an ALC is at most 1; 1 disables a "higher than" rule
            check_number(name, getattr(self, name), high=1.0)
        check_order("loose_low_alc", self.loose_low_alc, "loose_high_alc", self.loose_high_alc)
        check_order("tight_low_alc", self.tight_low_alc, "tight_high_alc", self.tight_high_alc)
        for name in ("min_progress", "progress_share", "expected_loose_closeness", "expected_tight_closeness"):
            check_number(name, getattr(self, name), 0.0, 1.0)
        if self.settle_at is not None:
            check_number("settle_at", self.settle_at, high=1.0)
        if self.max_pairs is not None:
            check_count("max_pairs", self.max_pairs)


_ALC_THRESHOLDS = ("loose_high_alc", "loose_low_alc", "tight_low_alc", "tight_high_alc", "diminishing_alc", "expected_split_alc")


@dataclass(frozen=True)
class Checkpoint:
    """What one check saw: the measures it used, their ALC, and whether (and why) to halt.

    Attributes
    ----------
    pairs : int
        Pairs of base and attack predictions measured.
    halt_code : HaltCode or None
        Why to halt; None: go on.
    base, attack : PrcResult
        The measures the check used.
    alc : float
        Their ALC.
    tight : bool
        Whether both measures come from tight-interval cuts.
    alc_early_high, alc_early_low : float
        The optimistic and pessimistic ALCs from the loose intervals (NaN unless used).

    Examples
    --------
    >>> from alc_dask.measure import HaltingMonitor
    >>> checkpoint = HaltingMonitor().check([True, False] * 50, [1.0] * 100, [True] * 100, [1.0] * 100)
    >>> checkpoint.halted, checkpoint.halt_code, checkpoint.tight
    (True, <HaltCode.EARLY_HIGH_LOOSE: 'early_high_loose'>, False)
    """

    pairs: int
    halt_code: HaltCode | None
    base: PrcResult
    attack: PrcResult
    alc: float
    tight: bool
    alc_early_high: float = float("nan")
    alc_early_low: float = float("nan")

    @property
    def halted(self) -> bool:
        """Whether the scenario halts here."""
        return self.halt_code is not None


class HaltingMonitor:
    """Checks paired base/attack predictions every ``check_every`` pairs and decides when to halt.

    Attacks are expensive: a scenario stops as soon as its ALC is known well enough. The monitor
    keeps the best tight base and attack measures seen so far (chosen independently), which are
    the scenario's result when it halts for diminishing returns or runs out of targets.

    Parameters
    ----------
    rules : HaltingRules, optional
        The thresholds (default: the reference implementation's).
    expected_base_prc : float or None, optional
        The PRC the ML baseline's model selection promised; None for baselines that promise none
        (prior, control), which then halt on any stall.
    measure : MeasureSettings, optional
        How each PRC is measured.
    available : int or None, optional
        Targets the scenario can attack at most (the budget included): with ``rules.settle_at``,
        what decides whether an interval could still settle. None: as many as it takes.

    Examples
    --------
    A sure attack against a coin-flip baseline: after 100 pairs even loose intervals put the ALC
    above 0.9.

    >>> from alc_dask.measure import HaltingMonitor
    >>> monitor = HaltingMonitor()
    >>> base, attack, sure = [True, False] * 50, [True] * 100, [1.0] * 100
    >>> monitor.is_checkpoint(100)
    True
    >>> checkpoint = monitor.check(base, sure, attack, sure)
    >>> checkpoint.halt_code, round(checkpoint.alc_early_high, 3)
    (<HaltCode.EARLY_HIGH_LOOSE: 'early_high_loose'>, 0.908)
    """

    def __init__(
        self,
        rules: HaltingRules = HaltingRules(),
        *,
        expected_base_prc: float | None = None,
        measure: MeasureSettings = MeasureSettings(),
        available: int | None = None,
    ):
        self.rules = rules
        self.expected_base_prc = expected_base_prc
        self.measure = measure
        self.available = available
        self.best_base_: PrcResult | None = None
        self.best_attack_: PrcResult | None = None
        self.called_halt_: HaltCode | None = None
        self.latest_: Checkpoint | None = None
        self.next_look_ = FIRST_LOOK

    def is_checkpoint(self, pairs: int) -> bool:
        """Whether the rules check after ``pairs`` pairs."""
        return pairs >= self.rules.min_pairs and (pairs - self.rules.min_pairs) % self.rules.check_every == 0

    def check(self, base_correct, base_confidence, attack_correct, attack_confidence) -> Checkpoint:
        """Measure all pairs so far and apply the rules in the reference implementation's order.

        Parameters
        ----------
        base_correct, base_confidence, attack_correct, attack_confidence : array_like
            Every pair so far: whether each side was right, and its rank score.

        Returns
        -------
        Checkpoint
            The measures used, their ALC and whether to halt.

        Raises
        ------
        ValueError
            Base and attack predictions not in pairs, or inputs `best_prc` refuses.
        """
        checkpoint = self._reference_check(base_correct, base_confidence, attack_correct, attack_confidence)
        return checkpoint if self.rules.settle_at is None else self._settled_check(checkpoint)

    def _settled_check(self, checkpoint: Checkpoint) -> Checkpoint:
        """A stop the reference's rules call for (now or at an earlier check), taken at the
        verdict's next look where its interval has settled or never can; else go on. What it
        reports are the measures over every pair so far (``latest_``), not the best of earlier
        checks: a lucky early cut of few pairs would leave the interval as wide as it was then."""
        self.called_halt_ = checkpoint.halt_code or self.called_halt_
        latest, looking = self.latest_, checkpoint.pairs >= self.next_look_
        if looking:  # the first check at or past a look (every check is one with the default rules)
            self.next_look_ = next_look(checkpoint.pairs)
        if self.called_halt_ is None or not looking or not self._decided(latest):
            return replace(checkpoint, halt_code=None)
        return replace(latest, halt_code=self.called_halt_)

    def _decided(self, checkpoint: Checkpoint) -> bool:
        """Whether the verdict's interval lies wholly on one side of ``settle_at``, or no attack
        could put its lower end there with the targets available."""
        shape = PrcShape(self.measure.rmin, self.measure.alpha, self.measure.abs_weight)
        base, attack = cut_of(checkpoint.base), cut_of(checkpoint.attack)
        low, high = alc_interval(base, attack, checkpoint.pairs, self.measure.confidence_level, shape)
        threshold = self.rules.settle_at
        if low >= threshold or high < threshold:
            return True
        return self.available is not None and best_provable_alc(base, checkpoint.pairs, self.available, self.measure.confidence_level, shape) < threshold

    def _reference_check(self, base_correct, base_confidence, attack_correct, attack_confidence) -> Checkpoint:
        pairs = self._pairs(base_correct, attack_correct)
        rules = self.rules
        base = self.measure.best_prc(base_correct, base_confidence, rules.tight_interval)
        attack = self.measure.best_prc(attack_correct, attack_confidence, rules.tight_interval)
        if not (base.found and attack.found):
            return self._loose_check(pairs, base_correct, base_confidence, attack_correct, attack_confidence)

        now = self._alc(base, attack)
        self.latest_ = Checkpoint(pairs, None, base, attack, now, tight=True)
        if now < rules.tight_low_alc:
            return Checkpoint(pairs, HaltCode.EARLY_LOW_TIGHT, base, attack, now, tight=True)
        if now > rules.tight_high_alc:
            return Checkpoint(pairs, HaltCode.EARLY_HIGH_TIGHT, base, attack, now, tight=True)

        if self.best_base_ is None:
            self.best_base_, self.best_attack_ = base, attack
            return Checkpoint(pairs, None, base, attack, now, tight=True)
        base_progress = self._progressed(base, self.best_base_)
        attack_progress = self._progressed(attack, self.best_attack_)
        self._keep_best(base, attack)
        if base_progress or attack_progress:
            return Checkpoint(pairs, None, base, attack, now, tight=True)
        return self._stalled(pairs)

    def finish(self, base_correct, base_confidence, attack_correct, attack_confidence, code: HaltCode = HaltCode.EXHAUSTED) -> Checkpoint:
        """Out of targets (or of budget: ``code``): the best measures over everything seen, tight
        where possible, else loose.

        Takes the same arguments as `check`, and the checkpoint's code (``EXHAUSTED`` by default).
        """
        pairs = self._pairs(base_correct, attack_correct)
        tight_base = self.measure.best_prc(base_correct, base_confidence, self.rules.tight_interval)
        tight_attack = self.measure.best_prc(attack_correct, attack_confidence, self.rules.tight_interval)
        if self.rules.settle_at is not None:  # as `_settled_check` reports: every pair's measures
            if tight_base.found and tight_attack.found:
                return Checkpoint(pairs, code, tight_base, tight_attack, self._alc(tight_base, tight_attack), tight=True)
            base = self.measure.best_prc(base_correct, base_confidence, self.rules.loose_interval)
            attack = self.measure.best_prc(attack_correct, attack_confidence, self.rules.loose_interval)
            return Checkpoint(pairs, code, base, attack, self._alc(base, attack), tight=False)
        if tight_base.found and tight_attack.found:
            if self.best_base_ is None:
                self.best_base_, self.best_attack_ = tight_base, tight_attack
            self._keep_best(tight_base, tight_attack)
        if self.best_base_ is not None:
            base, attack, tight = self.best_base_, self.best_attack_, True
        else:
            base = self.measure.best_prc(base_correct, base_confidence, self.rules.loose_interval)
            attack = self.measure.best_prc(attack_correct, attack_confidence, self.rules.loose_interval)
            tight = False
        return Checkpoint(pairs, code, base, attack, self._alc(base, attack), tight=tight)

    def _loose_check(self, pairs, base_correct, base_confidence, attack_correct, attack_confidence) -> Checkpoint:
        rules = self.rules
        base = self.measure.best_prc(base_correct, base_confidence, rules.loose_interval)
        attack = self.measure.best_prc(attack_correct, attack_confidence, rules.loose_interval)
        self.latest_ = Checkpoint(pairs, None, base, attack, self._alc(base, attack), tight=False)
        if not (base.found and attack.found):
            return self.latest_
        prc = self.measure.prc
        early_high = self._alc_of_prcs(prc(base.interval_high, base.recall), prc(attack.interval_low, attack.recall))
        early_low = self._alc_of_prcs(prc(base.interval_low, base.recall), prc(attack.interval_high, attack.recall))
        code = None
        if early_high > rules.loose_high_alc:
            code = HaltCode.EARLY_HIGH_LOOSE
        elif early_low < rules.loose_low_alc:
            code = HaltCode.EARLY_LOW_LOOSE
        self.latest_ = replace(self.latest_, alc_early_high=early_high, alc_early_low=early_low)
        return replace(self.latest_, halt_code=code)

    def _stalled(self, pairs: int) -> Checkpoint:
        """Neither side improves: halt unless the ALC is high and the base is still short of expectation.

        A baseline without an expected PRC (prior, control: no model selection promised more) has
        nothing left to catch up with, so a stall halts it whatever the ALC; waiting for an
        expectation that never comes ran such scenarios through every target (30 000 pairs).
        """
        rules = self.rules
        base, attack = self.best_base_, self.best_attack_
        best_alc = self._alc(base, attack)
        code = None
        if best_alc < rules.diminishing_alc or self.expected_base_prc is None:
            code = HaltCode.DIMINISHING_RETURNS
        else:
            closeness = rules.expected_loose_closeness if best_alc < rules.expected_split_alc else rules.expected_tight_closeness
            if self.expected_base_prc - base.prc < closeness:
                code = HaltCode.CLOSE_TO_EXPECTED
        return Checkpoint(pairs, code, base, attack, best_alc, tight=True)

    def _progressed(self, now: PrcResult, best: PrcResult) -> bool:
        needed = max(self.rules.min_progress, self.rules.progress_share * (1.0 - best.prc))
        return now.prc - best.prc >= needed

    def _keep_best(self, base: PrcResult, attack: PrcResult) -> None:
        if base.prc > self.best_base_.prc:
            self.best_base_ = base
        if attack.prc > self.best_attack_.prc:
            self.best_attack_ = attack

    def _alc(self, base: PrcResult, attack: PrcResult) -> float:
        return self._alc_of_prcs(base.prc, attack.prc)

    def _alc_of_prcs(self, base_prc: float, attack_prc: float) -> float:
        return alc_of(base_prc, attack_prc, abs_weight=self.measure.abs_weight)

    @staticmethod
    def _pairs(base_correct, attack_correct) -> int:
        if len(base_correct) != len(attack_correct):
            raise ValueError(f"base and attack predictions must come in pairs; got {len(base_correct)} base and {len(attack_correct)} attack")
        return len(base_correct)


def cut_of(measure: PrcResult) -> Cut:
    """A precision/recall measure as the counts the verdict's interval is computed from."""
    return Cut(measure.n, measure.correct, measure.recall)
