"""Python entry points: how packages, this one included, add attacks and evaluation families by
name; and names a package exports from its modules, imported on first use.

``importlib.metadata`` is imported, and every installed distribution's entry points read, only when
a family or attack is first looked up: ``alc-dask --help`` needs neither."""

from functools import cache
from importlib import import_module

OWN_DISTRIBUTION = "alc-dask"


@cache
def installed(group: str) -> dict[str, str]:
    """``name -> "module:qualname"`` of the entry points in ``group`` of every installed package, by
    name; this package's own come first, so another package cannot replace a built-in name."""
    owners: dict[object, str | None] = {}  # a distribution's name is read from its metadata file at each ask: once per distribution
    entries = sorted(_every_entry_point().select(group=group), key=lambda entry: (_distribution(entry, owners) != OWN_DISTRIBUTION, entry.name))
    found: dict[str, str] = {}
    for entry in entries:
        found.setdefault(entry.name, entry.value)
    return found


@cache
def _every_entry_point():
    """Every group's entry points, read in one pass over the installed distributions (each group's
    own pass would read them all again)."""
    from importlib import metadata

    return metadata.entry_points()


def _distribution(entry, owners: dict) -> str | None:
    if entry.dist is None:
        return None
    if entry.dist not in owners:
        owners[entry.dist] = entry.dist.name.replace("_", "-").lower()
    return owners[entry.dist]


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
