"""``job.json``: the settings, data and alc_dask version a folder's results were measured with.

It is written with the first part, so a start that fails earlier does not hold the folder.
Resuming with any of them changed is refused rather than mixing results.
"""

import json

from alc_dask.errors import InputError
from alc_dask.results.files import Files

MANIFEST = "job.json"


class ResultsError(InputError, ValueError):
    """An output directory cannot be written, read or resumed."""


def check_manifest(files: Files, manifest: dict, has_results: bool) -> None:
    """Refuse a folder whose results were measured otherwise; a manifest without results holds nothing."""
    path = files.path(MANIFEST)
    if not has_results or not files.exists(path):
        return
    try:
        previous = json.loads(files.read_bytes(path))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ResultsError(f"{files.show(MANIFEST)}: corrupt manifest ({error}); use another output directory, or remove this one to start afresh") from None
    if previous.get("fingerprint") != manifest["fingerprint"]:
        raise ResultsError(
            f"output directory {files.url} holds results of job {previous.get('job')!r} measured with other settings or data "
            f"(changed: {', '.join(_changes(previous, manifest)) or 'unknown'}); use another output directory or remove it"
        )


def write_manifest(files: Files, manifest: dict) -> None:
    files.put_bytes(files.path(MANIFEST), json.dumps(manifest, indent=1, sort_keys=True).encode())


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
