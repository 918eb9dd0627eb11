"""Tables and cells as HTML for the report: numbers to three decimals and right-aligned, JSON lists
and parameters shown compactly (``known=[age, sex]``), verdict labels as coloured badges, headers
in words with their field's description as a tooltip, and a table of many columns scrolling in its
own box rather than widening the page."""

from __future__ import annotations

import functools
import html
import json
import math
import re
from collections.abc import Iterable

import pandas as pd

LABELS = ("flagged", "inconclusive", "pass", "not_informative", "not informative", "not evaluated")
_DECIMALS = 3
WIDE = 10
"""Columns from which a table scrolls sideways in its own box: wider than a laptop's screen, it
would otherwise widen the whole page."""
_LONG = 14
"""Characters of the longest word a cell keeps whole."""
_WORDS = re.compile(r"[\s_\-/]+")
_NUMBER = re.compile(r"[-+]?(\d[\d,]*)?\.?\d+(e[-+]?\d+)?%?")


def html_table(frame: pd.DataFrame, label_columns: Iterable[str] = ("label",)) -> str:
    """``frame`` (its index left out) as a table; cells of ``label_columns`` that hold a label are
    badges, and so are counts other than 0 in columns named after a label."""
    label_columns = set(label_columns)
    head = "".join(f"<th{_described(column)}>{column_title(column)}</th>" for column in frame.columns)
    rows = []
    for values in frame.itertuples(index=False):
        cells = [_labelled(column, value, label_columns) or _cell(value) for column, value in zip(frame.columns, values)]
        rows.append(f"<tr>{''.join(cells)}</tr>")
    table = f"<table{' class=' + chr(39) + 'wide' + chr(39) if len(frame.columns) >= WIDE else ''}><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    return f"<div class='scroll'>{table}</div>" if len(frame.columns) >= WIDE else table


def _labelled(column, value, label_columns: set) -> str | None:
    """A label of ``label_columns`` as a badge, or a count of evaluations in a column named after a
    label (``flagged``...) in that label's colour when not 0; None for any other cell."""
    if column in label_columns and value in LABELS:
        return f"<td>{badge(value)}</td>"
    if column in LABELS and isinstance(value, int | float) and value > 0:
        return f"<td class='num'><span class='label {column}'>{text(value)}</span></td>"
    return None


def _cell(value) -> str:
    """A cell, right-aligned and unbroken when a number; others break between words and after
    underscores, and anywhere when a word is still long (a hash, say)."""
    shown = text(value)
    kind = " class='num'" if _NUMBER.fullmatch(shown) else " class='long'" if any(len(word) > _LONG for word in _WORDS.split(shown)) else ""
    return f"<td{kind}>{header(shown)}</td>"


def badge(label: str) -> str:
    words = label.replace("_", " ")
    return f"<span class='label {words.replace(' ', '-')}'>{html.escape(words)}</span>"


def column_title(name) -> str:
    """A column's name as a person reads it: words, not snake_case (``halt_code`` -> "halt code")."""
    return html.escape(str(name).replace("_", " "))


def _described(name) -> str:
    """The column's description (its results field's) as the header's tooltip, when it has one."""
    description = field_descriptions().get(str(name))
    return f" title='{html.escape(description, quote=True)}'" if description else ""


@functools.cache
def field_descriptions() -> dict[str, str]:
    """Every results column's one-line description, from the installed families' fields."""
    from alc_dask.families import family_names, get_family

    found = {}
    for name in family_names():
        for field in get_family(name).fields:
            if field.metadata and b"description" in field.metadata:
                found.setdefault(field.name, field.metadata[b"description"].decode())
    return found


def header(name) -> str:
    """A column name or an identifier, breakable after each underscore."""
    return html.escape(str(name)).replace("_", "_<wbr>")


def text(value) -> str:
    """A cell's text: blank when missing, whole numbers above 1 whole (counts), other numbers to three
    decimals (shares, 1 and 0 included), JSON compact."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.0f}" if value.is_integer() and 1 < abs(value) < 1e15 else f"{value:.{_DECIMALS}f}"  # a share of 1 is 1.000
    if isinstance(value, str):
        return compact_json(value)
    return str(value)


def compact_json(value: str) -> str:
    """A JSON list or object as short text (``["a", "b"]`` -> ``a, b``; ``{"k": 1, "m": null}`` ->
    ``k=1``); any other string as it is."""
    if not value.startswith(("[", "{")):
        return value
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    if isinstance(parsed, list):
        return ", ".join(_compact(item) for item in parsed)
    return _compact(parsed)


def _nested(value) -> str:
    """A value inside an object: in parentheses when it is itself a list of settings."""
    shown = _compact(value)
    return f"({shown})" if isinstance(value, dict) and ", " in shown else shown


def _compact(value) -> str:
    if isinstance(value, dict):
        kept = {key: item for key, item in value.items() if item not in (None, {}, [])}
        if list(kept) == ["name"]:
            return _compact(kept["name"])
        return ", ".join(f"{key}={_nested(item)}" for key, item in kept.items())
    if isinstance(value, list):
        return "[" + ", ".join(_compact(item) for item in value) + "]"
    return str(value)
