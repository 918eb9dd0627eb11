"""The outcome of one ALC scenario, as its measures row and its predictions."""

import json
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from alc_dask.measure import MatchedCoverage, PrcResult, Tolerance


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
    baseline_note: str | None
    """How the baseline's block fits were kept within their budget (``baseline.budget``), if they had to be."""
    halt_code: str
    base: PrcResult
    attack: PrcResult
    alc: float
    floor_prc: float
    """The PRC of always guessing the secret's most common value on the base side's targets: the base's PRC is never below it."""
    attack_full_recall: PrcResult
    alc_full_recall: float
    matched: MatchedCoverage
    """Precision improvement over the baseline on exactly the targets the attack predicted for."""
    tolerance: Tolerance | None
    """How a continuous secret's numbers were scored, when they were (else by their bins)."""
    pairs: int
    abstentions: int
    recall_basis: str
    seconds: float
    seed: int
    columns: dict[str, np.ndarray] = field(repr=False)
    """Every pair made, column by column (``PairLog.columns``): the engine writes them as they are."""

    @property
    def predictions(self) -> pd.DataFrame:
        """Every pair made, one row each, for reading in Python."""
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
            "recall_basis": self.recall_basis,
            "tolerance": json.dumps(asdict(self.tolerance), separators=(",", ":")) if self.tolerance else None,
            "seconds": self.seconds,
            "seed": self.seed,
        }

    def to_frame(self) -> pd.DataFrame:
        """One row of scores (no predictions), ready to be written or concatenated."""
        return pd.DataFrame([self.measures()])
