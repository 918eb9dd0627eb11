"""What a generalized cell of a k-anonymous table means: the set of domain values it covers.

Values are compared as text: a number's text is its shortest form (an integral number ``37``, not
``37.0``); text stays as written. Where a value is looked up (a cell, a set's member, a hierarchy's
leaf), one written as another form of a domain value's number (``37.0``, ``037``) is that value.

A cell is read by the first rule that fits:

- ``*`` alone: suppressed, every value of the domain;
- with a generalization hierarchy for the column (ARX's CSV format: one row per value, its
  generalizations level by level to the right, ``;`` between them by default): a cell equal to
  an entry at any level covers the leaves of the rows where it appears; any other cell is an
  error (no hierarchy entry covers it). A hierarchy's leaves belong to the column's domain;
- an interval ``[lo, hi]`` or ``[lo-hi]`` (``(``/``)`` open ends, and ARX's reversed ``[lo, hi[``
  and ``]lo, hi]``), or an open end ``<hi``, ``<=hi``, ``>lo``, ``>=lo``: the domain values that
  are numbers within it (bounds may be negative or decimal);
- a set ``{a, b, c}`` (members separated by commas): those values, each of which must be in the domain;
- a value with ``*`` in it (masking, as ARX writes ``4550*``): each ``*`` is exactly one
  character; when that covers nothing, a trailing ``*`` stands for any ending (a prefix);
- anything else: the value itself.

A cell that covers no value of the domain is an error: it is a release the original does not
explain (a wrong original, or a syntax not read here), never a value made up for it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from alc_dask.data.errors import ReleaseError
from alc_dask.data.grouped import OUTSIDE

_NUMBER = r"\s*(-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*"
_INTERVAL = re.compile(rf"^([\[(\]]){_NUMBER}(?:,|;|-(?=\s*[-\d.]))\s*{_NUMBER}([\])\[])$")
_OPEN_END = re.compile(rf"^(<=|>=|<|>){_NUMBER}$")


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
    """A generalization hierarchy: its leaves, and every entry (leaf or generalization) -> the leaves it covers."""

    leaves: tuple[str, ...]
    covers: dict[str, frozenset[str]]
    path: str

    @classmethod
    def read(cls, path: str, delimiter: str, name: str) -> Hierarchy:
        """The hierarchy in ARX's CSV file ``path`` (no header); ``name`` (its field) is used in errors."""
        try:
            rows = pd.read_csv(path, sep=delimiter, header=None, dtype=str, keep_default_na=False).to_numpy()
        except Exception as exc:  # every reader failure becomes one clear message
            raise ReleaseError(f"{name}: cannot read hierarchy {path!r} ({type(exc).__name__}: {exc})") from exc
        if rows.size == 0:
            raise ReleaseError(f"{name}: hierarchy {path!r} is empty")
        covers: dict[str, set[str]] = {}
        for row in rows:
            leaf = row[0].strip()
            for entry in (e.strip() for e in row):
                if entry:
                    covers.setdefault(entry, set()).add(leaf)
        return cls(tuple(dict.fromkeys(r[0].strip() for r in rows)), {k: frozenset(v) for k, v in covers.items()}, path)


class Domain:
    """The values a quasi-identifier (or the sensitive column) can take, coded 0..n−1 in sorted order
    (numerically when every value is a number, else as text)."""

    def __init__(self, values: Iterable[str]):
        numbers = {v: _as_float(v) for v in set(values)}
        numeric = not any(math.isnan(n) for n in numbers.values())
        self.values = np.array(sorted(numbers, key=(lambda v: (numbers[v], v)) if numeric else None), dtype=object)
        self.code = {v: i for i, v in enumerate(self.values)}
        self.numbers = np.array([numbers[v] for v in self.values], dtype=np.float64)

    @classmethod
    def joined(cls, known: Iterable[str], more: Iterable[str]) -> Domain:
        """The ``known`` values and ``more``, but for those of ``more`` that are a known value written otherwise."""
        base = cls(known)
        extra = {v for v in more if base.find(v) == OUTSIDE}
        return cls([*base.values, *extra]) if extra else base

    def find(self, text: str | None) -> int:
        """The code of a value (or of the same number written otherwise); OUTSIDE for a missing or unknown one."""
        if text is None:
            return OUTSIDE
        code = self.code.get(text)
        if code is not None:
            return code
        number = _as_float(text)
        same = np.flatnonzero(self.numbers == number) if not math.isnan(number) else ()
        return int(same[0]) if len(same) else OUTSIDE

    def codes(self, values: list[str | None]) -> np.ndarray:
        """Codes of exact values; OUTSIDE for a missing or unknown one."""
        return np.array([self.find(v) for v in values], dtype=np.int32)

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
            return self._found([self.find(leaf) for leaf in hierarchy.covers[text]], "its hierarchy entry covers no value of the domain")
        for rule in (self._interval, self._open_end, self._set, self._masked):
            codes = rule(text)
            if codes is not None:
                return codes
        return self._found([self.find(text)], "it is not a value of the domain")

    def _interval(self, text: str) -> np.ndarray | None:
        match = _INTERVAL.match(text)
        if match is None:
            return None
        opening, low, high, closing = match.groups()
        above = self.numbers > float(low) if opening in "(]" else self.numbers >= float(low)
        below = self.numbers < float(high) if closing in ")[" else self.numbers <= float(high)
        return self._found(np.flatnonzero(above & below), "no value of the domain lies in this interval")

    def _open_end(self, text: str) -> np.ndarray | None:
        match = _OPEN_END.match(text)
        if match is None:
            return None
        compare, bound = match.groups()
        within = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}[compare](self.numbers, float(bound))
        return self._found(np.flatnonzero(within), "no value of the domain lies in this interval")

    def _set(self, text: str) -> np.ndarray | None:
        if not (text.startswith("{") and text.endswith("}")):
            return None
        members = [m.strip() for m in text[1:-1].split(",") if m.strip()]
        unknown = [m for m in members if self.find(m) == OUTSIDE]
        if unknown:
            raise ValueError(f"its member {unknown[0]!r} is not a value of the domain")
        return self._found([self.find(m) for m in members], "it has no member")

    def _masked(self, text: str) -> np.ndarray | None:
        if "*" not in text:
            return None
        one_each = re.compile(re.escape(text).replace(r"\*", "."))
        codes = [i for i, v in enumerate(self.values) if one_each.fullmatch(v)]
        if not codes and text.endswith("*"):
            prefix = text.rstrip("*")
            codes = [i for i, v in enumerate(self.values) if v.startswith(prefix)]
        return self._found(codes, "no value of the domain matches it")

    @staticmethod
    def _found(codes, reason: str) -> np.ndarray:
        codes = np.unique(np.asarray(codes, dtype=np.int32))
        codes = codes[codes != OUTSIDE]
        if len(codes) == 0:
            raise ValueError(reason)
        return codes


def _as_float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return float("nan")
