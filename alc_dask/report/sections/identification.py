"""The identification family's section: per quasi-identifier set, the fitted scaling law and its
forecast at the population, and a figure of measured correctness and the forecast curve."""

import json

import numpy as np
import pandas as pd

from alc_dask.measure.pitman_yor import PitmanYor
from alc_dask.report.plots import correctness_forecasts
from alc_dask.report.sections import Section

COLUMNS = [
    "release",
    "scenario_id",
    "quasi_identifiers",
    "n_rows",
    "population",
    "fit_method",
    "h",
    "gamma",
    "kappa_table",
    "kappa_population",
    "kappa_population_low",
    "kappa_population_high",
    "uniqueness_table",
    "uniqueness_population",
    "k",
    "k_violations_table",
    "k_violations_population",
    "risk",
    "warning",
]


def section(family: str, scores: pd.DataFrame) -> Section:
    ranked = scores.sort_values(["kappa_population", "scenario_id"], ascending=[False, True]).reset_index(drop=True)
    table = ranked.reindex(columns=COLUMNS).assign(quasi_identifiers=[", ".join(json.loads(q)) for q in ranked["quasi_identifiers"]])
    table[["n_rows", "population", "k"]] = table[["n_rows", "population", "k"]].astype("Int64")
    several = {"release": ranked["release"].nunique() > 1, "fit_method": ranked["fit_method"].nunique() > 1}
    labels = [
        label + "".join(f" ({getattr(row, field)})" for field, shown in several.items() if shown)
        for row, label in zip(ranked.itertuples(), table["quasi_identifiers"])
    ]
    curves = {}
    for row, label in zip(ranked.itertuples(), labels):
        grid = np.geomspace(1, row.population, 200)
        forecast = PitmanYor.of_entropy(row.h, row.gamma).correctness(grid) if np.isfinite(row.h) else np.full(len(grid), np.nan)
        curves[label] = (
            np.asarray(row.curve_sizes),
            np.asarray(row.curve_kappa),
            grid,
            forecast,
            row.population,
        )
    notes = tuple(
        f"{label}: {row.kappa_population:.1%} of {int(row.population):,} people would be identified correctly (measured {row.kappa_table:.1%} among the table's {int(row.n_rows):,})."
        for row, label in zip(ranked.itertuples(), labels)
    )
    return Section(
        "Identification at population scale",
        {"Quasi-identifier sets by forecast correctness": table},
        {"Identification: correctness forecast": correctness_forecasts(curves)},
        notes,
    )
