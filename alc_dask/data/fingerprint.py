"""What a release table's data is, as a short digest: results measured on a table are resumed only
while its digest is unchanged, so a table republished at the same path is caught.

A table is a file, a directory of part files (a partitioned dataset, possibly hive-partitioned in
subfolders), or a glob of part files, on the local disk or at any fsspec URL. In a directory, every
file is a part except names starting with ``.`` or ``_`` at any level (``_SUCCESS``, ``_metadata``,
``.crc`` files: what Parquet dataset readers skip too).

The rule, chosen for speed: local data of at most ``HASH_LIMIT`` bytes in all is hashed in full
(SHA-256), catching even a part rewritten with the same size and modification time. Larger local
data and any URL get a digest of metadata instead, since hashing 10 GB takes minutes and a URL
would be downloaded twice: per part, sorted by relative path, its relative path, size and version
(an object store's ETag, else its modification time), and for Parquet parts the footer's row count
and schema (only the footer is read). A part added, removed or rewritten changes either digest.
"""

import hashlib
import json
import os
import re
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import NamedTuple

import fsspec
import pyarrow.parquet as pq
from fsspec.implementations.local import LocalFileSystem

from alc_dask.data.errors import ReleaseError

HASH_LIMIT = 256 * 2**20
"""Local data up to this many bytes is hashed in full (about 0.2 s from the page cache); beyond, its metadata is digested."""
VERSION_KEYS = ("ETag", "etag", "md5Hash", "generation", "mtime", "LastModified", "last_modified", "updated", "created")
"""Keys of fsspec file details that change when a file is rewritten, most telling first (ETag before a date)."""
FOOTER_READERS = 16
"""Parquet footers read at once: over a URL each read is a round trip."""
_GLOB = re.compile(r"[*?[]")
_PARQUET = re.compile(r"\.(parquet|pq)$", re.IGNORECASE)


class DataFile(NamedTuple):
    relative: str
    path: str
    info: dict


class Dataset(NamedTuple):
    """The files of one table; ``single`` when its path names one file (not a directory or a glob)."""

    fs: fsspec.AbstractFileSystem
    files: list[DataFile]
    single: bool


def data_digest(path: str, field: str, hash_limit: int = HASH_LIMIT) -> str:
    """The digest of the table at ``path`` (file, directory, glob or URL); ``field`` names it in errors.

    ``sha256:`` and a file's hash for one local file within ``hash_limit`` (as earlier versions
    recorded it), ``sha256-parts:`` for local parts within it, else ``metadata:``.
    """
    fs, files, single = dataset_files(path, field)
    if isinstance(fs, LocalFileSystem) and sum(f.info["size"] for f in files) <= hash_limit:
        if single:
            return "sha256:" + _file_hash(files[0].path)
        return "sha256-parts:" + _digest([[f.relative, _file_hash(f.path)] for f in files])
    with ThreadPoolExecutor(FOOTER_READERS) as pool:
        entries = list(pool.map(lambda f: _metadata_entry(fs, f, field), files))
    return "metadata:" + _digest(entries)


def dataset_files(path: str, field: str) -> Dataset:
    """The files of the table at ``path``, sorted by relative path.

    ReleaseError naming ``field`` and ``path`` when the file system is unknown or unreachable, or
    the path matches no file.
    """
    try:
        fs, location = fsspec.core.url_to_fs(path)
        if _GLOB.search(location):
            files, single = _glob_files(fs, location), False
        elif fs.isdir(location):
            files, single = _directory_files(fs, location), False
        else:
            files, single = [_single_file(fs, location)], True
    except ReleaseError as error:
        raise ReleaseError(f"{field}: {path!r}: {error}") from None
    except ImportError as error:
        raise ReleaseError(f"{field}: {path!r}: cannot open this kind of URL: {error}") from None
    except Exception as error:  # noqa: BLE001 - any file system's failure: refused, unknown host, denied, bad protocol
        raise ReleaseError(f"{field}: {path!r}: cannot be reached ({type(error).__name__}: {error})") from None
    return Dataset(fs, sorted(files), single)


def _directory_files(fs, location: str) -> list[DataFile]:
    root = location.rstrip("/")
    found = fs.find(root, detail=True).items()
    files = [DataFile(name[len(root) :].lstrip("/"), name, info) for name, info in found if not _hidden(name[len(root) :])]
    if not files:
        raise ReleaseError("the directory holds no part file (names starting with '.' or '_' are not parts)")
    return files


def _single_file(fs, location: str) -> DataFile:
    try:
        info = fs.info(location)
    except FileNotFoundError:
        raise ReleaseError("no such file or directory") from None
    return DataFile(os.path.basename(location.rstrip("/")), location, info)


def _glob_files(fs, location: str) -> list[DataFile]:
    """The files ``location`` matches, relative to the folder before its first wildcard."""
    root = location[: _GLOB.search(location).start()].rpartition("/")[0]
    files = [DataFile(name[len(root) :].lstrip("/"), name, info) for name, info in fs.glob(location, detail=True).items() if info["type"] == "file"]
    if not files:
        raise ReleaseError("the pattern matches no file")
    return files


def _hidden(relative: str) -> bool:
    return any(part.startswith((".", "_")) for part in relative.split("/") if part)


def _file_hash(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _metadata_entry(fs, file: DataFile, field: str) -> list:
    version = next(([key, _plain(file.info[key])] for key in VERSION_KEYS if key in file.info), None)
    entry = [file.relative, file.info.get("size"), version]
    if _PARQUET.search(file.relative):
        entry += _footer(fs, file, field)
    return entry


def _footer(fs, file: DataFile, field: str) -> list:
    """Row count and schema from the Parquet footer: the file's end only is read."""
    try:
        with fs.open(file.path, "rb") as handle:
            metadata = pq.read_metadata(handle)
    except Exception as error:  # noqa: BLE001 - a corrupt or truncated part, or a read that failed
        raise ReleaseError(f"{field}: {fs.unstrip_protocol(file.path)!r}: cannot read its Parquet footer ({type(error).__name__}: {error})") from None
    return [metadata.num_rows, [[column.name, str(column.type)] for column in metadata.schema.to_arrow_schema()]]


def _plain(value):
    return value.timestamp() if isinstance(value, datetime) else value if isinstance(value, int | float) else str(value)


def _digest(entries: list) -> str:
    return hashlib.sha256(json.dumps(entries, sort_keys=True).encode()).hexdigest()
