"""Score a table of base and attack predictions made elsewhere: best PRCs, ALC, risk label.

For custodians who already ran their own attack: one row per prediction with ``kind`` (``base`` or
``attack``), ``correct`` and ``confidence`` is all the ALC needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from alc_dask.errors import InputError
from alc_dask.measure import MeasureSettings, PrcResult, alc, prc_at_full_recall, risk_label
from alc_dask.shown import shown

if TYPE_CHECKING:
    import pandas as pd

REQUIRED_COLUMNS = ("kind", "correct", "confidence")
KINDS = ("base", "attack")


class PredictionsError(InputError, ValueError):
    """A predictions file cannot be scored: the message names the file and the column at fault."""


@dataclass(frozen=True)
class Score:
    """The best base and attack measures (chosen independently), their ALC, and the recall-1 view."""

    base: PrcResult
    attack: PrcResult
    alc: float
    risk: str
    base_full_recall: PrcResult
    attack_full_recall: PrcResult
    alc_full_recall: float


def score_predictions(
    predictions: pd.DataFrame, *, max_interval: float = 0.1, measure: MeasureSettings = MeasureSettings(), source: str = "predictions"
) -> Score:
    """Measure base and attack predictions; errors name ``source`` and the column at fault."""
    missing = [column for column in REQUIRED_COLUMNS if column not in predictions.columns]
    if missing:
        raise PredictionsError(f"{source}: missing column(s) {missing}; expected {list(REQUIRED_COLUMNS)}")
    kinds = predictions["kind"].astype("string").str.strip().str.lower()
    unknown = sorted(set(kinds.dropna()) - set(KINDS))
    if unknown or kinds.isna().any():
        raise PredictionsError(f"{source}: column 'kind' must hold only {KINDS}; found {unknown or ['<missing>']}")
    measured = {}
    for kind in KINDS:
        rows = predictions[kinds == kind]
        if rows.empty:
            raise PredictionsError(f"{source}: no rows with kind '{kind}'")
        try:
            measured[kind] = _measure_side(rows, max_interval, measure)
        except (ValueError, TypeError) as error:
            raise PredictionsError(f"{source}: rows of kind '{kind}': {error}") from error
    (base, base_full), (attack, attack_full) = measured["base"], measured["attack"]
    loss = alc(base.prc, attack.prc, abs_weight=measure.abs_weight)
    return Score(
        base=base,
        attack=attack,
        alc=loss,
        risk=risk_label(loss),
        base_full_recall=base_full,
        attack_full_recall=attack_full,
        alc_full_recall=alc(base_full.prc, attack_full.prc, abs_weight=measure.abs_weight),
    )


def _measure_side(rows: pd.DataFrame, max_interval: float, measure: MeasureSettings) -> tuple[PrcResult, PrcResult]:
    correct = _correctness(rows["correct"])
    confidence = rows["confidence"].astype(float).to_numpy()
    full = prc_at_full_recall(correct, confidence_level=measure.confidence_level, rmin=measure.rmin, alpha=measure.alpha)
    return measure.best_prc(correct, confidence, max_interval), full


def _correctness(column: pd.Series):
    if column.dtype == bool:
        return column.to_numpy()
    text = column.astype("string").str.strip().str.lower()
    mapped = text.map({"true": True, "false": False, "1": True, "0": False, "1.0": True, "0.0": False})
    if mapped.isna().any():
        bad = column[mapped.isna()].iloc[0]
        raise ValueError(f"column 'correct' must hold true/false or 1/0; found {shown(bad)}")
    return mapped.astype(bool).to_numpy()
