"""What a generalized cell of a k-anonymous table means: the set of domain values it covers.

Values are compared as text: a number's text is its shortest form (an integral number ``37``, not
``37.0``); text stays as written. A cell is read by the first rule that fits:

- ``*`` alone: suppressed, every value of the domain;
- with a generalization hierarchy for the column (ARX's CSV format: one row per value, its
  generalizations level by level to the right): a cell equal to an entry at any level covers the
  values of the rows where it appears; any other cell is an error (no hierarchy covers it);
- an interval ``[lo, hi]`` or ``[lo-hi]`` (``(``/``)`` open ends, and ARX's reversed ``[lo, hi[``):
  the domain values that are numbers within it;
- a set ``{a, b, c}``: those values;
- a value with ``*`` in it (masking, as ARX writes ``4550*``): each ``*`` is one character; when
  that covers nothing, a trailing ``*`` stands for any ending (a prefix);
- anything else: the value itself (a number also matches the same number written otherwise,
  ``37.0`` for ``37``).

A cell that covers no value of the domain is an error.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

_NUMBER = r"\s*(-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*"
_INTERVAL = re.compile(rf"^([\[(\]]){_NUMBER}(?:,|;|-(?=\s*[-\d.]))\s*{_NUMBER}([\])\[])$")


def value_text(value) -> str | None:
    """The text a value is compared by (None: missing)."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return str(int(number)) if number.is_integer() and abs(number) < 2**63 else repr(number)
    return str(value)


def texts(series: pd.Series) -> list[str | None]:
    return [value_text(v) for v in series.tolist()]


@dataclass(frozen=True)
class Hierarchy:
    """A generalization hierarchy: every entry (value or generalization) -> the values it covers."""

    values: tuple[str, ...]
    covers: dict[str, frozenset[str]]

    @classmethod
    def read(cls, path: str, delimiter: str, name: str) -> Hierarchy:
        from alc_dask.data.errors import ReleaseError

        try:
            rows = pd.read_csv(path, sep=delimiter, header=None, dtype=str, keep_default_na=False).to_numpy()
        except Exception as exc:
            raise ReleaseError(f"{name}: cannot read hierarchy {path!r} ({type(exc).__name__}: {exc})") from exc
        if rows.size == 0:
            raise ReleaseError(f"{name}: hierarchy {path!r} is empty")
        covers: dict[str, set[str]] = {}
        for row in rows:
            leaf = value_text(_number_or_text(row[0].strip()))
            for entry in row:
                if entry.strip():
                    covers.setdefault(entry.strip(), set()).add(leaf)
        return cls(tuple(dict.fromkeys(value_text(_number_or_text(r[0].strip())) for r in rows)), {k: frozenset(v) for k, v in covers.items()})


def _number_or_text(text: str):
    """A hierarchy's leaf as the number it writes, so "37.0" and "37" are one value."""
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) and re.fullmatch(r"-?\d+(\.\d+)?", text) else text


class Domain:
    """The values a quasi-identifier can take, coded 0..n−1 in sorted order (numerically when every
    value is a number)."""

    def __init__(self, values: set[str]):
        numbers = {v: _as_float(v) for v in values}
        numeric = all(not math.isnan(n) for n in numbers.values())
        self.values = np.array(sorted(values, key=(lambda v: (numbers[v], v)) if numeric else None), dtype=object)
        self.code = {v: i for i, v in enumerate(self.values)}
        self.numbers = np.array([numbers[v] for v in self.values], dtype=np.float64)

    def codes(self, values: list[str | None]) -> np.ndarray:
        """Codes of exact values; -1 for a missing or unknown one."""
        return np.array([self.code.get(v, -1) if v is not None else -1 for v in values], dtype=np.int32)

    def cell(self, cell: str, hierarchy: Hierarchy | None) -> np.ndarray:
        """The sorted codes a generalized cell covers; ``ValueError`` saying why when it covers none."""
        text = cell.strip()
        if not text:
            raise ValueError("it is empty")
        if text == "*":
            return np.arange(len(self.values), dtype=np.int32)
        if hierarchy is not None:
            if text not in hierarchy.covers:
                raise ValueError("no hierarchy entry covers it")
            return self._known(hierarchy.covers[text])
        interval = _INTERVAL.match(text)
        if interval:
            opening, low, high, closing = interval.groups()
            low, high = float(low), float(high)
            above = self.numbers > low if opening in "(]" else self.numbers >= low
            below = self.numbers < high if closing in ")[" else self.numbers <= high
            return self._found(np.flatnonzero(above & below), "no value of the domain lies in this interval")
        if text.startswith("{") and text.endswith("}"):
            items = [item.strip() for item in text[1:-1].split(",") if item.strip()]
            return self._found(np.array(sorted(self.code[i] for i in items if i in self.code), dtype=np.int64), "none of its values is in the domain")
        if "*" in text:
            one_each = re.compile("^" + re.escape(text).replace(r"\*", ".") + "$")
            codes = [i for i, v in enumerate(self.values) if one_each.match(v)]
            if not codes and text.endswith("*"):
                prefix = text.rstrip("*")
                codes = [i for i, v in enumerate(self.values) if v.startswith(prefix)]
            return self._found(np.array(codes, dtype=np.int64), "no value of the domain matches it")
        if text in self.code:
            return np.array([self.code[text]], dtype=np.int32)
        number = _as_float(text)
        if not math.isnan(number) and (self.numbers == number).any():  # "37.0" as a CSV writes a float column's 37
            return np.flatnonzero(self.numbers == number).astype(np.int32)
        raise ValueError("it is not a value of the domain")

    def _known(self, values: frozenset[str]) -> np.ndarray:
        return self._found(
            np.array(sorted(self.code[v] for v in values if v in self.code), dtype=np.int64), "its hierarchy entry covers no value of the domain"
        )

    @staticmethod
    def _found(codes: np.ndarray, reason: str) -> np.ndarray:
        if len(codes) == 0:
            raise ValueError(reason)
        return codes.astype(np.int32)


def _as_float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return float("nan")
