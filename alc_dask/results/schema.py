"""The columns of a results dataset: a scores table per evaluation family, and the predictions.

A family's scores rows are the identity every evaluation shares (job, release, scenario, family,
status, timings, worker, version) followed by that family's own measures (its ``fields``), and
nothing else: each family's folder reads as one table in pandas, polars or duckdb, its columns
those of the family. Families may share a measure column (``secret``, ``risk``) when they give it
the same type, so that the tables of every family read together as one (their union of columns).
Every column carries a one-line description (field metadata ``description``), from which the
results reference's column lists are generated (``alc_dask.results.columns``).
"""

from functools import cache

import pyarrow as pa

from alc_dask.errors import InternalError
from alc_dask.families import column, family_names, get_family

IDENTITY = (
    column("job", pa.string(), "the job's name"),
    column("release", pa.string(), "the release's label: its name, else the anonymized table's file name"),
    column("scenario_id", pa.string(), "the evaluation's stable id: a readable name and a hash of what defines it"),
    column("scenario_index", pa.int64(), "the scenario's place in the job's list of scenarios"),
    column("family", pa.string(), "the evaluation family, whose folder of scores holds the row"),
    column("origin", pa.string(), "the job entry that made the scenario: explicit, a generator's name, or scenarios[i]"),
    column("params", pa.string(), "JSON of what defines the evaluation"),
    column("status", pa.string(), "ok, failed, or skipped (cannot be attacked by construction)"),
    column("error", pa.string(), "why the scenario failed or was skipped"),
    column("traceback", pa.string(), "of a failed scenario, as Python formats it"),
    column("seed", pa.int64(), "the scenario's seed, drawn from the job's"),
    column("elapsed_seconds", pa.float64(), "on the worker, with unpacking and result building (for a release in parts, waits too)"),
    column("worker", pa.string(), "the Dask worker that ran the scenario (local off a cluster)"),
    column("finished_at", pa.string(), "when the scenario finished: ISO 8601, UTC"),
    column("version", pa.string(), "the alc_dask version that wrote the row"),
)

PREDICTIONS = pa.schema(
    [
        column("scenario_id", pa.string(), "the scenario the prediction is of"),
        column("target", pa.int64(), "the target's row in the table it was drawn from (the original, or the control)"),
        column("side", pa.string(), "who predicts, as the family says: base or attack, member or non_member, ..."),
        column("correct", pa.bool_(), "whether the prediction is right"),
        column("confidence", pa.float64(), "how sure the prediction is: higher first (a score, or a probability)"),
        column("abstained", pa.bool_(), "no prediction was made for the target"),
        column("predicted", pa.string(), "the value predicted, only when the job sets store_values: true"),
        column("true", pa.string(), "the target's true value, only when the job sets store_values: true"),
    ]
)


@cache
def family_schema(name: str) -> pa.Schema:
    """The columns of the scores table of family ``name`` (registered in ``alc_dask.families``): the
    identity columns, then the family's own fields (one named as an identity column must have its type)."""
    columns = {field.name: field for field in IDENTITY}
    for field in get_family(name).fields:
        _add(columns, field, name)
    return pa.schema(list(columns.values()))


def union_schema(schemas: dict[str, pa.Schema]) -> pa.Schema:
    """The tables of several families as one (family name -> its schema, in column order): the
    identity columns, then each family's own columns not yet there. A column two families type apart
    is an ``InternalError``: a family (a plugin's, say) broke the contract."""
    columns = {field.name: field for field in IDENTITY}
    for name, schema in schemas.items():
        for field in schema:
            _add(columns, field, name)
    return pa.schema(list(columns.values()))


def registered_union() -> pa.Schema:
    """Every registered family's table as one (the columns of the single scores table of alc_dask 0.6)."""
    return union_schema({name: family_schema(name) for name in family_names()})


def _add(columns: dict[str, pa.Field], field: pa.Field, family: str) -> None:
    known = columns.setdefault(field.name, field)
    if known.type != field.type:
        raise InternalError(f"family {family!r} writes column {field.name!r} as {field.type}, another family or the identity as {known.type}")
