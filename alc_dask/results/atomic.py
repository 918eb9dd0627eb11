"""Local files written atomically: a reader sees a file whole or not at all, never half-written.

A file is written to a hidden temporary name beside it, then renamed into place (``os.replace``
is atomic) or, to create it only if it is new, hard-linked into place (``os.link`` fails on an
existing name, so of two processes creating one path at once exactly one succeeds).
"""

import os
import posixpath
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress

TEMPORARY = ".tmp-"  # in the name of a local file being written: ``.<name>.tmp-<pid>-<call>``


@contextmanager
def replacing(path: str) -> Iterator[str]:
    """A temporary name to write ``path`` at, renamed into place once written, removed if the write fails."""
    temporary = temporary_name(path)
    try:
        yield temporary
        os.replace(temporary, path)
    except BaseException:
        with suppress(OSError):
            os.remove(temporary)
        raise


def link_new(path: str, data: bytes) -> bool:
    """Write ``data`` at ``path`` unless a file is there already (then False)."""
    temporary = temporary_name(path)
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
        os.link(temporary, path)
    except FileExistsError:
        return False
    finally:
        with suppress(OSError):
            os.remove(temporary)
    return True


def temporary_name(path: str) -> str:
    """A hidden name beside ``path``, of this process and call: two threads writing one file never share it."""
    folder, name = posixpath.split(path)
    return f"{folder}/.{name}{TEMPORARY}{os.getpid()}-{uuid.uuid4().hex[:8]}"
