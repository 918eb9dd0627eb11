"""One writer at a time for an output folder: a lease naming its holder.

Two runs writing one folder would remove each other's unfinished parts and mix their results, and
both would exit 0. A run therefore holds the folder by a lease file, ``.lease-<n>.json``, naming
the host, the process (with its start time, so a reused process id is not taken for the holder)
and when the run started, with a heartbeat refreshed every ``HEARTBEAT`` seconds. The holder is
the highest ``n``. A lease file is created exclusively (a hard link locally, a PUT with
``If-None-Match: *`` on an object store), so of two runs taking ``n + 1`` at once exactly one
succeeds; the other sees a live holder and stops, or waits.

A lease is stale when its process is gone: on this host, no process with its id and start time;
from another host, no heartbeat for ``EXPIRES`` seconds (clocks are assumed to agree to well within
that). A stale lease is taken over, with a message naming it.
"""

from __future__ import annotations

import json
import os
import re
import socket
import threading
import time
import uuid
import warnings
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

import psutil

from alc_dask.errors import LeaseWarning
from alc_dask.results.files import Files
from alc_dask.results.manifest import ResultsError

HEARTBEAT = 15.0
EXPIRES = 120.0
POLL = 2.0
_NAME = re.compile(r"\.lease-(\d+)\.json")


class FolderBusy(ResultsError):
    """The output folder is held by another live run."""


@dataclass(frozen=True)
class Holder:
    host: str
    pid: int
    process_started: float
    started: str
    heartbeat: float
    token: str

    @classmethod
    def me(cls) -> Holder:
        return cls(socket.gethostname(), os.getpid(), psutil.Process().create_time(), _now_text(), time.time(), uuid.uuid4().hex)

    def describe(self) -> str:
        return f"a run on host {self.host}, process {self.pid}, started {self.started}"

    def alive(self) -> bool:
        if self.host != socket.gethostname():
            return time.time() - self.heartbeat < EXPIRES
        try:
            return abs(psutil.Process(self.pid).create_time() - self.process_started) < 1.0
        except psutil.NoSuchProcess:
            return False
        except psutil.AccessDenied:
            return True  # another user's process of that id: assume it is the holder


class FolderLease:
    """The lease of one output folder, held from ``acquire`` to ``release`` (also a context manager)."""

    def __init__(self, files: Files):
        self.files = files
        self.holder = Holder.me()
        self._name: str | None = None
        self._stop = threading.Event()
        self._beating: threading.Thread | None = None

    def acquire(self, wait: bool = False) -> FolderLease:
        """Take the folder; if a live run holds it, raise ``FolderBusy`` naming it, or wait for it (``wait``)."""
        told = False
        while True:
            number, current = self._current()
            if current is not None and current.alive():
                if not wait:
                    raise FolderBusy(
                        f"output folder {self.files.url} is in use by {current.describe()}; wait for it to end (--wait), or write to another folder (--out)"
                    )
                if not told:
                    warnings.warn(f"waiting for {current.describe()} to finish with output folder {self.files.url}", LeaseWarning, stacklevel=2)
                    told = True
                time.sleep(POLL)
                continue
            if self._create(number + 1):
                if current is not None:
                    warnings.warn(f"output folder {self.files.url}: taking it over from {current.describe()}, which is gone", LeaseWarning, stacklevel=2)
                self._remove_older(number + 1)
                self._beating = threading.Thread(target=self._beat, name="alc-dask-lease", daemon=True)
                self._beating.start()
                return self

    def release(self) -> None:
        """Give the folder up (a lease taken over meanwhile is left to its new holder)."""
        self._stop.set()
        if self._beating is not None:
            self._beating.join()
        if self._name is not None and self._still_mine():
            self.files.remove(self.files.path(self._name))
        self._name = None

    def __enter__(self) -> FolderLease:
        return self

    def __exit__(self, *exception) -> None:
        self.release()

    def _current(self) -> tuple[int, Holder | None]:
        numbers = sorted(int(m.group(1)) for name in self.files.names(self.files.root) if (m := _NAME.fullmatch(name)))
        if not numbers:
            return 0, None
        return numbers[-1], self._read(numbers[-1])

    def _read(self, number: int) -> Holder | None:
        try:
            return Holder(**json.loads(self.files.read_bytes(self.files.path(_name(number)))))
        except FileNotFoundError:
            return None  # released meanwhile
        except (ValueError, TypeError) as error:
            raise ResultsError(
                f"{self.files.show(_name(number))}: not a lease of alc_dask ({error}); remove it if no run is writing {self.files.url}"
            ) from None

    def _create(self, number: int) -> bool:
        created = self.files.create_exclusive(self.files.path(_name(number)), self._record())
        if created:
            self._name = _name(number)
        return created

    def _remove_older(self, number: int) -> None:
        for name in self.files.names(self.files.root):
            match = _NAME.fullmatch(name)
            if match and int(match.group(1)) < number:
                self.files.remove(self.files.path(name))

    def _beat(self) -> None:
        while not self._stop.wait(HEARTBEAT):
            try:
                if self._still_mine():
                    self.holder = Holder(**{**asdict(self.holder), "heartbeat": time.time()})
                    self.files.put_bytes(self.files.path(self._name), self._record())
            except OSError as error:
                warnings.warn(f"output folder {self.files.url}: the lease's heartbeat could not be written ({error})", LeaseWarning, stacklevel=1)

    def _still_mine(self) -> bool:
        number = int(_NAME.fullmatch(self._name).group(1))
        current = self._read(number)
        return current is not None and current.token == self.holder.token and self._current()[0] == number

    def _record(self) -> bytes:
        return json.dumps(asdict(self.holder), indent=1).encode()


def _name(number: int) -> str:
    return f".lease-{number}.json"


def _now_text() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
