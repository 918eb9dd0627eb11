"""The internal report's per-record exposure: which rows of the original which families expose.

The frame is made elsewhere (one row per exposed record of the original: ``record``, its row index
there; ``families``, comma-separated; ``n_families``; ``evidence``, the strongest per family, never a
value of the record); this module only chooses what of it the report shows. It is never part of the
external report.
"""

from __future__ import annotations

import pandas as pd

COLUMNS = ["record", "families", "n_families", "evidence"]
SHOWN = 100
TITLE = "Records exposed by several families"
EXPLANATION = "Rows of the original exposed by more than one family are the people a release exposes most"


def most_exposed(exposure: pd.DataFrame, shown: int = SHOWN) -> pd.DataFrame:
    """The ``shown`` records exposed by the most families, ties by record index."""
    if missing := [c for c in COLUMNS if c not in exposure.columns]:
        raise ValueError(f"the exposure table lacks the column(s) {', '.join(missing)}; expected {', '.join(COLUMNS)}")
    columns = (["release"] if "release" in exposure.columns else []) + COLUMNS  # several releases: a record is a row of each one's original
    ranked = exposure[columns].sort_values(["n_families", *columns[:-3]], ascending=[False] + [True] * (len(columns) - 3), kind="stable")
    return ranked.head(shown).reset_index(drop=True)


def explanation(exposure: pd.DataFrame, shown: pd.DataFrame) -> str:
    """The one line above the table: why it matters, and how much of it is shown."""
    several = int((exposure["n_families"] > 1).sum())
    releases = exposure["release"].nunique() if "release" in exposure.columns else 1
    across = f" (counted in each of {releases} releases)" if releases > 1 else ""
    return (
        f"{EXPLANATION}: {several} of the {len(exposure)} exposed rows{across} are exposed by more than one family. "
        f"The {len(shown)} exposed by the most families are listed (row index in the original, never its values)."
    )
