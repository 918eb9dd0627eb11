"""Compaction: small parts (flushed on time), per-scenario parts of earlier versions and parts
holding superseded rows are rewritten into full parts, without the superseded rows.

Crash-safe as readers see it: the new parts are written first, each after every existing part in
write order, so that they hold copies of the rows that count and, being later, win every tie;
until the old parts are removed, readers take each scenario's row from the new ones. Only then are
the old parts removed (a scores part before its predictions part). A crash anywhere leaves every
scenario readable once; the next ``compact`` finishes the job.
"""

import pyarrow.compute as pc

from alc_dask.results.parts import PART, Parts, resolve
from alc_dask.results.schema import PREDICTIONS, scores_schema


def compact_parts(parts: Parts, part_scenarios: int, above: int = 0) -> int:
    """Rewrite the parts worth rewriting when there are more than ``above``; return how many were replaced."""
    names = parts.names()
    if len(names) <= above:
        return 0
    rows = parts.rows(names)
    counting, superseding = resolve(rows, names)
    sizes = rows["part"].value_counts()
    replaced = [name for name in names if name in superseding or not PART.fullmatch(name) or sizes.get(name, 0) < part_scenarios // 2]
    if len(replaced) < 2 and not superseding:
        return 0
    moving = counting[counting.isin(replaced)]
    moving = moving.iloc[moving.map({name: order for order, name in enumerate(names)}).argsort(kind="stable")]
    present = parts.prediction_names()
    for start in range(0, len(moving), part_scenarios):
        _copy(parts, moving.iloc[start : start + part_scenarios], present)
    for name in replaced:
        parts.remove(name)
    return len(replaced)


def _copy(parts: Parts, chunk, present: set[str]) -> None:
    """One new part holding the counting rows of the scenarios in ``chunk`` (scenario id -> its part)."""
    keep = {part: ids.index.tolist() for part, ids in chunk.groupby(chunk)}
    wanted = pc.field("scenario_id").isin(chunk.index.tolist())
    scores = parts.read(parts.scores, list(keep), scores_schema(), None, wanted, keep)
    with_predictions = [part for part in keep if part in present]
    predictions = parts.read(parts.predictions, with_predictions, PREDICTIONS, None, wanted, keep) if with_predictions else None
    parts.write(scores.sort_by("scenario_id"), None if predictions is None else predictions.sort_by("scenario_id"))
