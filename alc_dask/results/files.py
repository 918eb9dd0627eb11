"""Files of results and reports on any fsspec file system: a local folder, ``s3://bucket/prefix``, ``memory://``...

A file is never seen half-written. Locally it is written to a hidden temporary name and renamed
into place (see ``atomic``). On an object store a PUT is already atomic (an object appears whole
or not at all), so the final key is written directly: renaming there is a copy.
"""

import functools
import os
import posixpath
from pathlib import Path

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq
from fsspec.implementations.local import LocalFileSystem

from alc_dask.errors import MissingPathError, PathError
from alc_dask.results.atomic import TEMPORARY, link_new, replacing

ROW_GROUP = 64 * 1024


def is_url(location: str | os.PathLike) -> bool:
    return "://" in str(location)


def join(location: str | os.PathLike, *names: str) -> Path | str:
    """``location/names...``: a Path for a local folder, a URL string for a URL (a Path would fold its ``//``)."""
    if is_url(location):
        return "/".join([str(location).rstrip("/"), *names])
    return Path(location).joinpath(*names)


def write_file(location: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` at ``location`` (creating its folder), atomically."""
    folder = Files(location)
    folder.makedirs(folder.parent(folder.root))
    folder.put_bytes(folder.root, data)


def read_bytes(location: str | os.PathLike) -> bytes | None:
    """The file's bytes; None when there is no such file."""
    try:
        with fsspec.open(str(location), "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def read_text(location: str | os.PathLike) -> str:
    with fsspec.open(str(location), "rt", encoding="utf-8") as handle:
        return handle.read()


def _named_errors(operation):
    """Every error as a ``PathError`` naming the file (these are the user's output and results
    folders): a file system's own (an unreachable endpoint, missing credentials), and one of the
    operating system's that names no file or another one (a full disk fails a write with ENOSPC and
    no name; a local write fails on its temporary name)."""

    @functools.wraps(operation)
    def named(self, path, *args):
        try:
            return operation(self, path, *args)
        except OSError as error:
            raise _path_error(error, self.display(path)) from error
        except Exception as error:  # noqa: BLE001 - each file system raises its own types (botocore's, gcsfs', ...)
            raise PathError(f"{self.display(path)}: {type(error).__name__}: {error}") from error

    return named


def _path_error(error: OSError, shown: str) -> PathError:
    """``error`` naming ``shown`` (as it is when it names it already), with its errno; a missing file stays a ``FileNotFoundError``."""
    kind = MissingPathError if isinstance(error, FileNotFoundError) else PathError
    if shown in str(error):
        return kind(error.errno, error.strerror, error.filename) if error.filename is not None else kind(*error.args)
    if error.errno is None:
        return kind(f"{shown}: {error}")
    return kind(error.errno, error.strerror, shown)


class Files:
    """One root on its file system; paths are the file system's own (a URL without its protocol)."""

    def __init__(self, root: str | os.PathLike):
        self.url = str(root)
        self.fs, self.root = fsspec.core.url_to_fs(self.url)
        self.local = isinstance(self.fs, LocalFileSystem)

    def path(self, *names: str) -> str:
        return "/".join([self.root.rstrip("/"), *names])

    def show(self, *names: str) -> str:
        """How messages name a file: as the user gave the root, then the names."""
        return str(join(self.url, *names))

    def display(self, path: str) -> str:
        """A path of this file system as a URL (a local path as it is)."""
        return path if self.local else self.fs.unstrip_protocol(path)

    @staticmethod
    def parent(path: str) -> str:
        return posixpath.dirname(path.rstrip("/"))

    @_named_errors
    def names(self, folder: str) -> list[str]:
        """Names of the entries of ``folder`` (none when it does not exist), listed afresh, not from a cache."""
        self.fs.invalidate_cache(folder)
        try:
            return sorted(posixpath.basename(entry.rstrip("/")) for entry in self.fs.ls(folder, detail=False))
        except (FileNotFoundError, NotADirectoryError):
            return []

    @_named_errors
    def folders(self, folder: str) -> list[str]:
        self.fs.invalidate_cache(folder)
        try:
            entries = self.fs.ls(folder, detail=True)
        except (FileNotFoundError, NotADirectoryError):
            return []
        return sorted(posixpath.basename(entry["name"].rstrip("/")) for entry in entries if entry["type"] == "directory")

    @_named_errors
    def makedirs(self, folder: str) -> None:
        self.fs.makedirs(folder, exist_ok=True)

    @_named_errors
    def exists(self, path: str) -> bool:
        return self.fs.isfile(path)

    @_named_errors
    def read_bytes(self, path: str) -> bytes:
        return self.fs.cat_file(path)

    @_named_errors
    def footer_rows(self, path: str) -> int:
        """Rows of a Parquet file, read from its footer alone; an OSError naming it when it has none (cut short, or not Parquet)."""
        with self.fs.open(path, "rb") as handle:
            return pq.ParquetFile(handle).metadata.num_rows

    @_named_errors
    def put_bytes(self, path: str, data: bytes) -> None:
        if not self.local:
            self.fs.pipe_file(path, data)
            return
        with replacing(path) as temporary, open(temporary, "wb") as handle:
            handle.write(data)

    @_named_errors
    def create_exclusive(self, path: str, data: bytes) -> bool:
        """Write ``data`` at ``path`` unless a file is there already (then False), atomically: of two
        processes creating one path at once, exactly one succeeds. An object store is sent a PUT that
        only succeeds if the key is new; locally a complete file is hard-linked into place."""
        if self.local:
            return link_new(path, data)
        try:
            self.fs.pipe_file(path, data, mode="create")
        except FileExistsError:
            return False
        return True

    @_named_errors
    def put_table(self, path: str, table: pa.Table) -> None:
        """A Parquet file; row groups of at most ``ROW_GROUP`` rows so that filters on sorted columns skip most of them."""
        if not self.local:
            sink = pa.BufferOutputStream()
            pq.write_table(table, sink, row_group_size=ROW_GROUP)
            self.fs.pipe_file(path, sink.getvalue().to_pybytes())
            return
        with replacing(path) as temporary:
            pq.write_table(table, temporary, row_group_size=ROW_GROUP)

    @_named_errors
    def remove(self, path: str) -> None:
        try:
            self.fs.rm_file(path)
        except FileNotFoundError:
            pass

    def remove_temporaries(self, folder: str) -> None:
        """Files a local write left when its process died (an object store has none)."""
        if self.local:
            for name in self.names(folder):
                if name.startswith(".") and TEMPORARY in name:
                    self.remove(f"{folder}/{name}")
