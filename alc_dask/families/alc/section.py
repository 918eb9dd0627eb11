"""The ALC family's section: the worst scenarios, the best ALC per secret column, the scenarios
vulnerable at matched coverage (precision improvement, its interval's lower end shown no lower than
−1, as the ALC's), and two figures."""

import pandas as pd

from alc_dask.families.alc.plots import alc_by_secret, precision_vs_alc
from alc_dask.families.presentation import Section
from alc_dask.measure.sequential import ALC_FLOOR

WORST = 10
WORST_COLUMNS = [
    "release",
    "scenario_id",
    "secret",
    "known",
    "baseline",
    "model",
    "alc",
    "risk",
    "attack_precision",
    "attack_recall",
    "pi",
    "pi_vulnerable",
    "halt_code",
]
PI_COLUMNS = ["release", "scenario_id", "secret", "known", "pi", "pi_low", "pi_high", "pi_coverage", "pi_attack_precision", "pi_base_precision", "alc", "risk"]


def section(family: str, scores: pd.DataFrame) -> Section:
    ranked = scores.sort_values(["alc", "scenario_id"], ascending=[False, True])
    best = ranked.drop_duplicates(["release", "secret"]).reindex(columns=["release", "secret", "alc", "risk", "scenario_id", "known", "baseline"])
    tables = {
        "Worst scenarios": ranked.head(WORST).reindex(columns=WORST_COLUMNS).reset_index(drop=True),
        "Best ALC per secret column": best.sort_values(["release", "alc"], ascending=[True, False]).reset_index(drop=True),
    }
    notes = ()
    if "pi_vulnerable" in scores:  # results written before precision improvement was measured have none
        vulnerable = scores[scores["pi_vulnerable"].astype("boolean").fillna(False).astype(bool)].sort_values(["pi", "scenario_id"], ascending=[False, True])
        tables["Vulnerable at matched coverage (precision and coverage above the baseline's), by precision improvement"] = (
            vulnerable.head(WORST).reindex(columns=PI_COLUMNS).assign(pi_low=lambda rows: rows["pi_low"].clip(lower=ALC_FLOOR)).reset_index(drop=True)
        )
        notes = (
            f"{len(vulnerable)} of {len(scores)} scenario(s) are vulnerable at matched coverage: the attack is more precise than the baseline "
            "on the very targets it predicted for, and no cut of the baseline is as precise on as many targets.",
        )
    figures = {"Attack precision vs ALC (colour: recall)": precision_vs_alc(scores), "ALC per secret column": alc_by_secret(scores)}
    return Section("Attribute inference (ALC)", tables, figures, notes)
