"""Recall of an attack, for random targets and for pre-targeted ones (Francis & Wagner 2025, §3.5, eq. 3–5)."""

from enum import StrEnum

from alc_dask.shown import shown


class RecallBasis(StrEnum):
    """What a pre-targeted attack's recall is relative to."""

    POPULATION = "population"
    PRETARGETED = "pretargeted"


def _check_counts(predictions: int, attempts: int) -> None:
    if attempts <= 0:
        raise ValueError(f"attempts must be positive; got {shown(attempts)}")
    if not 0 <= predictions <= attempts:
        raise ValueError(f"predictions must lie in [0, attempts={attempts}]; got {shown(predictions)}")


def recall_random(predictions: int, attempts: int) -> float:
    """Share of randomly chosen targets the attacker made a prediction for."""
    _check_counts(predictions, attempts)
    return predictions / attempts


def pretargeted_scale(pretargeted: int, population: int, basis: RecallBasis | str) -> float:
    """Factor turning recall within the pre-targeted set into recall of the chosen basis."""
    basis = RecallBasis(basis)
    if population <= 0:
        raise ValueError(f"population must be positive; got {shown(population)}")
    if not 0 < pretargeted <= population:
        raise ValueError(f"pretargeted must lie in [1, population={population}]; got {shown(pretargeted)}")
    return pretargeted / population if basis is RecallBasis.POPULATION else 1.0


def recall_pretargeted(predictions: int, attempts: int, pretargeted: int, population: int, basis: RecallBasis | str = RecallBasis.POPULATION) -> float:
    """Recall of an attack on targets selected in advance (e.g. rare attribute values).

    Relative to the whole population, an attack that only covers a small pre-targeted group has
    small recall even if it predicts for every member of the group.
    """
    _check_counts(predictions, attempts)
    return predictions / attempts * pretargeted_scale(pretargeted, population, basis)
