"""The disclosure family's section: per key set and target, synthpop's identity and attribute shares
beside the control's, the headline risk and its label, worst first."""

import json

import pandas as pd

from alc_dask.families.presentation import Section, verdict_labels

IDENTITY = ["release", "scenario_id", "keys", "n_original", "uio", "uiois", "repu", "control_repu", "uis"]
ATTRIBUTE = ["release", "scenario_id", "keys", "target", "dio", "in_release", "dis", "disco", "control_disco", "disdio", "dsyn"]
RISK = [
    "release",
    "scenario_id",
    "keys",
    "target",
    "headline_measure",
    "share",
    "control_share",
    "disclosure_risk",
    "disclosure_risk_low",
    "disclosure_risk_high",
    "label",
    "warning",
]
NOTE = (
    "Shares of the original's records (Raab, Nowok & Dibben 2024): RepU, unique on the keys in both the original and the release; "
    "DiSCO, the key has one target value in the release and it is the record's. The control's shares are those of people not in the "
    "release: what anyone would give away. The risk is the original's share beyond the control's, (share - control) / (1 - control)."
)


def section(family: str, scores: pd.DataFrame) -> Section:
    from alc_dask.families import get_family

    ranked = scores.sort_values(["disclosure_risk", "scenario_id"], ascending=[False, True]).reset_index(drop=True)
    table = ranked.assign(label=verdict_labels(get_family(family), ranked), keys=[", ".join(json.loads(k)) for k in ranked["keys"]])
    tables = {
        "Disclosure risk beyond a non-member's, worst first": table.reindex(columns=RISK),
        "Identity disclosure (shares of records)": table.reindex(columns=IDENTITY),
    }
    targeted = table[table["target"].notna()]
    if len(targeted):
        tables["Attribute disclosure (shares of records)"] = targeted.reindex(columns=ATTRIBUTE).reset_index(drop=True)
    return Section(family, tables, notes=(NOTE,))
