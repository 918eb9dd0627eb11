"""The identification family's section: per quasi-identifier set, the fitted scaling law and its
forecasts at the population with their intervals, and a figure of measured correctness and the
forecast curve.

Shares are shown to three significant digits: at population scale a forecast is often a fraction
of a percent, which the report's usual three decimals would show as 0."""

import json

import numpy as np
import pandas as pd

from alc_dask.families.identification.plots import correctness_forecasts
from alc_dask.families.presentation import Section, verdict_labels
from alc_dask.measure.pitman_yor import PitmanYor

CORRECTNESS = [
    "release",
    "scenario_id",
    "quasi_identifiers",
    "n_rows",
    "population",
    "fit_method",
    "h",
    "gamma",
    "kappa_table",
    "kappa_table_fitted",
    "kappa_population",
    "kappa_population_low",
    "kappa_population_high",
    "label",
    "warning",
]
EXPOSURE = [
    "release",
    "scenario_id",
    "quasi_identifiers",
    "fit_method",
    "uniqueness_table",
    "uniqueness_population",
    "uniqueness_population_low",
    "uniqueness_population_high",
    "k",
    "k_violations_table",
    "k_violations_population",
    "k_violations_population_low",
    "k_violations_population_high",
]
SHARES = [c for c in CORRECTNESS + EXPOSURE if c.startswith(("kappa_", "uniqueness_", "k_violations_"))]


def section(family: str, scores: pd.DataFrame) -> Section:
    ranked = scores.sort_values(["kappa_population", "scenario_id"], ascending=[False, True]).reset_index(drop=True)
    from alc_dask.families import get_family

    table = ranked.assign(label=verdict_labels(get_family(family), ranked)).reindex(columns=list(dict.fromkeys(CORRECTNESS + EXPOSURE)))
    table = table.assign(quasi_identifiers=[", ".join(json.loads(q)) for q in ranked["quasi_identifiers"]])
    table[["n_rows", "population", "k"]] = table[["n_rows", "population", "k"]].astype("Int64")
    table[SHARES] = table[SHARES].map(_significant)
    labels = _labels(ranked, table["quasi_identifiers"])
    curves = {}
    for row, label in zip(ranked.itertuples(), labels):
        grid = np.geomspace(1, row.population, 200)
        fitted = PitmanYor.of_entropy(row.h, row.gamma).correctness(grid) if np.isfinite(row.h) else np.full(len(grid), np.nan)
        forecast = (row.kappa_population, row.kappa_population_low, row.kappa_population_high)
        curves[label] = (np.asarray(row.curve_sizes), np.asarray(row.curve_kappa), grid, fitted, row.population, forecast)
    notes = tuple(_in_words(label, row) for row, label in zip(ranked.itertuples(), labels))
    if ranked["warning"].notna().any():
        notes += (f"{int(ranked['warning'].notna().sum())} evaluation(s) carry a warning: read it before trusting their forecast.",)
    return Section(
        "Identification at population scale",
        {
            "Quasi-identifier sets by forecast correctness": table[CORRECTNESS],
            "Uniqueness and k-anonymity violations, in the table and forecast at the population": table[EXPOSURE],
        },
        {"Identification: correctness forecast": correctness_forecasts(curves)},
        notes,
    )


def _labels(ranked: pd.DataFrame, quasi: pd.Series) -> list[str]:
    """The quasi-identifiers, with the release, the fit method and whether γ < 0 was allowed when
    these differ, and the scenario id when that is still not enough (the figure keys its curves by
    label: two alike would draw one)."""
    negative = [bool(json.loads(p).get("allow_negative_gamma")) if isinstance(p, str) else False for p in ranked.get("params", [None] * len(ranked))]
    several = {"release": ranked["release"].nunique() > 1, "fit_method": ranked["fit_method"].nunique() > 1}
    labels = [
        label + "".join(f" ({getattr(row, field)})" for field, shown in several.items() if shown) + (" (γ < 0 allowed)" if free and not all(negative) else "")
        for row, label, free in zip(ranked.itertuples(), quasi, negative)
    ]
    repeated = pd.Series(labels).duplicated(keep=False)
    return [f"{label} [{scenario}]" if twice else label for label, scenario, twice in zip(labels, ranked["scenario_id"], repeated)]


def _in_words(label: str, row) -> str:
    """E.g. "age, sex, region: about 3,270 of 500,000 people (0.655%, 0.624%–0.674%) would be identified correctly (...)"."""
    if not np.isfinite(row.kappa_population):
        return f"{label}: no forecast, the fit gave no model (measured {_percent(row.kappa_table)} among the table's {int(row.n_rows):,})."
    interval = f", {_percent(row.kappa_population_low)}–{_percent(row.kappa_population_high)}" if np.isfinite(row.kappa_population_low) else ""
    return (
        f"{label}: about {_about(row.kappa_population * row.population)} of {int(row.population):,} people ({_percent(row.kappa_population)}{interval}) "
        f"would be identified correctly (measured {_percent(row.kappa_table)} among the table's {int(row.n_rows):,})."
    )


def _about(count: float) -> str:
    """A count to three significant digits: a forecast is not exact to the person."""
    return f"{float(f'{count:.3g}'):,.0f}"


def _percent(share: float) -> str:
    return f"{100 * share:.3g}%"


def _significant(share) -> str | None:
    return None if pd.isna(share) else f"{share:.3g}"
