"""Evaluation families by name, as installed packages register them (this one included)::

    [project.entry-points."alc_dask.families"]
    my_family = "my_package.module:MyFamily"

Entry points are read in every process that looks a name up, so a family installed in the
workers' environment runs on a real cluster, and an unknown name is rejected when a job is loaded.
"""

from __future__ import annotations

from alc_dask.measure import SettingError
from alc_dask.plugins import installed, load_object

FAMILY_GROUP = "alc_dask.families"
DEFAULT_FAMILY = "alc"
"""The family of a job's scenario entry that names none (attribute inference scored with the ALC)."""


def family_names() -> list[str]:
    """The default family, then every other registered family by name.

    Returns
    -------
    list of str
        The names a job's ``family:`` may say: the built-in families and those of installed packages.

    Examples
    --------
    >>> from alc_dask.families import family_names
    >>> names = family_names()
    >>> names[0], "membership" in names
    ('alc', True)
    """
    return sorted(installed(FAMILY_GROUP), key=lambda name: (name != DEFAULT_FAMILY, name))


def get_family(name: str) -> type:
    """The family class registered as ``name`` (its module imported now).

    Parameters
    ----------
    name : str
        A name of `family_names`.

    Returns
    -------
    type
        The `EvaluationFamily` subclass.

    Raises
    ------
    SettingError
        An unknown name, listing the known ones.

    Examples
    --------
    >>> from alc_dask.families import get_family
    >>> get_family("membership").headline
    'membership_alc'
    """
    target = installed(FAMILY_GROUP).get(name)
    if target is None:
        known = ", ".join(family_names())
        raise SettingError("family", name, f"a known family: {known}", f"unknown family {name!r}; known families: {known}")
    return load_object(target)
