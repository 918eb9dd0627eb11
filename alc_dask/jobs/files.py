"""Reading the YAML and JSON files a job names: the job file itself and the column-kinds sidecar.

Files are plain data: duplicate keys are refused (the last one would silently win), and so is YAML
whose aliases expand it past a bound (see ``plain_yaml``). Every error is a ``JobSpecError`` naming
the file.
"""

import json
from pathlib import Path

import yaml

from alc_dask.errors import JobSpecError
from alc_dask.jobs.plain_yaml import PlainDataLoader
from alc_dask.shown import shown


def parse_file(path: Path):
    """The data of a YAML or JSON file (by its suffix), duplicate keys refused."""
    suffix = path.suffix.lower()
    if suffix not in (".json", ".yaml", ".yml"):
        raise JobSpecError(f"{path}: unknown file format {path.suffix!r}; expected .yaml, .yml or .json")
    text = read_text(path)
    try:
        if suffix == ".json":
            return json.loads(text, object_pairs_hook=_unique_keys)
        return yaml.load(text, Loader=PlainDataLoader)  # noqa: S506 - a SafeLoader, bounded
    except (json.JSONDecodeError, yaml.YAMLError, _DuplicateKeyError) as error:
        raise JobSpecError(f"{path}: malformed {suffix[1:].upper()}: {error}") from None


COLUMN_KINDS = ("categorical", "continuous")


def read_kinds(path: str | Path, field: str) -> dict[str, str]:
    """The column kinds a sidecar file declares: YAML or JSON, a mapping of column name to
    categorical or continuous, which `check --types FILE`, `evaluate(types=FILE)` and a job's
    `release.columns: FILE` share. A ``JobSpecError`` names the field, the file and the entry."""
    path = Path(path)
    if not path.is_file():
        raise JobSpecError(f"{field}: file {str(path)!r} not found")
    data = parse_file(path)
    if not isinstance(data, dict):
        raise JobSpecError(f"{field}: {path}: expected a mapping of column names to {' or '.join(COLUMN_KINDS)}; got {type(data).__name__}")
    for column, kind in data.items():
        if kind not in COLUMN_KINDS:
            raise JobSpecError(f"{field}: {path}: column {column!r}: {shown(kind)} is not a kind; expected {' or '.join(COLUMN_KINDS)}")
    return {str(column): kind for column, kind in data.items()}


def read_text(path: Path) -> str:
    """The file's text, UTF-8 with or without a byte order mark; otherwise an error naming the file."""
    try:
        return path.read_bytes().decode("utf-8-sig")
    except OSError as error:  # unreadable: a folder without permission, say
        raise JobSpecError(f"{path}: cannot be read ({error.strerror or error})") from None
    except UnicodeDecodeError as error:
        raise JobSpecError(f"{path}: not UTF-8 text (byte {error.object[error.start]:#04x} at offset {error.start}); save it as UTF-8") from None


class _DuplicateKeyError(ValueError):
    """A JSON object names a key twice."""


def _unique_keys(pairs: list[tuple]) -> dict:
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise _DuplicateKeyError(f"duplicate key {key!r}")
        seen.add(key)
    return dict(pairs)
