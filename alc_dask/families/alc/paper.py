"""The ALC paper's attack configurations (its jobs.json) and how it chose each entry's secrets."""

import json
import random
from pathlib import Path

ENTRY_KEYS = ("approach", "dataset", "known_columns", "job_num")


def paper_secrets(all_columns: list[str], known: list[str], count: int = 5) -> list[str]:
    """The paper's choice: the columns not known, shuffled with ``random.seed(42)``, first ``count``.

    A private ``random.Random`` gives the same order as the paper's global ``random.seed(42);
    random.shuffle(...)`` without touching the global generator.
    """
    candidates = [column for column in all_columns if column not in known]
    random.Random(42).shuffle(candidates)
    return candidates[:count]


def read_paper_jobs(jobs_file: str | Path) -> list[dict]:
    """Every entry of a jobs.json, checked; a ``ValueError`` names the file, the entry and the key."""
    try:
        entries = json.loads(Path(jobs_file).read_bytes().decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{jobs_file}: malformed JSON: {error}") from None
    if not isinstance(entries, list):
        raise ValueError(f"{jobs_file}: expected a list of entries {{{', '.join(ENTRY_KEYS)}}}; got {type(entries).__name__}")
    for index, entry in enumerate(entries):
        _check_entry(jobs_file, index, entry)
    return entries


def select_paper_entries(entries: list[dict], dataset: str, approach: str = "ours", limit: int | None = None) -> list[tuple[int, dict]]:
    """(position in the file, entry) of one dataset and approach, in file order, at most ``limit``."""
    name = _file_name(dataset)
    chosen = [(i, e) for i, e in enumerate(entries) if e["approach"] == approach and e["dataset"] == name]
    return chosen[:limit] if limit is not None else chosen


def missing_entries(entries: list[dict], dataset: str, approach: str, jobs_file) -> str:
    """Why no entry matches: the dataset is absent (and which are there), or only other approaches have it."""
    approaches = sorted({e["approach"] for e in entries if e["dataset"] == _file_name(dataset)})
    if approaches:
        return f"dataset {dataset!r} has no entries of approach {approach!r} in {jobs_file}; approaches there for it: {', '.join(approaches)}"
    datasets = sorted({e["dataset"].removesuffix(".parquet") for e in entries}, key=str.lower)
    return f"dataset {dataset!r} has no entries in {jobs_file}; datasets there: {', '.join(datasets) or '(none)'}"


def paper_entries(jobs_file: str | Path, dataset: str, approach: str = "ours", limit: int | None = None) -> list[dict]:
    """jobs.json entries ``{approach, dataset, known_columns, job_num}`` of one dataset, in file order."""
    return [entry for _, entry in select_paper_entries(read_paper_jobs(jobs_file), dataset, approach, limit)]


def _check_entry(jobs_file, index: int, entry) -> None:
    where = f"{jobs_file}: entry [{index}]"
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: expected an object with {', '.join(ENTRY_KEYS)}; got {entry!r}")
    for key in ENTRY_KEYS:
        if key not in entry:
            raise ValueError(f"{where} lacks {key!r} (an entry has {', '.join(ENTRY_KEYS)})")
    known = entry["known_columns"]
    if not isinstance(known, list) or not known or not all(isinstance(c, str) for c in known):
        raise ValueError(f"{where}: known_columns must be a list of column names; got {known!r}")
    for key in ("approach", "dataset"):
        if not isinstance(entry[key], str):
            raise ValueError(f"{where}: {key} must be text; got {entry[key]!r}")


def _file_name(dataset: str) -> str:
    return dataset if dataset.endswith(".parquet") else f"{dataset}.parquet"
