"""Evaluation families by name: the built-in ones and those installed with an entry point.

A package adds a family by declaring, in its pyproject.toml::

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
_BUILT_IN = {
    "alc": "alc_dask.families.alc:AlcFamily",
    "singling_out": "alc_dask.families.singling_out:SinglingOut",
    "linkability": "alc_dask.families.linkability:Linkability",
    "inference": "alc_dask.families.inference:Inference",
    "membership": "alc_dask.families.membership:Membership",
    "identification": "alc_dask.families.identification:Identification",
    "relative_threat": "alc_dask.families.relative_threat:RelativeThreat",
}


def family_names() -> list[str]:
    """Built-in families in their order, then installed ones by name."""
    return [*_BUILT_IN, *sorted(set(installed(FAMILY_GROUP)) - set(_BUILT_IN))]


def get_family(name: str) -> type:
    """The family class registered as ``name``; a ``SettingError`` listing the known names otherwise."""
    target = _BUILT_IN.get(name) or installed(FAMILY_GROUP).get(name)
    if target is None:
        known = ", ".join(family_names())
        raise SettingError("family", name, f"a known family: {known}", f"unknown family {name!r}; known families: {known}")
    return load_object(target)
