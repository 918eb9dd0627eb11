"""Exceptions raised for bad input, so callers can tell a bad release from a bug."""

from alc_dask.errors import InputError, ReleaseWarning

__all__ = ["ReleaseError", "ReleaseWarning", "ScenarioError"]


class ReleaseError(InputError, ValueError):
    """A release table cannot be used: the message names the table (file) and the column."""


class ScenarioError(InputError, ValueError):
    """An attack scenario (secret column, known columns) does not fit the release.

    Raised when a scenario is set up or attacked, never while loading: a release stays usable
    for every other scenario.
    """
