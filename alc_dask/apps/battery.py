"""The default battery of ``alc-dask check`` and ``alc_dask.evaluate``: every evaluation the installed
families add for the inputs (``EvaluationFamily.battery``), as one job spec run by the normal engine.

The battery chooses once what every family shares, and why:

- **Secrets**: up to two categorical and two continuous columns (a continuous column is numeric
  with more than ``MAX_CATEGORIES`` distinct values): of each kind the informative ones whose most
  common value (a continuous column's most common of the 20 bins the ALC infers it by) the fewest
  people share, the later in column order on a tie (sensitive attributes usually follow the
  demographics a table starts with). A secret most people share is one a model guesses without the
  release (adult's sex from relationship, income from the rest), so an attack has little room to
  show what the release adds. A column is informative (`informative`) when it has two values or
  more, is not an identifier (a categorical column with a value of its own for nearly every row), and its most
  common value is held by at most ``MAX_MAJORITY`` of people (and leaves at least ``MIN_MINORITY``
  out): a secret nearly everyone shares leaves an attack little room to show a loss, so its
  evaluations need far more people to settle either way. Anonymeter's risk divides the members'
  excess success by what the control left to gain, ``1 − control``: at a control success of 0.9 its
  interval is ten times the rates' (±0.14 with 5 000 people each), and a release of other people
  cannot pass 0.09; at 0.8, ±0.07 (the calibration benchmark). Name such a secret in a job's
  scenarios to have it evaluated.
- **Quasi-identifiers**: up to four columns that are not secrets, the *first* in column order
  (age, sex, region and the like usually lead a table).
- **The population**: ``POPULATION_FACTOR`` times the original's rows (the release taken as a 10%
  sample of it), for identification and membership's skew.

What each family adds is its own (see each family's ``battery``). Without a control table, membership
and Anonymeter's three evaluators set the members against the original's other people
(``reference: original``); the families that need the control's people add nothing, and the
verdict says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from alc_dask.errors import OptionError
from alc_dask.families import family_names, get_family
from alc_dask.families.battery import BatteryTables, is_continuous
from alc_dask.families.registry import DEFAULT_FAMILY

SECRETS_PER_KIND = 2
QUASI_IDENTIFIERS = 4
POPULATION_FACTOR = 10
MIN_MINORITY = 20
"""People outside a secret's most common value below which the battery does not choose it."""
SECRET_BINS = 20
"""Uniform bins a continuous secret is inferred by (the data layer's ``Bins``)."""
MAX_MAJORITY = 0.8
"""The largest share of people holding a secret's most common value for the battery to choose it."""
IDENTIFIER_SHARE = 0.9
"""A categorical column with distinct values for more than this share of rows is an identifier, not a secret."""


def informative(column: pd.Series) -> bool:
    """Whether a column can be a secret an attack shows a loss on (see the module's docstring)."""
    values = column.dropna()
    distinct = values.nunique()
    if distinct < 2:
        return False
    if not is_continuous(column) and distinct > IDENTIFIER_SHARE * len(column):
        return False
    majority = int(column.value_counts(dropna=False).iloc[0])  # as the values are: a constant run of a continuous column counts
    return majority <= MAX_MAJORITY * len(column) and len(column) - majority >= MIN_MINORITY


def secrets_of(original: pd.DataFrame) -> list[str]:
    """The battery's secrets: of each kind, the ``SECRETS_PER_KIND`` informative columns whose most common value the fewest share, in column order."""
    candidates = [name for name in original.columns if informative(original[name])]
    continuous = [name for name in candidates if is_continuous(original[name])]
    categorical = [name for name in candidates if name not in continuous]
    chosen = set()
    for kind in (continuous, categorical):
        ranked = sorted(reversed(kind), key=lambda name: majority_share(original[name]))  # stable: later columns first on a tie
        chosen |= set(ranked[:SECRETS_PER_KIND])
    return [name for name in original.columns if name in chosen]


