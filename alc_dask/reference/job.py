"""The job file's reference page and JSON Schema, both from the job's pydantic models.

The job model validates a scenario entry in two steps (its family is read first, then the family
validates the rest), which a JSON Schema cannot say; ``documented_job_model`` spells each entry out
instead, as one alternative per family and per scenario generator, so that an editor validating a
YAML job against the schema knows every key of every entry.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, Field, create_model

from alc_dask.families import DEFAULT_FAMILY, family_names, get_family
from alc_dask.reference.schema import JsonSchema, Tables, definition_name, described_schema, markdown_text

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
ENTRY = "scenario entry"
"""The name the page gives every kind of scenario entry, in the type of ``scenarios``."""


def family_entry(name: str) -> type[BaseModel]:
    """A scenario entry of family ``name``: its parameters and ``family: <name>`` (which the default
    family's entries may leave out)."""
    model = get_family(name).entry_model()
    family = (Literal[name], name) if name == DEFAULT_FAMILY else (Literal[name], ...)
    return create_model(f"{name}_scenario", __base__=model, __doc__=model.__doc__, family=family)


def documented_job_model(model: type[BaseModel] | None = None) -> type[BaseModel]:
    """``model`` (default: the job model of the registered families) with its scenario entries
    spelt out: an entry of each family, or of each scenario generator."""
    from alc_dask.jobs.spec import generators, job_model

    model = model or job_model()
    entries = (*(family_entry(name) for name in family_names()), *generators().values())
    scenarios = Annotated[list[Union[entries]], Field(min_length=1)]  # noqa: UP007 (a tuple of types)
    return create_model("Job", __base__=model, __doc__=model.__doc__, scenarios=(scenarios, ...))


def job_schema(model: type[BaseModel] | None = None) -> JsonSchema:
    """The JSON Schema of a job file, for editors validating YAML or JSON jobs."""
    schema = described_schema(documented_job_model(model))
    return {"$schema": SCHEMA_DIALECT, "title": "alc_dask job", **{key: value for key, value in schema.items() if key != "title"}}


def family_settings_keys() -> dict[str, list[str]]:
    """Family name -> the job-wide keys it declares (its ``JobSettings``), for the families that do."""
    found = {}
    for name in family_names():
        if (settings := get_family(name).JobSettings) is not None:
            found[name] = list(settings.model_fields)
    return found


def _headline(name: str) -> str:
    """What a family's evaluations report first: its headline measure, and what that measures."""
    family = get_family(name)
    scale = f": {family.scale}" if family.scale else ""
    return f"Headline measure `{family.headline}`{scale}.\n"


def job_reference(model: type[BaseModel] | None = None) -> str:
    """The job file's reference in Markdown: the job's keys, each family's job-wide settings, every
    object they hold, then every kind of scenario entry; each key with its type, default,
    constraints and description."""
    schema = job_schema(model)
    definitions = schema.get("$defs", {})
    owned = family_settings_keys()
    settings = {key for keys in owned.values() for key in keys}
    anchors: dict[str, str] = {ENTRY: "scenario-entries"}
    definitions = {**definitions, ENTRY: {"title": "scenario entry", "properties": {}}}
    tables = Tables(definitions, anchors)
    own = {key: field for key, field in schema["properties"].items() if key not in settings and key != "scenarios"}
    tables.find_nested({"properties": own}, "")
    tables.find_nested({"properties": {key: schema["properties"][key] for key in sorted(settings, key=list(schema["properties"]).index)}}, "")
    entries = [definition_name(entry) for entry in schema["properties"]["scenarios"]["items"]["anyOf"]]
    for name in entries:
        generate = definitions[name]["properties"].get("generate", {}).get("const")
        anchors[name] = f"generate-{generate}" if generate else f"family-{definitions[name]['properties']['family']['const']}"

    job = {**schema, "properties": {**schema["properties"], "scenarios": {**schema["properties"]["scenarios"], "items": {"$ref": f"#/$defs/{ENTRY}"}}}}
    parts = ["## The job {#job}\n", "The keys every job has.\n", tables.table(job, skip=tuple(settings))]
    for family, keys in owned.items():
        parts.append(f"## Job-wide settings of the `{family}` family {{#settings-{family}}}\n")
        parts.append(f"Keys at the top level of a job, read by every `{family}` scenario.\n")
        parts.append(tables.table({"properties": {key: schema["properties"][key] for key in keys}, "required": schema.get("required", [])}))
    parts += tables.sections("##")

    parts.append("## Scenario entries {#scenario-entries}\n")
    parts.append(
        f"Each entry of `scenarios` is one evaluation of the family it names (`family:`, default `{DEFAULT_FAMILY}`), "
        "or a generator (`generate:`) that expands into many evaluations when the job is planned.\n"
    )
    for name in entries:
        definition = definitions[name]
        properties = definition["properties"]
        generate = properties.get("generate", {}).get("const")
        title = f"`generate: {generate}`" if generate else f"`family: {properties['family']['const']}`"
        parts.append(f"### {title} {{#{anchors[name]}}}\n")
        if description := definition.get("description"):
            parts.append(markdown_text(description) + "\n")
        if not generate:
            parts.append(_headline(properties["family"]["const"]))
        tables.find_nested(definition, f"scenarios[].{generate or properties['family']['const']}")
        parts.append(tables.table(definition, skip=("generate",) if generate else ("family",)))
        parts += tables.sections("####")
    return "\n".join(parts)
