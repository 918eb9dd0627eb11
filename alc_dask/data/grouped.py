"""`GroupedTable`: a group-anonymized release (Boreale et al. 2020, §II), encoded for the Bayesian attack.

Two schemes share one layout. Rows are the released rows, sorted by group (`group_offsets[i]` to
`group_offsets[i + 1]` are group i's), each with its sensitive value (codes into
`sensitive_values`). What a row says of the quasi-identifiers differs:

- ``generalized`` (k-anonymity, ℓ-diversity; a horizontal scheme): ``qi[j, a]`` is the id of the
  row's generalized cell for quasi-identifier ``a``; the cell covers the domain codes
  ``cell_values[a][cell_offsets[a][c]:cell_offsets[a][c + 1]]`` (sorted). A row's hidden value is any
  tuple of the product of its cells (Boreale et al.'s assumption (33)).
- ``anatomy`` (a vertical scheme): ``qi[j]`` is a tuple of domain codes of the group's
  quasi-identifier table; which of the group's tuples belongs to which sensitive value is hidden
  (any permutation within the group, (34)). ``cell_offsets`` and ``cell_values`` are empty.

The quasi-identifier domains are the values the evaluator knows of: the original table's, and the
leaves of any generalization hierarchy. The cleartext table (the release's original) is encoded in
the same codes, so its rows are the victims; -1 marks a value outside the domain.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

Scheme = Literal["generalized", "anatomy"]
OUTSIDE = -1
"""Code of a value the release's domain does not hold."""


@dataclass(frozen=True, eq=False)
class GroupedTable:
    scheme: Scheme
    quasi_identifiers: tuple[str, ...]
    sensitive: str
    domains: tuple[np.ndarray, ...]
    """Per quasi-identifier, its values as text; code i is ``domains[a][i]``."""
    sensitive_values: np.ndarray
    """The sensitive values as text; code i is ``sensitive_values[i]``."""
    group_offsets: np.ndarray
    sensitive_codes: np.ndarray
    qi: np.ndarray
    cell_offsets: tuple[np.ndarray, ...]
    cell_values: tuple[np.ndarray, ...]
    original_qi: np.ndarray
    """The cleartext table's quasi-identifier codes, one row per original row (OUTSIDE: not in the domain)."""
    original_sensitive: np.ndarray
    control_qi: np.ndarray | None = None
    """The control table's quasi-identifier codes (people not in the release), if the release has one."""

    @property
    def n_rows(self) -> int:
        return len(self.sensitive_codes)

    @property
    def n_groups(self) -> int:
        return len(self.group_offsets) - 1

    @property
    def group_sizes(self) -> np.ndarray:
        return np.diff(self.group_offsets)

    def domain_sizes(self) -> np.ndarray:
        return np.array([len(d) for d in self.domains], dtype=np.int64)

    def cell_sizes(self, attribute: int) -> np.ndarray:
        """How many domain values each generalized cell of ``attribute`` covers."""
        return np.diff(self.cell_offsets[attribute])

    def distinct_sensitive_per_group(self) -> np.ndarray:
        """ℓ of each group: its number of distinct sensitive values."""
        group = np.repeat(np.arange(self.n_groups), self.group_sizes)
        pairs = np.unique(group.astype(np.int64) * len(self.sensitive_values) + self.sensitive_codes)
        return np.bincount(pairs // len(self.sensitive_values), minlength=self.n_groups)