def majority_share(column: pd.Series) -> float:
    """The share of rows holding the most common value (of a continuous column, the most common of
    ``SECRET_BINS`` uniform bins between its extremes, as a secret is inferred)."""
    if is_continuous(column):
        numbers = column.astype(float)
        column = pd.cut(numbers, SECRET_BINS, labels=False) if numbers.max() > numbers.min() else numbers
    return float(column.value_counts(dropna=False).iloc[0]) / max(len(column), 1)


def quasi_identifiers_of(original: pd.DataFrame, secrets: Iterable[str]) -> list[str]:
    others = [name for name in original.columns if name not in set(secrets)]
    return others[:QUASI_IDENTIFIERS]


def battery_tables(
    original: pd.DataFrame, release: pd.DataFrame, has_control: bool, secrets: Iterable[str] | None = None, known: Iterable[str] | None = None
) -> BatteryTables:
    """The inputs with the battery's shared choices made (secrets the release holds too): the
    secrets and the quasi-identifiers named (``--secret``, ``--known``), else the battery's own."""
    chosen = list(secrets) if secrets is not None else secrets_of(original)
    chosen = [name for name in chosen if name in release.columns]
    quasi = [name for name in known if name not in chosen] if known is not None else quasi_identifiers_of(original, chosen)
    return BatteryTables(original, release, has_control, tuple(chosen), tuple(quasi), POPULATION_FACTOR * len(original))


def battery_entries(
    original: pd.DataFrame,
    release: pd.DataFrame,
    has_control: bool,
    families: Iterable[str] | None = None,
    secrets: Iterable[str] | None = None,
    known: Iterable[str] | None = None,
) -> list[dict]:
    """The job entries of every family in ``families`` (default: every installed family) for the inputs."""
    names = family_names()
    wanted = names if families is None else list(families)
    unknown = sorted(set(wanted) - set(names))
    if unknown:
        raise ValueError(f"families: {unknown} are not installed families; known: {names}")
    tables = battery_tables(original, release, has_control, secrets, known)
    return [entry for name in names if name in wanted for entry in get_family(name).battery(tables)]


def chosen_columns(original: pd.DataFrame, release: pd.DataFrame, secrets: Iterable[str] | None, known: Iterable[str] | None) -> None:
    """``OptionError`` naming the option unless every named secret is a column of the original and
    the release and every known column one of the release (a secret may not be known too)."""
    for option, names in (("secrets (--secret)", secrets), ("known (--known)", known)):
        for name in names or ():
            where = original if option.startswith("secrets") else release
            if name not in where.columns:
                table = "original table" if where is original else "release"
                raise OptionError(f"{option}: {name!r} is not a column of the {table}; it has {list(where.columns)}")
            if option.startswith("secrets") and name not in release.columns:
                raise OptionError(f"{option}: {name!r} is not a column of the release, so nothing of it can be inferred from the release")
    both = sorted(set(secrets or ()) & set(known or ()))
    if both:
        raise OptionError(f"known (--known): {both[0]!r} is also a secret; an attacker who knows it has nothing to infer")


def skipped_without_control(original: pd.DataFrame, release: pd.DataFrame) -> list[str]:
    """The families that would add evaluations with a control table and add none without: what a check without one leaves out."""
    without, with_control = (battery_tables(original, release, has) for has in (False, True))
    return [name for name in family_names() if get_family(name).battery(with_control) and not get_family(name).battery(without)]


def battery_job(
    original_path: str,
    release_path: str,
    control_path: str | None,
    output: str,
    entries: list[dict],
    seed: int = 0,
    kinds: dict[str, str] | None = None,
    name: str | None = None,
) -> dict:
    """The battery as a job spec (before ``validate_job``): the release (named ``name``, else after
    its file), its declared column kinds, its entries, and the job settings of the families the
    entries belong to (``EvaluationFamily.battery_settings``)."""
    release = {"name": name or Path(release_path).stem, "original": original_path, "anonymized": [release_path]}
    if control_path is not None:
        release["control"] = control_path
    if kinds:
        release["columns"] = dict(kinds)
    job = {"name": "check", "release": release, "scenarios": entries, "seed": seed, "output": output}
    for name in dict.fromkeys(entry.get("family", DEFAULT_FAMILY) for entry in entries):
        job |= get_family(name).battery_settings()
    return job
