"""Rows of scores as the store writes them: the identity every evaluation shares, then its measures."""

from __future__ import annotations

from datetime import UTC, datetime

from alc_dask import __version__


def identity_row(job: str, release: str, scenario) -> dict:
    """The columns that say which evaluation a row is, where it ran, when it finished and which version wrote it."""
    return {
        **scenario.family.labels(),
        "job": job,
        "release": release,
        "scenario_id": scenario.id,
        "scenario_index": scenario.index,
        "family": scenario.family.name,
        "origin": scenario.origin,
        "params": scenario.identity_json,
        "seed": scenario.seed,
        "worker": _worker_name(),
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "version": __version__,
    }


def scores_row(identity: dict, measures: dict, elapsed: float) -> dict:
    """A finished evaluation's record; the store builds its tables column by column from many of them."""
    return {**measures, **identity, "status": "ok", "error": None, "elapsed_seconds": elapsed}


def unfinished_row(identity: dict, status: str, error: str, elapsed: float = float("nan"), traceback: str | None = None) -> dict:
    """A ``failed`` or ``skipped`` evaluation: its one-line reason and, for a failure, the traceback."""
    return {**identity, "status": status, "error": error, "traceback": traceback, "elapsed_seconds": elapsed}


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().name)
    except ValueError:  # not on a Dask worker (e.g. called directly)
        return "local"
