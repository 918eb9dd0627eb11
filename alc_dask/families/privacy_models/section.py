"""The privacy_models family's section: per evaluation, the release's k, ℓ and t beside what it
declares, and the records in classes that miss them, most models missed first."""

import json

import pandas as pd

from alc_dask.families.presentation import Section, verdict_labels

COLUMNS = [
    "release",
    "scenario_id",
    "table_measured",
    "quasi_identifiers",
    "sensitive",
    "n_rows",
    "n_classes",
    "k",
    "declared_k",
    "l_kind",
    "l",
    "declared_l",
    "t",
    "declared_t",
    "ground_distance",
    "models_missed",
    "violating_records",
    "violating_share",
    "label",
]
NOTE = (
    "k: records of the smallest equivalence class (Sweeney 2002); l: fewest distinct sensitive values in a class, or the lowest "
    "exp(entropy) (Machanavajjhala et al. 2007); t: the largest earth mover's distance of a class's sensitive distribution to the "
    "table's (Li, Li & Venkatasubramanian 2007). An evaluation is flagged when the release misses a model it declares."
)


def section(family: str, scores: pd.DataFrame) -> Section:
    from alc_dask.families import get_family

    ranked = scores.sort_values(["models_missed", "violating_share", "scenario_id"], ascending=[False, False, True]).reset_index(drop=True)
    table = ranked.assign(label=verdict_labels(get_family(family), ranked), quasi_identifiers=[", ".join(json.loads(q)) for q in ranked["quasi_identifiers"]])
    return Section(family, {"Privacy models against their declaration": table.reindex(columns=COLUMNS)}, notes=(NOTE,))
