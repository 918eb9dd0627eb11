"""Release tables: loading, typing, shared encoding, discretized secrets."""

from alc_dask.data.encoding import Bins, CodeTable, ValuePoints
from alc_dask.data.errors import ReleaseError, ReleaseWarning, ScenarioError
from alc_dask.data.grouped import GroupedTable
from alc_dask.data.release import DISCRETIZED_SUFFIX, Release
from alc_dask.data.schema import Column, ColumnKind
from alc_dask.data.table import EncodedTable

__all__ = [
    "DISCRETIZED_SUFFIX",
    "Bins",
    "ValuePoints",
    "CodeTable",
    "Column",
    "ColumnKind",
    "EncodedTable",
    "GroupedTable",
    "Release",
    "ReleaseError",
    "ReleaseWarning",
    "ScenarioError",
]
