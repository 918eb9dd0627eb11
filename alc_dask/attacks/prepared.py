"""Attacks' prepared states, remembered per release in this process: one attack prepared once per
release and task, however many scenarios, batches and baselines ask for it.

Keyed by the release object itself, held weakly. A job's release is scattered once to each worker,
where every task of the job gets that same object, so its identity is exactly "this release in
this process": free to compute (a fingerprint of the data would hash every table again), never
confused with another release (an ``id`` may be reused once its object is gone; a weak key is
dropped with it), and what is remembered goes when the release goes, so a worker keeps no state of
finished jobs. A stand-in release built from another (the prior baseline's swapped copy) is a
release of its own, unless the attack keys its state on a table both share (``Attack.prepared_on``).

Within a release, states are keyed by ``attack.preparation_key(task)`` (the attack's class,
parameters and task unless it says otherwise), least recently used first out beyond
``STATES_PER_RELEASE``. Two threads asking for the same state at once may both prepare it (never
waiting on each other, which on a cluster could hold a thread a search needs); the first stored
is the one kept, and both are the same, since preparing is deterministic.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from alc_dask.attacks.base import Attack

STATES_PER_RELEASE = 128
"""Prepared states kept per release: a scenario's own are used batch after batch (so never the
least recent), and a release's hundred or so best row match scenarios keep little each (a count
per secret value); a membership sample's distances are the largest, a few hundred kB."""


class PreparedStates:
    """What attacks prepared, per release held by this process (thread-safe)."""

    def __init__(self, per_release: int = STATES_PER_RELEASE):
        self.per_release = per_release
        self._releases: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        self.prepared = 0
        """How many states were computed (not found): for tests and measurements."""

    def get(self, release, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The state remembered for ``release`` (or the table of it an attack's state belongs to) under ``key``, else ``compute()``'s."""
        with self._lock:
            states = self._releases.get(release)
            if states is not None and key in states:
                states.move_to_end(key)
                return states[key]
        value = compute()
        with self._lock:
            states = self._releases.setdefault(release, OrderedDict())
            value = states.setdefault(key, value)
            states.move_to_end(key)
            while len(states) > self.per_release:
                states.popitem(last=False)
            self.prepared += 1
        return value

    def releases(self) -> int:
        """How many releases this process holds states of."""
        with self._lock:
            return len(self._releases)


PREPARED = PreparedStates()
"""This process's prepared states."""


def prepared_state(attack: Attack, release, task) -> Any:
    """``attack.prepare(release, task)``, computed once per release and preparation key in this process.
    An attack without a ``prepare`` of its own has nothing to remember: None, at no cost."""
    if type(attack).prepare is Attack.prepare:
        return None
    return PREPARED.get(attack.prepared_on(release), attack.preparation_key(task), lambda: attack.prepare(release, task))
