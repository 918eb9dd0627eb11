"""Recall of an attack, for random targets and for pre-targeted ones (Francis & Wagner 2025, §3.5, eq. 3–5)."""

from enum import StrEnum

from alc_dask.shown import shown


class RecallBasis(StrEnum):
    """What a pre-targeted attack's recall is relative to: the whole ``population`` (an attack on
    a small group has small recall however much of the group it covers) or the ``pretargeted`` group.

    Examples
    --------
    >>> from alc_dask.measure import RecallBasis
    >>> RecallBasis("population") is RecallBasis.POPULATION
    True
    """

    POPULATION = "population"
    PRETARGETED = "pretargeted"


def _check_counts(predictions: int, attempts: int) -> None:
    if attempts <= 0:
        raise ValueError(f"attempts must be positive; got {shown(attempts)}")
    if not 0 <= predictions <= attempts:
        raise ValueError(f"predictions must lie in [0, attempts={attempts}]; got {shown(predictions)}")


def recall_random(predictions: int, attempts: int) -> float:
    """Share of randomly chosen targets the attacker made a prediction for.

    Parameters
    ----------
    predictions : int
        Targets predicted for, in [0, attempts].
    attempts : int
        Targets attacked; positive.

    Returns
    -------
    float
        ``predictions / attempts``.

    Raises
    ------
    ValueError
        Counts out of range.

    Examples
    --------
    >>> from alc_dask.measure import recall_random
    >>> recall_random(30, 100)
    0.3
    """
    _check_counts(predictions, attempts)
    return predictions / attempts


def pretargeted_scale(pretargeted: int, population: int, basis: RecallBasis | str) -> float:
    """Factor turning recall within the pre-targeted set into recall of the chosen basis.

    Parameters
    ----------
    pretargeted : int
        People in the pre-targeted group, in [1, population].
    population : int
        People in the population; positive.
    basis : RecallBasis or str
        ``"population"`` or ``"pretargeted"``.

    Returns
    -------
    float
        ``pretargeted / population`` relative to the population, 1 relative to the group.

    Raises
    ------
    ValueError
        Counts out of range, or an unknown basis.

    Examples
    --------
    >>> from alc_dask.measure import pretargeted_scale
    >>> pretargeted_scale(50, 1000, "population"), pretargeted_scale(50, 1000, "pretargeted")
    (0.05, 1.0)
    """
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

    Parameters
    ----------
    predictions, attempts : int
        Targets of the group predicted for, and attacked.
    pretargeted, population : int
        The group's size and the population's.
    basis : RecallBasis or str, default "population"
        What the recall is relative to.

    Returns
    -------
    float
        ``predictions / attempts`` times `pretargeted_scale`.

    Raises
    ------
    ValueError
        Counts out of range, or an unknown basis.

    Examples
    --------
    Every one of a group of 50 in 1000 predicted for is a recall of 5% of the population:

    >>> from alc_dask.measure import recall_pretargeted
    >>> recall_pretargeted(50, 50, 50, 1000)
    0.05
    """
    _check_counts(predictions, attempts)
    return predictions / attempts * pretargeted_scale(pretargeted, population, basis)
