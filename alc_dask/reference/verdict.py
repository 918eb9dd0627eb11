"""The reference of ``verdict.json``, from the JSON Schema of its model (``alc_dask.verdict``)."""

from __future__ import annotations

from alc_dask.reference.schema import JsonSchema, Tables, markdown_text


def verdict_reference(schema: JsonSchema | None = None) -> str:
    """Every key of ``verdict.json`` and of the objects it holds, with type, default, constraints and description."""
    if schema is None:
        from alc_dask.verdict import schema as verdict_schema

        schema = verdict_schema()
    tables = Tables(schema.get("$defs", {}))
    tables.find_nested(schema, "")
    parts = ["## `verdict.json` {#verdict}\n", markdown_text(schema.get("description", "")) + "\n", tables.table(schema)]
    return "\n".join(parts + tables.sections("##"))
