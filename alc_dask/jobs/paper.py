"""The ALC paper's attack configurations (its jobs.json) and how it chose each entry's secrets."""

import json
import random
from pathlib import Path


def paper_secrets(all_columns: list[str], known: list[str], count: int = 5) -> list[str]:
    """The paper's choice: the columns not known, shuffled with ``random.seed(42)``, first ``count``.

    A private ``random.Random`` gives the same order as the paper's global ``random.seed(42);
    random.shuffle(...)`` without touching the global generator.
    """
    candidates = [column for column in all_columns if column not in known]
    random.Random(42).shuffle(candidates)
    return candidates[:count]


def paper_entries(jobs_file: str | Path, dataset: str, approach: str = "ours", limit: int | None = None) -> list[dict]:
    """jobs.json entries ``{approach, dataset, known_columns, job_num}`` of one dataset, in file order."""
    entries = json.loads(Path(jobs_file).read_text())
    name = dataset if dataset.endswith(".parquet") else f"{dataset}.parquet"
    chosen = [e for e in entries if e["approach"] == approach and e["dataset"] == name]
    return chosen[:limit] if limit is not None else chosen
