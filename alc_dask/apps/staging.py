"""Where the engine reads the tables of a ``check`` or ``evaluate``: each file as given, or a copy
of a table it cannot read as given (a DataFrame, a CSV split by ``--sep``) written for one run and
removed once it ends, so that nothing of the data is left on disk; for a cluster whose workers may
run elsewhere, in the output folder, kept and said."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from alc_dask.engine.progress import say

if TYPE_CHECKING:
    from alc_dask.apps.check import CheckInputs


def staging_folder(output: Path) -> Path:
    """Where the tables the engine cannot read as given (DataFrames, CSV split by ``--sep``) are
    written for one run: the system's temporary space, in a folder named after the output folder,
    so that a re-run into it finds the same paths (the job unchanged) and resumes."""
    digest = hashlib.sha256(str(output.resolve()).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"alc-dask-inputs-{digest}"


@contextmanager
def engine_inputs(inputs: CheckInputs, output: Path, shared: bool = False) -> Iterator[dict[str, str | None]]:
    """Where the engine reads each table (role -> absolute path, None for no control table): its
    file, or a copy written for the run and removed once it ends (nothing of the data is left on
    disk); with ``shared`` (the workers of a cluster elsewhere read it), in ``output/data/``, kept,
    and said."""
    folder = output / "data" if shared else staging_folder(output)
    try:
        paths = engine_paths(inputs, folder)
        written = [role for role, path in inputs.paths.items() if path is None]
        if shared and written:
            say(f"the {', '.join(written)} table(s) were written to {folder.resolve()} for the cluster's workers to read: remove them once the check is done")
        yield paths
    finally:
        if not shared:
            shutil.rmtree(folder, ignore_errors=True)


def engine_paths(inputs: CheckInputs, folder: Path) -> dict[str, str | None]:
    """Each table's path for the engine: its file, or for a table it cannot read as given, a copy
    written to ``folder/<role>.parquet``."""
    from alc_dask.results.files import write_file

    paths = dict(inputs.paths)
    for role, table in (("original", inputs.original), ("release", inputs.release), ("control", inputs.control)):
        if table is not None and paths.get(role) is None:
            paths[role] = str((folder / f"{role}.parquet").resolve())
            write_file(paths[role], table.to_parquet(index=False))
    return {role: None if paths.get(role) is None else str(Path(paths[role]).resolve()) for role in ("original", "release", "control")}
