"""The ML baseline's model choice and block predictions, remembered per worker process.

Both depend only on the original table's known and secret columns, the baseline and measure
settings, the seed and the block: scenarios that share these (several attacks on one secret; the
paper's weak and strong releases of one original) compute them once per process. Keys are digests
of the arrays themselves, so a remembered value is exactly what a fresh computation would give.
"""

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

MEMO_ENTRIES = 8192
"""Remembered values per process, at most about 50 MiB (a block's predictions are 12 bytes a
target, blocks at most 1000 targets). A job's ML scenarios (about 500 per worker in a paper job,
two entries each) must outlive it for the next job on the same original to find them: at 512
entries the weak jobs of the full paper run found none."""


class Memo:
    """A small thread-safe least-recently-used memo (scenarios may run side by side in one worker)."""

    def __init__(self, entries: int = MEMO_ENTRIES):
        self.entries = entries
        self._values: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0

    def get(self, key: str, compute: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                self.hits += 1
                return self._values[key]
        value = compute()
        with self._lock:
            self._values[key] = value
            while len(self._values) > self.entries:
                self._values.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
            self.hits = 0


def digest(*parts) -> str:
    """A digest of arrays (their dtype, shape and bytes) and of other values (their repr)."""
    hash_ = hashlib.blake2b(digest_size=16)
    for part in parts:
        if isinstance(part, np.ndarray):
            hash_.update(f"{part.dtype.str}{part.shape}".encode())
            hash_.update(np.ascontiguousarray(part).view(np.uint8).data)
        else:
            hash_.update(repr(part).encode())
        hash_.update(b"\x00")
    return hash_.hexdigest()


BASELINES = Memo()
"""This process's memo of model choices and block predictions."""
