"""Python entry points: how installed packages add attacks and evaluation families by name; and
names a package exports from its modules, imported on first use."""

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


def lazy_exports(package: str, exports: dict[str, str]):
    """A package's module ``__getattr__`` (PEP 562): each of ``exports`` (name -> module) imported
    from its module when first used, so that importing the package imports none of them."""

    def __getattr__(name: str):
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return load_object(f"{exports[name]}:{name}")

    return __getattr__
