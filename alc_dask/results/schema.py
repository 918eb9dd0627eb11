"""The columns of a results dataset: one scores table for every evaluation family.

A row is the identity every evaluation shares (job, release, scenario, family, status, timings,
worker) followed by the measures of every known family; a family's row leaves the others' measures
null. Every part is written with the same columns, so the scores folder reads as one table in
pandas, polars or duckdb. Families may share a measure column (``secret``, ``risk``) when they give
it the same type.
"""

from functools import cache

import pyarrow as pa

from alc_dask.errors import InternalError
from alc_dask.families import family_names, get_family

IDENTITY = (
    pa.field("job", pa.string()),
    pa.field("release", pa.string()),
    pa.field("scenario_id", pa.string()),
    pa.field("scenario_index", pa.int64()),
    pa.field("family", pa.string()),
    pa.field("origin", pa.string()),
    pa.field("params", pa.string()),  # JSON of what defines the evaluation
    pa.field("status", pa.string()),  # ok | failed | skipped
    pa.field("error", pa.string()),  # why it failed or was skipped
    pa.field("traceback", pa.string()),  # of a failed scenario, as Python formats it
    pa.field("seed", pa.int64()),
    pa.field("elapsed_seconds", pa.float64()),  # on the worker, with unpacking and result building
    pa.field("worker", pa.string()),
    pa.field("finished_at", pa.string()),  # ISO 8601, UTC
)

PREDICTIONS = pa.schema(
    [
        pa.field("scenario_id", pa.string()),
        pa.field("target", pa.int64()),
        pa.field("side", pa.string()),  # base | attack
        pa.field("correct", pa.bool_()),
        pa.field("confidence", pa.float64()),
        pa.field("abstained", pa.bool_()),
        pa.field("predicted", pa.string()),  # only when the job stores values
        pa.field("true", pa.string()),
    ]
)


@cache
def scores_schema() -> pa.Schema:
    """The identity columns, then each family's measures (built-in families first, in their order)."""
    fields = {field.name: field for field in IDENTITY}
    for name in family_names():
        for field in get_family(name).fields:
            known = fields.setdefault(field.name, field)
            if known.type != field.type:
                raise InternalError(f"family {name!r} writes column {field.name!r} as {field.type}, another family as {known.type}")
    return pa.schema(list(fields.values()))
