"""The parts of a results folder: their names and order, writing and removing them.

Each write of buffered outcomes is one part, named ``part-<8-digit sequence>.parquet``, the
sequence growing with every part written to the folder, so that names sort in write order. A part
is a scores file per family it holds rows of, ``scores/<family>/<name>``, and the predictions of
all of them, ``predictions/<name>``, written first: a scenario is complete exactly when a scores
file holds its row.
"""

import re
import warnings

import pandas as pd
import pyarrow as pa

from alc_dask.families import family_names, get_family
from alc_dask.measure import SettingError
from alc_dask.results.files import Files
from alc_dask.results.listing import Listing
from alc_dask.results.manifest import ResultsError
from alc_dask.results.scan import row_keys, written_schema
from alc_dask.results.schema import family_schema

PART = re.compile(r"part-(\d{8})\.parquet")
FAMILY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
"""A family's name as a folder name (no separator, never ``.`` or ``..``)."""


def part_name(sequence: int) -> str:
    return f"part-{sequence:08d}.parquet"


def sequence_of(name: str) -> int:
    """A part's place in write order."""
    return int(PART.fullmatch(name)[1])


def in_write_order(names) -> list[str]:
    return sorted(set(names), key=sequence_of)


def every_part(present: dict[str, list[str]]) -> list[str]:
    """The names of the parts of every family of ``present`` (family -> its parts), in write order."""
    return in_write_order(name for names in present.values() for name in names)


class Parts:
    """The ``scores/<family>/`` and ``predictions/`` folders under one root, on any fsspec file system."""

    def __init__(self, files: Files):
        self.files = files
        self.scores = files.path("scores")
        self.predictions = files.path("predictions")
        self.listing = Listing(files)
        self._sequence: int | None = None
        self._made: set[str] = set()

    def scores_path(self, family: str, name: str) -> str:
        return f"{self.scores}/{family}/{name}"

    def predictions_path(self, name: str) -> str:
        return f"{self.predictions}/{name}"

    def present(self) -> dict[str, list[str]]:
        """Per family with a folder (registered families in their order, then others by name), its
        parts in write order; another Parquet file there is named in a warning and left out."""
        folders = [name for name in self.files.folders(self.scores) if FAMILY.fullmatch(name)]
        order = {name: index for index, name in enumerate(family_names())}
        present = {}
        for family in sorted(folders, key=lambda name: (order.get(name, len(order)), name)):
            if names := self._part_names(f"{self.scores}/{family}", f"scores/{family}"):
                present[family] = names
        for name in self.files.names(self.scores):  # beside the family folders
            if name.endswith(".parquet"):
                self._stray("scores", name)
        return present

    def prediction_names(self) -> set[str]:
        return {name for name in self.files.names(self.predictions) if PART.fullmatch(name)}

    def rows(self, present: dict[str, list[str]]) -> pd.DataFrame:
        """``scenario_id``, ``status``, ``part`` and ``family`` of every row of the parts ``present`` lists."""
        frames = [row_keys(self.files, [self.scores_path(family, name) for name in names]).assign(family=family) for family, names in present.items()]
        return pd.concat(frames, ignore_index=True) if frames else row_keys(self.files, []).assign(family=[])

    def schema(self, family: str, names: list[str]) -> pa.Schema:
        """The table of ``family``: as its registered class defines it, else (a family no longer
        installed) as its parts ``names`` were written."""
        try:
            get_family(family)
        except SettingError:
            if not names:
                raise ResultsError(f"no family {family!r} in the results of {self.files.url}; known families: {', '.join(family_names())}") from None
            return written_schema(self.files, self.scores_path(family, names[0]))
        return family_schema(family)

    def write(self, scores: dict[str, pa.Table], predictions: pa.Table | None) -> str:
        """A new part: predictions first, so that no scores file lacks its predictions; then a scores
        file per family (``scores``: family -> its rows); then listed."""
        name = self.next_name()
        if predictions is not None:
            self.files.put_table(self.predictions_path(name), predictions)
        for family, table in scores.items():
            if family not in self._made:
                self.files.makedirs(f"{self.scores}/{family}")
                self._made.add(family)
            self.files.put_table(self.scores_path(family, name), table)
        held = {family: table.num_rows for family, table in scores.items()}
        self.listing.add(name, {"scores": held, "predictions": 0 if predictions is None else predictions.num_rows})
        return name

    def next_name(self) -> str:
        """After every part of every folder, those of a write that died halfway included."""
        if self._sequence is None:
            families = [f"{self.scores}/{family}" for family in self.files.folders(self.scores)]
            existing = [name for folder in (*families, self.predictions) for name in self.files.names(folder) if PART.fullmatch(name)]
            self._sequence = max([0, *map(sequence_of, existing)])
        self._sequence += 1
        return part_name(self._sequence)

    def remove(self, name: str, families: list[str] | None = None) -> None:
        """Unlisted, then its scores files (of ``families``, default every family's), then its
        predictions: a predictions file without scores files is never read."""
        self.listing.discard(name)
        for family in self.files.folders(self.scores) if families is None else families:
            self.files.remove(self.scores_path(family, name))
        self.files.remove(self.predictions_path(name))

    def remove_leftovers(self) -> None:
        """Temporary files, and predictions whose scores files were never written (a write that died)."""
        for folder in (self.scores, *(f"{self.scores}/{family}" for family in self.files.folders(self.scores)), self.predictions):
            self.files.remove_temporaries(folder)
        complete = set(every_part(self.present()))
        for name in self.prediction_names() - complete:
            self.files.remove(self.predictions_path(name))

    def _part_names(self, folder: str, shown: str) -> list[str]:
        names = []
        for name in self.files.names(folder):
            if PART.fullmatch(name):
                names.append(name)
            elif name.endswith(".parquet"):
                self._stray(shown, name)
        return in_write_order(names)

    def _stray(self, folder: str, name: str) -> None:
        warnings.warn(f"{self.files.show(folder, name)}: not a results part (parts are scores/<family>/part-<number>.parquet); ignored", stacklevel=4)
