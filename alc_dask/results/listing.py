"""``parts.json``: every part written, with its rows of scores per family and of predictions, so
that a resumed run can tell a part deleted or cut short since (``check``) from one never written.

It is updated after a part is written and before one is removed: a part missing from it (written
just before a crash) is only checked for being whole.
"""

import json

from alc_dask.results.files import Files

LISTING = "parts.json"


class Listing:
    """The listing of one results folder, read once and kept in step with what is written."""

    def __init__(self, files: Files):
        self.files = files
        self._listed: dict[str, dict] | None = None

    def entries(self) -> dict[str, dict]:
        """Part name -> ``{"scores": {family: rows}, "predictions": rows}``."""
        if self._listed is None:
            path = self.files.path(LISTING)
            try:
                self._listed = json.loads(self.files.read_bytes(path)) if self.files.exists(path) else {}
            except ValueError:  # cut short: ``check`` rebuilds it from the parts present
                self._listed = {}
        return self._listed

    def add(self, name: str, held: dict) -> None:
        self.save({**self.entries(), name: held})

    def discard(self, name: str) -> None:
        if name in self.entries():
            self.save({listed: held for listed, held in self.entries().items() if listed != name})

    def save(self, listed: dict[str, dict]) -> None:
        self.files.put_bytes(self.files.path(LISTING), json.dumps(listed, sort_keys=True).encode())
        self._listed = listed
