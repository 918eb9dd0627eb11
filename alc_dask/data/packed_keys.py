"""Key columns coded to small integers and a key's codes packed into one int64, so that a table's
records are counted per key (and target) by one group-by of one integer column per block, whatever
the number of quasi-identifiers.

The columns come as coded frames (``alc_dask.data.key_counts``): every value a number, a missing
value a code of its own, continuous columns by their declared bins. A first cheap pass collects
each column's distinct values over every block of every table (``distinct_values``, merged by
``Vocabulary.of``); a value's code is its rank among them, the same in every block and table. A
key of columns with ``c_1, ..., c_m`` codes is then the mixed-radix number ``sum(code_i * r_i)``,
``r_m = 1``, ``r_i = r_{i+1} * c_{i+1}``: distinct keys are distinct numbers, as long as the
product of the cardinalities fits an int64 (else the codes are grouped as columns, ``Packing.packs``
False). Counts of blocks are then summed per number: memory is bounded by the distinct keys.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import prod

import numpy as np
import pandas as pd

from alc_dask.measure.disclosure import COUNT

INT64_LIMIT = int(np.iinfo(np.int64).max)
KEY = "__key"
"""The column of a packed key in counts frames."""


def distinct_values(frame: pd.DataFrame, columns: Sequence[str]) -> dict[str, np.ndarray]:
    """Each column's distinct values in one coded block (unsorted)."""
    return {name: pd.unique(frame[name].to_numpy()) for name in columns}


@dataclass(frozen=True)
class Vocabulary:
    """The sorted distinct values of each column over every block: a value's code is its rank."""

    values: Mapping[str, np.ndarray]

    @classmethod
    def of(cls, parts: Sequence[Mapping[str, np.ndarray]]) -> Vocabulary:
        """The vocabulary of every block's ``distinct_values``."""
        names = parts[0].keys() if parts else ()
        return cls({name: np.unique(np.concatenate([p[name] for p in parts])) for name in names})

    def cardinality(self, name: str) -> int:
        return max(len(self.values[name]), 1)

    def codes(self, frame: pd.DataFrame, columns: Sequence[str]) -> dict[str, np.ndarray]:
        """The codes of ``columns`` of a coded block, each value's rank in the vocabulary."""
        return {name: np.searchsorted(self.values[name], frame[name].to_numpy()).astype(np.int64) for name in columns}


@dataclass(frozen=True)
class Packing:
    """How the records of one set of key columns (and a target) are counted.

    ``names`` are the key's columns in counts frames: ``(KEY,)`` when the codes are packed, else
    the key columns themselves; the target keeps its name and its code.
    """

    keys: tuple[str, ...]
    target: str | None
    cardinalities: tuple[int, ...]
    """Of the keys, then the target."""

    @classmethod
    def of(cls, vocabulary: Vocabulary, keys: Sequence[str], target: str | None) -> Packing:
        columns = (*keys, target) if target else tuple(keys)
        return cls(tuple(keys), target, tuple(vocabulary.cardinality(c) for c in columns))

    @property
    def packs(self) -> bool:
        """Whether every key (and target) fits one int64: the product of the cardinalities does."""
        return prod(self.cardinalities) <= INT64_LIMIT

    @property
    def names(self) -> tuple[str, ...]:
        return (KEY,) if self.packs else self.keys

    @property
    def by(self) -> tuple[str, ...]:
        """The columns of a counts frame before ``COUNT``."""
        return (*self.names, self.target) if self.target else self.names

    def counts(self, codes: Mapping[str, np.ndarray]) -> pd.Series:
        """Records per distinct key (and target) of one block: a series of ``COUNT`` indexed by the
        packed number, or by the code columns when they do not pack."""
        columns = (*self.keys, self.target) if self.target else self.keys
        if self.packs:
            return pd.Series(self._packed(codes, columns)).value_counts(sort=False).rename(COUNT).rename_axis(KEY)
        return pd.DataFrame({c: codes[c] for c in columns}).groupby(list(columns), sort=False).size().rename(COUNT)

    def frame(self, counts: pd.Series) -> pd.DataFrame:
        """Counts (of ``counts``) as a frame of ``by`` and ``COUNT``: a packed number split into its
        key and its target code."""
        frame = counts.reset_index()
        if self.packs and self.target:
            number, radix = frame.pop(KEY).to_numpy(), self.cardinalities[-1]
            frame.insert(0, KEY, number // radix)
            frame.insert(1, self.target, number % radix)
        return frame

    def key_frame(self, codes: Mapping[str, np.ndarray], index: pd.Index) -> pd.DataFrame:
        """Each record's key (``names``) and target code, indexed by its row."""
        keys = {KEY: self._packed(codes, self.keys)} if self.packs else {c: codes[c] for c in self.keys}
        return pd.DataFrame({**keys, **({self.target: codes[self.target]} if self.target else {})}, index=index)

    def _packed(self, codes: Mapping[str, np.ndarray], columns: Sequence[str]) -> np.ndarray:
        number = np.zeros(len(codes[columns[0]]), dtype=np.int64)
        for name, cardinality in zip(columns, self.cardinalities):
            number *= cardinality
            number += codes[name]
        return number


def summed(*parts: pd.Series) -> pd.Series:
    """Counts of several blocks summed per key (and target)."""
    whole = pd.concat(parts)
    return whole.groupby(level=list(range(whole.index.nlevels)), sort=False).sum()
