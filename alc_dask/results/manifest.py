"""``job.json``: the settings, data and alc_dask version a folder's results were measured with, and
the layout of its files.

It is written with the first part, so a start that fails earlier does not hold the folder.
Resuming with any of them changed is refused rather than mixing results.

Layouts: 1, alc_dask 0.6.0 and earlier (its manifest names none): one scores table for every
family, ``scores/part-*.parquet``. 2, since 0.7.0: a table per family, ``scores/<family>/part-*.parquet``.
A folder of another layout is refused, by readers and writers alike: never misread, never added to.
"""

import json

from alc_dask import __version__
from alc_dask.errors import InputError
from alc_dask.results.files import Files

MANIFEST = "job.json"
LAYOUT = 2


class ResultsError(InputError, ValueError):
    """An output directory cannot be written, read or resumed."""


def check_manifest(files: Files, manifest: dict, has_results: bool) -> None:
    """Refuse a folder whose results were measured otherwise; a manifest without results holds nothing."""
    if not has_results:
        return
    previous = read_manifest(files)
    if previous is not None and previous.get("fingerprint") != manifest["fingerprint"]:
        raise ResultsError(
            f"output directory {files.url} holds results of job {previous.get('job')!r} measured with other settings or data "
            f"(changed: {', '.join(_changes(previous, manifest)) or 'unknown'}); use another output directory or remove it"
        )


def check_layout(files: Files) -> None:
    """Refuse a folder of results in another layout than this version's, saying which version wrote it and what to do."""
    try:
        manifest = read_manifest(files) or {}
    except ResultsError:
        manifest = {}  # corrupt: the folder's files tell its layout (a writer refuses it with ``check_manifest``)
    layout, version = manifest.get("layout"), manifest.get("alc_dask")
    if layout is None and any(name.endswith(".parquet") for name in files.names(files.path("scores"))):
        raise ResultsError(
            f"{files.url} holds results of alc_dask {version or '0.6.0 or earlier'} in their single-table layout (scores/part-*.parquet); "
            f"alc_dask {__version__} keeps a table per family (scores/<family>/) and neither reads nor adds to them: "
            f"run the job into a new folder (--out), or read these with alc_dask {version or '0.6.0'}"
        )
    if layout is not None and layout != LAYOUT:
        raise ResultsError(
            f"{files.url} holds results of alc_dask {version or 'unknown'} in layout {layout}, which alc_dask {__version__} (layout {LAYOUT}) "
            f"cannot read: run the job into a new folder (--out), or read these with alc_dask {version or 'of that layout'}"
        )


def read_manifest(files: Files) -> dict | None:
    path = files.path(MANIFEST)
    if not files.exists(path):
        return None
    try:
        return json.loads(files.read_bytes(path))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ResultsError(f"{files.show(MANIFEST)}: corrupt manifest ({error}); use another output directory, or remove this one to start afresh") from None


def write_manifest(files: Files, manifest: dict) -> None:
    """``manifest`` with the layout the results are written in."""
    files.put_bytes(files.path(MANIFEST), json.dumps({**manifest, "layout": LAYOUT}, indent=1, sort_keys=True).encode())


def _changes(previous: dict, current: dict) -> list[str]:
    """What differs between two manifests: settings fields, release files whose data changed, the version."""
    changed = _changed_fields(previous.get("settings", {}), current.get("settings", {}))
    data_before, data_now = previous.get("data", {}), current.get("data", {})
    changed += [f"{name} data" for name in sorted(set(data_before) | set(data_now)) if data_before.get(name) != data_now.get(name)]
    if previous.get("alc_dask") != current.get("alc_dask"):
        changed.append(f"alc_dask version {previous.get('alc_dask', 'unknown')} -> {current.get('alc_dask')}")
    return changed


def _changed_fields(before: dict, now: dict, prefix: str = "") -> list[str]:
    """Dotted names of the fields that differ, nested ones named down to the leaf (``halting.max_pairs``)."""
    changed = []
    for key in sorted(set(before) | set(now)):
        old, new = before.get(key), now.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            changed += _changed_fields(old, new, f"{prefix}{key}.")
        elif old != new:
            changed.append(prefix + key)
    return changed
