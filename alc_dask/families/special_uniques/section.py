"""The special-uniques section: per evaluation, the replicated special uniques of the original
against the control's with the risk and its verdict label, the SUDA and DIS-SUDA summaries of the
original and of the release, and a figure of the two replicated shares."""

import json

import pandas as pd

from alc_dask.families.presentation import Section, verdict_labels
from alc_dask.families.special_uniques.plots import replicated_shares

REPLICATED = [
    "release",
    "scenario_id",
    "keys",
    "max_size",
    "n_original",
    "n_special_original",
    "n_replicated",
    "replicated_share",
    "n_control",
    "n_control_replicated",
    "control_replicated_share",
    "replicated_risk",
    "replicated_risk_low",
    "replicated_risk_high",
    "label",
    "warning",
]
SCORES = [
    "release",
    "scenario_id",
    "keys",
    *(
        f"{measure}_{side}"
        for side in ("original", "release")
        for measure in ("special_share", "mean_suda", "max_suda", "dis", "mean_dis_suda", "max_dis_suda", "share_dis_suda_above_cut")
    ),
    "dis_cut",
    "highest_risk_records",
]


def section(family: str, scores: pd.DataFrame) -> Section:
    from alc_dask.families import get_family

    ranked = scores.sort_values(["replicated_risk", "scenario_id"], ascending=[False, True]).reset_index(drop=True)
    table = ranked.assign(label=verdict_labels(get_family(family), ranked), keys=[", ".join(json.loads(k)) for k in ranked["key_columns"]])
    table = table.assign(highest_risk_records=[", ".join(str(r) for r in rows) for rows in table["highest_risk_records"]])
    notes = tuple(_in_words(row) for row in table.itertuples())
    return Section(
        "Special uniques (SUDA)",
        {
            "Replicated special uniques: original against control": table.reindex(columns=REPLICATED),
            "SUDA and DIS-SUDA of the original and of the release": table.reindex(columns=SCORES),
        },
        {"Special uniques the release holds once": replicated_shares(table)},
        notes,
    )


def _in_words(row) -> str:
    control = f", against {row.control_replicated_share:.1%} of the control's" if row.n_control else " (no control table)"
    return (
        f"{row.keys} (MSUs up to {row.max_size}): {row.n_replicated} of the original's {row.n_special_original} special uniques "
        f"({row.replicated_share:.1%}, Wilson-corrected) have an MSU the release holds once{control}; "
        f"risk {row.replicated_risk:.3f} ({row.replicated_risk_low:.3f}–{row.replicated_risk_high:.3f})."
    )
