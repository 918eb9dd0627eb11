"""The outcome of one ALC scenario, as its measures row and its predictions."""

import json
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from alc_dask.measure import MatchedCoverage, PrcResult, Tolerance


@dataclass(frozen=True)
class AttackResult:
    """A scenario's outcome (what `run_attack` and `AttackLoop.result` give): the best base and
    attack measures (chosen independently) and their ALC, the attack at recall 1 with its ALC, why
    it halted, and every prediction made.

    Attributes
    ----------
    secret, known, attack_name, baseline : str, tuple of str, str, str
        The scenario.
    model : str
        The baseline's model (chosen by PRC for ``baseline="ml"``).
    expected_base_prc : float or None
        The PRC the baseline's model selection promised.
    baseline_note : str or None
        How the baseline's block fits were kept within their budget, if they had to be.
    halt_code : str
        Why it stopped (a `HaltCode`).
    base, attack : PrcResult
        The best measures of the baseline and of the attack.
    alc : float
        Their ALC.
    floor_prc : float
        The PRC of always guessing the secret's most common value on the base side's targets:
        the base's PRC is never below it.
    attack_full_recall : PrcResult
        The attack with every prediction kept, and ``alc_full_recall`` its ALC.
    matched : MatchedCoverage
        Precision improvement over the baseline on exactly the targets the attack predicted for.
    tolerance : Tolerance or None
        How a continuous secret's numbers were scored, when they were (else by their bins).
    pairs, abstentions : int
        Pairs of predictions made, and the attack's abstentions among them.
    available_targets : int
        Targets the scenario could have attacked (the budget included): what decides whether its
        baseline left an attack room enough to show a loss.
    recall_basis : str
        What recall is relative to (a `RecallBasis`).
    seconds : float
        How long the scenario ran.
    seed : int
        The scenario's seed.
    columns : dict of numpy.ndarray
        Every pair made, column by column (see `predictions`).

    Examples
    --------
    >>> from alc_dask import run_attack
    >>> from alc_dask.testing.truth import truth_releases
    >>> result = run_attack(truth_releases(rows=500).release("copy"), "occupation", ["age", "sex", "region"], seed=0)
    >>> result.to_frame()[["secret", "attack", "halt_code"]]
           secret          attack         halt_code
    0  occupation  best_row_match  early_high_loose
    >>> len(result.predictions) == result.pairs
    True
    """

    secret: str
    known: tuple[str, ...]
    attack_name: str
    baseline: str
    model: str
    expected_base_prc: float | None
    baseline_note: str | None
    halt_code: str
    base: PrcResult
    attack: PrcResult
    alc: float
    floor_prc: float
    attack_full_recall: PrcResult
    alc_full_recall: float
    matched: MatchedCoverage
    tolerance: Tolerance | None
    pairs: int
    abstentions: int
    available_targets: int
    recall_basis: str
    seconds: float
    seed: int
    columns: dict[str, np.ndarray] = field(repr=False)

    @property
    def predictions(self) -> pd.DataFrame:
        """Every pair made, one row each: the target's row, each side's code, confidence, truth and
        correctness, and whether the attack abstained."""
        return pd.DataFrame(self.columns)

    def measures(self) -> dict:
        """The scenario's figures as one flat row (no predictions)."""
        return {
            "secret": self.secret,
            "known": list(self.known),
            "attack": self.attack_name,
            "baseline": self.baseline,
            "model": self.model,
            "expected_base_prc": self.expected_base_prc,
            "baseline_note": self.baseline_note,
            "halt_code": self.halt_code,
            "alc": self.alc,
            **self.base.to_dict("base_"),
            "floor_prc": self.floor_prc,
            **self.attack.to_dict("attack_"),
            "alc_full_recall": self.alc_full_recall,
            **self.attack_full_recall.to_dict("attack_full_recall_"),
            **self.matched.to_dict(),
            "pairs": self.pairs,
            "abstentions": self.abstentions,
            "available_targets": self.available_targets,
            "recall_basis": self.recall_basis,
            "tolerance": json.dumps(asdict(self.tolerance), separators=(",", ":")) if self.tolerance else None,
            "seconds": self.seconds,
            "seed": self.seed,
        }

    def to_frame(self) -> pd.DataFrame:
        """One row of scores (no predictions), ready to be written or concatenated."""
        return pd.DataFrame([self.measures()])
