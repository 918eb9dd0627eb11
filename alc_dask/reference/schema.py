"""JSON Schemas of pydantic models with every field described, and their Markdown tables.

A field's description is its ``Field(description=...)`` or, as most of this package writes them, the
docstring under it (or under the same name in the dataclass a settings model mirrors). The tables
read the JSON Schema, not the models, so the reference a person reads and the schema an editor
validates against cannot disagree: one table per object, a row per key with its type, default,
constraints and description.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
import textwrap
from collections import deque
from collections.abc import Iterator
from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema

JsonSchema = dict[str, Any]

_SIGNATURE = re.compile(r"\w+\(.*\)", re.DOTALL)

CONSTRAINTS = (
    ("minimum", "≥ {}"),
    ("exclusiveMinimum", "> {}"),
    ("maximum", "≤ {}"),
    ("exclusiveMaximum", "< {}"),
    ("minLength", "at least {} character(s)"),
    ("maxLength", "at most {} character(s)"),
    ("minItems", "at least {} item(s)"),
    ("maxItems", "at most {} item(s)"),
    ("minProperties", "at least {} key(s)"),
    ("pattern", "matches `{}`"),
    ("format", "format {}"),
)
"""JSON Schema's validation keywords, as a constraint is written in a table."""


class DescribedFields(GenerateJsonSchema):
    """Pydantic's JSON Schema, with each field's docstring as its description where it has none."""

    def model_schema(self, schema) -> JsonSchema:
        json_schema = super().model_schema(schema)
        documented = attribute_docstrings(schema["cls"])
        for name, field in json_schema.get("properties", {}).items():
            if "description" not in field and name in documented:
                field["description"] = documented[name]
        if _SIGNATURE.fullmatch(json_schema.get("description", "")):  # a dataclass's generated docstring says nothing more
            del json_schema["description"]
        return json_schema


def described_schema(model: type[BaseModel]) -> JsonSchema:
    """``model``'s JSON Schema (as it validates input), every field that has a docstring described."""
    return model.model_json_schema(schema_generator=DescribedFields)


def attribute_docstrings(cls: type) -> dict[str, str]:
    """The docstring written under each field of ``cls`` or of the classes it builds on (the nearest
    wins), and of the dataclass a settings model mirrors (``settings_class``)."""
    sources = [klass for klass in cls.__mro__ if klass not in (object, BaseModel)]
    if isinstance(settings := getattr(cls, "settings_class", None), type):
        sources.append(settings)
    found: dict[str, str] = {}
    for klass in reversed(sources):
        found.update(_class_docstrings(klass))
    return found


@cache
def _class_docstrings(cls: type) -> dict[str, str]:
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):  # made by create_model, or in no file
        return {}
    tree = ast.parse(source).body[0]
    if not isinstance(tree, ast.ClassDef):
        return {}
    found = {}
    for statement, following in zip(tree.body, tree.body[1:]):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            found[statement.target.id] = inspect.cleandoc(following.value.value)
    return found


def markdown_text(text: str) -> str:
    """A docstring as Markdown inside a table cell: one line, reST literals as code, pipes escaped."""
    return " ".join(text.replace("``", "`").split()).replace("|", "\\|")


