"""The results reference's column lists (``docs/reference/results.md``), generated from the schemas
so that they never drift from what is written.

Each list sits between markers, ``<!-- columns:<name> -->`` and ``<!-- /columns -->``: ``identity``
(the columns every family's scores share), ``predictions``, and one per family (its own columns). A
row gives a column's name, type and the one-line description its field carries (metadata
``description``). Every family of this package needs its block; an installed plugin's is filled
when the page has one. Regenerate with ``make columns`` or::

    python -m alc_dask.results.columns [docs/reference/results.md]

A test fails when the page differs from what the schemas generate, and so does the site's build.
"""

import re
import sys
from pathlib import Path

import pyarrow as pa

from alc_dask.errors import InputError
from alc_dask.families import family_names, get_family
from alc_dask.results.schema import IDENTITY, PREDICTIONS, family_schema

BLOCK = re.compile(r"(?P<open><!-- columns:(?P<name>[\w.-]+) -->\n)(?P<body>.*?)(?P<close><!-- /columns -->)", re.DOTALL)
PAGE = "docs/reference/results.md"
COMMAND = f"make columns (python -m alc_dask.results.columns {PAGE})"


def description(field: pa.Field) -> str:
    """The one-line description a field carries ('' when it has none: a plugin's, say)."""
    return (field.metadata or {}).get(b"description", b"").decode()


def column_table(fields) -> str:
    """A Markdown table of ``fields``: name, type, description."""
    rows = ["| column | type | description |", "|---|---|---|"]
    rows += [f"| `{field.name}` | `{type_name(field.type)}` | {_escaped(description(field))} |" for field in fields]
    return "\n".join(rows) + "\n"


def _escaped(text: str) -> str:
    """A pipe inside a Markdown table's cell does not end it."""
    return text.replace("|", "\\|")


def type_name(kind: pa.DataType) -> str:
    """A type as pyarrow names it, lists and structs spelled out by their items' names."""
    if pa.types.is_list(kind):
        return f"list<{type_name(kind.value_type)}>"
    if pa.types.is_struct(kind):
        return "struct<" + ", ".join(f"{field.name}: {type_name(field.type)}" for field in kind) + ">"
    return str(kind)


def generated() -> dict[str, str]:
    """Every block's contents by name: the identity, the predictions and each registered family's own columns."""
    blocks = {"identity": column_table(IDENTITY), "predictions": column_table(PREDICTIONS)}
    for name in family_names():
        blocks[name] = column_table(list(family_schema(name))[len(IDENTITY) :])
    return blocks


def required() -> list[str]:
    """The blocks the page must have: identity, predictions and every family of this package."""
    return ["identity", "predictions", *(name for name in family_names() if get_family(name).__module__.startswith("alc_dask."))]


def rendered(text: str) -> str:
    """``text`` with every block's contents generated; a block missing, or of no known name, is an error."""
    blocks = generated()
    present = [match["name"] for match in BLOCK.finditer(text)]
    if missing := [name for name in required() if name not in present]:
        raise InputError(f"the page has no column list for {', '.join(missing)}: add '<!-- columns:NAME -->' and '<!-- /columns -->' where it belongs")
    if unknown := [name for name in present if name not in blocks]:
        raise InputError(f"the page has column lists of no known table: {', '.join(unknown)}")
    return BLOCK.sub(lambda match: match["open"] + blocks[match["name"]] + match["close"], text)


def main(arguments: list[str]) -> None:
    path = Path(arguments[0] if arguments else PAGE)
    text = path.read_text(encoding="utf-8")
    updated = rendered(text)
    if updated != text:
        path.write_text(updated, encoding="utf-8")
    print(f"{path}: column lists {'updated' if updated != text else 'up to date'}")


if __name__ == "__main__":
    main(sys.argv[1:])
