"""The report's section on what the release keeps of the data, beside the privacy families' sections."""

import pandas as pd

from alc_dask.families.presentation import Section
from alc_dask.utility.fidelity import Fidelity

TITLE = "What the release keeps (utility)"


def fidelity_section(fidelity: Fidelity) -> Section:
    """The sentence, the three measures, and every column's distance, the most changed first."""
    measures = pd.DataFrame(
        [
            ("Columns' distributions kept", fidelity.columns_kept, "1 − mean total variation distance (1: the same)"),
            ("Dependence between pairs of columns kept", fidelity.pairs_kept, "share of the pairs' Cramér's V kept (1: all, 0: none)"),
            ("Rows told apart by a classifier (AUC)", fidelity.classifier_auc, "0.5: indistinguishable, 1: every row gives itself away"),
        ],
        columns=["Measure", "Value", "Reading"],
    )
    columns = pd.DataFrame(
        [(item.column, item.kind, item.distance) for item in fidelity.per_column], columns=["Column", "Kind", "Distance to the original's distribution"]
    )
    return Section(
        TITLE,
        {"Measures": measures, "Columns, the most changed first": columns},
        notes=(fidelity.summary, "Utility is shown beside privacy; it never changes the verdict."),
    )