def resolve(schema: JsonSchema, definitions: JsonSchema) -> JsonSchema:
    """``schema`` itself, or the definition its ``$ref`` points at."""
    if "$ref" in schema:
        return definitions[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def definition_name(schema: JsonSchema) -> str | None:
    return schema["$ref"].rsplit("/", 1)[-1] if "$ref" in schema else None


def references(schema: JsonSchema) -> Iterator[str]:
    """The definitions ``schema`` names, directly or inside unions, lists and maps, in order."""
    if name := definition_name(schema):
        yield name
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for part in schema.get(key, []):
            yield from references(part)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            yield from references(schema[key])


def anchor(path: str) -> str:
    """The anchor of the section of the object at ``path`` (``release.grouped``, ``attacks[]``)."""
    return path.replace(".", "-").replace("[]", "").replace(":", "").replace(" ", "-")


class Tables:
    """Markdown tables of a JSON Schema's objects; ``anchors`` maps a definition's name to the
    anchor of its section, so that a field of that type links to it. Objects found inside a
    documented one wait in ``queue`` for their sections, each named by its path from the root."""

    def __init__(self, definitions: JsonSchema, anchors: dict[str, str] | None = None):
        self.definitions = definitions
        self.anchors = anchors if anchors is not None else {}
        self.queue: deque[tuple[str, str]] = deque()

    def find_nested(self, schema: JsonSchema, path: str) -> None:
        """Queue the objects ``schema``'s keys hold that no section documents yet."""
        for key, field in resolve(schema, self.definitions).get("properties", {}).items():
            for name in references(field):
                if name not in self.anchors and "properties" in self.definitions[name]:
                    listed = field.get("type") == "array" or any(part.get("type") == "array" for part in field.get("anyOf", []))
                    where = (f"{path}.{key}" if path else key) + ("[]" if listed else "")
                    self.anchors[name] = anchor(where)
                    self.queue.append((name, where))

    def sections(self, level: str) -> list[str]:
        """A section per queued object, and then per object found inside it, breadth first."""
        parts = []
        while self.queue:
            name, where = self.queue.popleft()
            definition = self.definitions[name]
            parts.append(f"{level} `{where}` {{#{self.anchors[name]}}}\n")
            if description := definition.get("description"):
                parts.append(markdown_text(description) + "\n")
            self.find_nested(definition, where)
            parts.append(self.table(definition))
        return parts

    def table(self, schema: JsonSchema, skip: tuple[str, ...] = ()) -> str:
        """A row per key of the object ``schema``: key, type, default (or required), constraints, description."""
        schema = resolve(schema, self.definitions)
        required = set(schema.get("required", []))
        rows = ["| key | type | default | constraints | description |", "|---|---|---|---|---|"]
        for name, field in schema.get("properties", {}).items():
            if name in skip:
                continue
            default = "required" if name in required else (f"`{json.dumps(field['default'], ensure_ascii=False)}`" if "default" in field else "")
            description = markdown_text(field.get("description", ""))
            rows.append(f"| `{name}` | {self.type_text(field)} | {default} | {', '.join(self.constraints(field))} | {description} |")
        return "\n".join(rows) + "\n"

    def type_text(self, schema: JsonSchema) -> str:
        """A type as a person reads it: `integer`, `list` of `string`, a linked section, `"a"` or `"b"`."""
        if name := definition_name(schema):
            target = self.definitions[name]
            if "properties" not in target:  # an enum or a plain value given a name
                return self.type_text(target)
            title = target.get("title", name)
            return f"[{title}](#{self.anchors[name]})" if name in self.anchors else f"`{title}`"
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return " or ".join(dict.fromkeys(self.type_text(part) for part in schema[key]))
        if "const" in schema:
            return f"`{json.dumps(schema['const'], ensure_ascii=False)}`"
        if "enum" in schema:
            return " or ".join(f"`{json.dumps(value, ensure_ascii=False)}`" for value in schema["enum"])
        kind = schema.get("type")
        if kind == "array":
            if "prefixItems" in schema:
                return "`tuple` of (" + ", ".join(self.type_text(part) for part in schema["prefixItems"]) + ")"
            return "`list` of " + self.type_text(schema.get("items", {}))
        if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
            return "`map` of `string` to " + self.type_text(schema["additionalProperties"])
        if isinstance(kind, list):
            return " or ".join(f"`{part}`" for part in kind)
        return f"`{kind}`" if kind else "`any`"

    def constraints(self, schema: JsonSchema, within: str = "") -> list[str]:
        """What a valid value must also be, from the schema's validation keywords, inside unions and lists too."""
        found = [within + text.format(schema[key]) for key, text in CONSTRAINTS if key in schema]
        for key in ("anyOf", "oneOf"):
            for part in schema.get(key, []):
                found += self.constraints(part, within)
        if isinstance(schema.get("items"), dict):
            found += self.constraints(schema["items"], "each ")
        if isinstance(schema.get("additionalProperties"), dict):
            found += self.constraints(schema["additionalProperties"], "each value ")
        return list(dict.fromkeys(found))
