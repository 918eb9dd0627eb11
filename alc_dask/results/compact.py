"""Compaction: small parts (flushed on time) and parts holding superseded rows are rewritten into
full parts, without the superseded rows.

Crash-safe as readers see it: the new parts are written first, each after every existing part in
write order, so that they hold copies of the rows that count and, being later, win every tie;
until the old parts are removed, readers take each scenario's row from the new ones. Only then are
the old parts removed (their scores files before their predictions). A crash anywhere leaves every
scenario readable once; the next ``compact`` finishes the job.
"""

import pandas as pd
import pyarrow.compute as pc

from alc_dask.results.counting import resolve
from alc_dask.results.parts import Parts, every_part
from alc_dask.results.scan import read_table
from alc_dask.results.schema import PREDICTIONS


def compact_parts(parts: Parts, part_scenarios: int, above: int = 0) -> int:
    """Rewrite the parts worth rewriting when there are more than ``above``; return how many were replaced."""
    present = parts.present()
    names = every_part(present)
    if len(names) <= above:
        return 0
    rows = parts.rows(present)
    counting, superseding = resolve(rows, names)
    sizes = rows["part"].value_counts()
    replaced = [name for name in names if name in superseding or sizes.get(name, 0) < part_scenarios // 2]
    if len(replaced) < 2 and not superseding:
        return 0
    moving = counting[counting.isin(replaced)]
    moving = moving.iloc[moving.map({name: order for order, name in enumerate(names)}).argsort(kind="stable")]
    predicted = parts.prediction_names()
    for start in range(0, len(moving), part_scenarios):
        _copy(parts, moving.iloc[start : start + part_scenarios], present, predicted)
    for name in replaced:
        parts.remove(name, list(present))
    return len(replaced)


def _copy(parts: Parts, chunk: pd.Series, present: dict[str, list[str]], predicted: set[str]) -> None:
    """One new part holding the counting rows of the scenarios in ``chunk`` (scenario id -> its part)."""
    keep = {part: ids.index.tolist() for part, ids in chunk.groupby(chunk)}
    wanted = pc.field("scenario_id").isin(chunk.index.tolist())
    scores = {}
    for family, names in present.items():
        holding = [name for name in names if name in keep]
        if holding:
            table = read_table(parts.files, [parts.scores_path(family, name) for name in holding], parts.schema(family, names), None, wanted, keep)
            if table.num_rows:
                scores[family] = table.sort_by("scenario_id")
    with_predictions = [part for part in keep if part in predicted]
    predictions = (
        read_table(parts.files, [parts.predictions_path(name) for name in with_predictions], PREDICTIONS, None, wanted, keep) if with_predictions else None
    )
    parts.write(scores, None if predictions is None else predictions.sort_by("scenario_id"))
