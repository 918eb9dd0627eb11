"""The section of Anonymeter's evaluators (singling out, linkability, inference): each evaluation's
risk with its interval and its label on Anonymeter's scale (``label``: flagged, inconclusive, pass at
the family's threshold) beside the attack, baseline and control rates it comes from."""

import json

import pandas as pd

from alc_dask.families.presentation import Section, verdict_labels
from alc_dask.families.wp29.plots import risk_intervals

TITLES = {"singling_out": "Singling out", "linkability": "Linkability", "inference": "Inference (Anonymeter)"}
COLUMNS = [
    "release",
    "scenario_id",
    "setting",
    "privacy_risk",
    "privacy_risk_low",
    "privacy_risk_high",
    "label",
    "attack_rate",
    "baseline_rate",
    "control_rate",
    "n_attacks",
    "n_success",
    "warning",
]


def section(family: str, scores: pd.DataFrame) -> Section:
    from alc_dask.families import get_family

    table = scores.assign(setting=[_setting(family, params) for params in scores["params"]], label=verdict_labels(get_family(family), scores))
    table = table.sort_values(["privacy_risk", "scenario_id"], ascending=[False, True]).reindex(columns=COLUMNS).reset_index(drop=True)
    table[["n_attacks", "n_success"]] = table[["n_attacks", "n_success"]].astype("Int64")
    notes = ()
    if table["warning"].notna().any():
        notes = (f"{int(table['warning'].notna().sum())} evaluation(s) carry a warning: read it before trusting their risk.",)
    title = TITLES.get(family, family)
    return Section(title, {"Evaluations by risk": table}, {f"{title}: risk and its interval": risk_intervals(table)}, notes)


def _setting(family: str, params: str) -> str:
    """What distinguishes the evaluations of one family, in a few words."""
    p = json.loads(params)  # every parameter, defaults included
    if family == "singling_out":
        return p["mode"] + (f", {p['n_cols']} columns" if p["mode"] == "multivariate" else "")
    if family == "linkability":
        return " | ".join(", ".join(half) for half in p["aux_cols"]) + f" (k={p['n_neighbors']})"
    return f"{p['secret']} from {len(p['aux_cols'])} columns"
