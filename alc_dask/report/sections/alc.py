"""The ALC family's section: the worst scenarios, the best ALC per secret column, and two figures."""

import pandas as pd

from alc_dask.report.plots import alc_by_secret, precision_vs_alc
from alc_dask.report.sections import Section

WORST = 10
WORST_COLUMNS = ["release", "scenario_id", "secret", "known", "baseline", "alc", "risk", "attack_precision", "attack_recall", "halt_code"]


def section(family: str, scores: pd.DataFrame) -> Section:
    ranked = scores.sort_values(["alc", "scenario_id"], ascending=[False, True])
    best = ranked.drop_duplicates(["release", "secret"]).reindex(columns=["release", "secret", "alc", "risk", "scenario_id", "known", "baseline"])
    tables = {
        "Worst scenarios": ranked.head(WORST).reindex(columns=WORST_COLUMNS).reset_index(drop=True),
        "Best ALC per secret column": best.sort_values(["release", "alc"], ascending=[True, False]).reset_index(drop=True),
    }
    figures = {"Attack precision vs ALC (colour: recall)": precision_vs_alc(scores), "ALC per secret column": alc_by_secret(scores)}
    return Section("Attribute inference (ALC)", tables, figures)
