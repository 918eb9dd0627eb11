"""`Release`: the original table, the anonymized tables and an optional control table, prepared once.

Missing values are kept, never dropped: a missing categorical value is a category of its own
(it matches only another missing value), and a missing continuous value is a full mismatch
(distance 1) unless both sides are missing (distance 0).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from alc_dask.data.encoding import Bins, CodeTable
from alc_dask.data.errors import ScenarioError
from alc_dask.data.grouped import GroupedTable
from alc_dask.data.loading import TableSource, read_tables
from alc_dask.data.schema import MAX_CATEGORIES, Column, ColumnKind
from alc_dask.data.table import EncodedTable

DISCRETIZED_SUFFIX = "__discretized"


@dataclass(frozen=True, eq=False)
class Release:
    """A prepared release: the original table, the anonymized tables and an optional control table,
    with one column schema and every table encoded as numpy arrays.

    Encoded once, with codes shared by every table, so attacks compare codes instead of values, and
    cheap to ship to a cluster's workers (arrays and small code tables, no DataFrames). Build one
    with `load`.

    Attributes
    ----------
    columns : Mapping[str, Column]
        Each column's kind (categorical or continuous), codes and bins.
    original : EncodedTable
        The people the release was made from (the attacks' targets).
    anonymized : tuple
        The released tables, each holding some of the original's columns; a release kept on a
        cluster's workers holds partitioned tables (``alc_dask.data.partitioned``) instead.
    control : EncodedTable or None
        Other people of the same population, never released.
    grouped : GroupedTable or None
        A group-anonymized table (k-anonymous or Anatomy), read by the attacks that understand one.
    generator : Mapping or None
        How the release was made, as declared (a job's ``release.generator``: ``name``, ``version``,
        ``epsilon``, ``delta``); the membership family reads a declared ε against its attacks.

    Examples
    --------
    >>> from alc_dask import Release
    >>> from alc_dask.testing.truth import truth_releases
    >>> truth = truth_releases(rows=500)  # 500 synthetic people, a control table and releases of them
    >>> release = Release.load(truth.members, [truth.releases["copy"]], control=truth.control)
    >>> release.original.n_rows, len(release.anonymized), release.column("age").kind
    (500, 1, <ColumnKind.CONTINUOUS: 'continuous'>)
    >>> release.decode("sex", release.secret_column("sex")[:3]).tolist()
    ['male', 'male', 'female']
    """

    columns: Mapping[str, Column]
    original: EncodedTable
    anonymized: tuple
    control: EncodedTable | None = None
    grouped: GroupedTable | None = None
    generator: Mapping[str, Any] | None = None

    @classmethod
    def load(
        cls,
        original: TableSource,
        anonymized: Sequence[TableSource] | TableSource,
        control: TableSource | None = None,
        columns: Mapping[str, str] | None = None,
        max_categories: int = MAX_CATEGORIES,
        kinds: str = "alc_dask",
        grouped=None,
    ) -> Release:
        """Read, type and encode a release.

        Missing values are kept: a missing category is a category of its own, and numbers stay
        exact (integers beyond 2^53 too); datetimes count as nanoseconds since 1970-01-01 UTC.

        Parameters
        ----------
        original : path, URL or pandas.DataFrame
            The people the release was made from: a Parquet or CSV file (local path, folder or glob
            of parts, or fsspec URL) or a DataFrame.
        anonymized : one or a sequence of the same
            The released tables; each may hold a subset of the original's columns.
        control : the same, optional
            Other people of the same population, never released; holds every column.
        columns : Mapping[str, str], optional
            ``"categorical"`` or ``"continuous"`` per column, overriding the inferred kind.
        max_categories : int, optional
            A numeric column with more distinct values than this is continuous.
        kinds : {"alc_dask", "reference"}, default "alc_dask"
            ``"reference"`` infers kinds by the reference package's rule (``alc_dask.data.reference_kinds``).
        grouped : GroupedSpec or Mapping, optional
            A group-anonymized table (generalized or Anatomy); the anonymized tables may then be none.

        Returns
        -------
        Release

        Raises
        ------
        ReleaseError
            Unreadable or inconsistent input, naming the table and the column.

        Warns
        -----
        ReleaseWarning
            A continuous column that a few extreme values dominate (its distances would say little).

        Examples
        --------
        >>> import pandas as pd
        >>> from alc_dask import Release
        >>> original = pd.DataFrame({"zip": ["1010", "1020", None], "age": [34, 51, 29], "income": ["low", "high", "low"]})
        >>> released = original.drop(columns="zip")  # a table may hold some of the columns
        >>> release = Release.load(original, released, columns={"age": "categorical"})
        >>> {name: str(column.kind) for name, column in release.columns.items()}
        {'zip': 'categorical', 'age': 'categorical', 'income': 'categorical'}
        >>> release.anonymized[0].columns
        ('age', 'income')
        """
        return cls(*read_tables(original, anonymized, control, columns, max_categories, kinds, grouped))

    @property
    def partitioned(self) -> bool:
        """Whether the tables are held in parts (on a cluster's workers), not whole in this process."""
        return not isinstance(self.original, EncodedTable) or any(not isinstance(t, EncodedTable) for t in self.anonymized)

    def column(self, name: str) -> Column:
        """The column `name`; `<col>__discretized` names the discretized copy of a continuous column."""
        base = name.removesuffix(DISCRETIZED_SUFFIX)
        if base not in self.columns or (base != name and self.columns[base].kind is not ColumnKind.CONTINUOUS):
            raise ScenarioError(f"unknown column {name!r}; the release has {list(self.columns)}")
        return self.columns[base]

    def secret_codes(self, secret: str) -> CodeTable | Bins:
        """How the secret's values are coded: its code table, or the bins of a continuous secret."""
        return self.column(secret).secret_codes

    def decode(self, secret: str, codes: np.ndarray) -> np.ndarray:
        """Secret values (bins, as intervals, for a continuous secret) of secret codes; None: missing."""
        decoded = self.secret_codes(secret).decode(codes)
        origin = self.column(secret).origin
        return np.array([None if v is None else v + origin for v in decoded], dtype=object) if origin else decoded

    def targets(self, rows: np.ndarray | slice, source: str = "original") -> EncodedTable:
        """Encoded rows of the original (or of the control table, `source="control"`), e.g. attack targets."""
        if source == "control" and self.control is None:
            raise ScenarioError("the release has no control table")
        table = {"original": self.original, "control": self.control}[source]
        return table.rows(rows)

    def true_codes(self, secret: str, targets: EncodedTable) -> np.ndarray:
        """The secret codes of encoded rows (discretized for a continuous secret)."""
        column = self.column(secret)
        if column.kind is ColumnKind.CATEGORICAL:
            return targets.codes[targets.categorical.index(column.name)].copy()
        return column.bins.encode(targets.values[targets.continuous.index(column.name)])

    def true_values(self, secret: str, targets: EncodedTable) -> np.ndarray:
        """The numbers of a continuous secret in encoded rows (NaN: missing)."""
        return targets.values[targets.continuous.index(self.column(secret).name)].copy()

    def value_span(self, secret: str) -> float:
        """Max - min of a continuous column over the original table."""
        index = self.original.continuous.index(self.column(secret).name)
        return float(self.original.value_max[index] - self.original.value_min[index])

    def secret_column(self, secret: str) -> np.ndarray:
        """The secret codes of every original row (gathered from the cluster for a partitioned original)."""
        return _secret_codes(self.original, self.column(secret))

    def secret_values_present(self, secret: str) -> np.ndarray:
        """The distinct secret codes of the original table, found block by block for a partitioned one."""
        column = self.column(secret)
        if isinstance(self.original, EncodedTable):
            return np.unique(_secret_codes(self.original, column))
        return np.unique(np.concatenate(self.original.map_blocks(_distinct_secret_codes, column)))

    def tables_holding(self, columns: Sequence[str]) -> tuple:
        """The anonymized tables that hold every one of `columns`."""
        wanted = {self.column(c).name for c in columns}
        return tuple(t for t in self.anonymized if wanted <= set(t.columns))

    def usable_tables(self, secret: str, known: Sequence[str]) -> tuple:
        """Anonymized tables that hold the secret and at least one known column (Francis & Wagner 2025, §5.2).

        Raises `ScenarioError` when the scenario cannot be attacked at all: an unknown column, no
        known column, the secret among the known columns, the secret in no anonymized table, or
        none of the known columns in any anonymized table. An empty result means every target abstains.
        """
        secret_name = self.column(secret).name
        known_names = [self.column(c).name for c in known]
        if not known_names:
            raise ScenarioError(f"secret {secret!r}: no known columns given")
        if secret_name in known_names:
            raise ScenarioError(f"secret {secret!r} is also a known column")
        if not self.anonymized and self.grouped is not None:
            return ()  # a group-anonymized release only: its attacks read `grouped`
        if not self.tables_holding([secret_name]):
            raise ScenarioError(f"secret {secret!r} is in no anonymized table")
        if not any(set(known_names) & set(t.columns) for t in self.anonymized):
            raise ScenarioError(f"none of the known columns {known_names} is in any anonymized table")
        return tuple(t for t in self.tables_holding([secret_name]) if set(known_names) & set(t.columns))


def _secret_codes(table: EncodedTable, column: Column) -> np.ndarray:
    values = table.column_array(column.name)
    return values.copy() if column.kind is ColumnKind.CATEGORICAL else column.bins.encode(values)


def _distinct_secret_codes(block: EncodedTable, column: Column) -> np.ndarray:
    return np.unique(_secret_codes(block, column))
