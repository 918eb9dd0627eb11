"""Which row of a scenario counts when it has several.

A scenario run again (a failed one on a re-run) has a row in a later part too. The row that counts
is the ``ok`` or ``skipped`` one over a ``failed`` one and, among equals, the one of the latest
part; the others are superseded, and readers drop them (``compact`` removes them for good).
"""

import pandas as pd

DONE = ("ok", "skipped")  # statuses a re-run does not retry


def resolve(rows: pd.DataFrame, names: list[str]) -> tuple[pd.Series, dict[str, list[str]]]:
    """The part of each scenario's row that counts (``rows``: ``scenario_id``, ``status``, ``part``;
    ``names``: the parts in write order), and, for each part holding a superseded row, the scenarios
    whose rows count there."""
    position = {name: index for index, name in enumerate(names)}
    ranked = rows.assign(done=rows["status"].isin(DONE), order=rows["part"].map(position)).sort_values(["done", "order"], kind="stable")
    counting = ranked.drop_duplicates("scenario_id", keep="last")
    holding = set(ranked.drop(counting.index)["part"])
    keep = {part: [] for part in holding}
    for part, group in counting[counting["part"].isin(holding)].groupby("part"):
        keep[part] = group["scenario_id"].tolist()
    return counting.set_index("scenario_id")["part"], keep
