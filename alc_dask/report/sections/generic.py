"""The section of a family without its own: each evaluation's headline measure and risk label."""

import pandas as pd

from alc_dask.report.sections import Section, headline_of

IDENTITY = ["release", "scenario_id", "origin", "params"]


def section(family: str, scores: pd.DataFrame) -> Section:
    headline = headline_of(family)
    columns = [c for c in [*IDENTITY, headline, "risk"] if c in scores.columns]
    ranked = scores.sort_values([headline, "scenario_id"], ascending=[False, True])[columns]
    return Section(f"{family}", {f"Evaluations by {headline}": ranked.reset_index(drop=True)})
