"""Python entry points: how installed packages add attacks and evaluation families by name."""

from functools import cache
from importlib import import_module, metadata


@cache
def installed(group: str) -> dict[str, str]:
    """``name -> "module:qualname"`` of the entry points in ``group`` of every installed package."""
    return {entry.name: entry.value for entry in metadata.entry_points(group=group)}


def load_object(target: str):
    """The object an entry-point string ``module:qualname`` names."""
    module, _, qualname = target.partition(":")
    found = import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found
