"""The near-copies section: per evaluation, where released rows find their nearest neighbour, the
near-copy share with its interval and label, worst first."""

import json

import pandas as pd

from alc_dask.families.presentation import Section, verdict_labels

EVALUATIONS = [
    "release",
    "scenario_id",
    "known",
    "n_rows",
    "n_searched",
    "nearer",
    "ties",
    "near_copy_share",
    "near_copy_share_low",
    "near_copy_share_high",
    "label",
    "median_to_member",
    "median_to_released",
]
NOTE = (
    "Each released row is asked whether its nearest neighbour is a member (a person of the original) or another released row, "
    "searched among as many of each (Schilling 1986). A release of other people, whatever made it, puts at most half of its rows "
    "nearer to a member; a release that copies, perturbs or swaps its members puts more. The near-copy share, 2 x nearer - 1, "
    "estimates the share of released rows that sit by their member beyond chance; it needs no control table."
)


def section(family: str, scores: pd.DataFrame) -> Section:
    from alc_dask.families import get_family

    ranked = scores.sort_values(["near_copy_share", "scenario_id"], ascending=[False, True]).reset_index(drop=True)
    table = ranked.assign(label=verdict_labels(get_family(family), ranked), known=[", ".join(json.loads(k)) for k in ranked["known"]])
    table[["n_rows", "n_searched"]] = table[["n_rows", "n_searched"]].astype("Int64")
    return Section(family, {"Released rows beside a member, worst first": table.reindex(columns=EVALUATIONS)}, notes=(NOTE,))
