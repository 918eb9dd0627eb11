"""The paper's attacks from jobs.json: each entry's known columns with its 5 secret columns.

The paper chose the secrets of an entry as the columns not known, shuffled with Python's
``random.seed(42); random.shuffle(...)``, first 5.
"""

import json
import random
from pathlib import Path

PAPER_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "alc-paper"


def paper_secrets(all_columns: list[str], known: list[str], count: int = 5) -> list[str]:
    candidates = [column for column in all_columns if column not in known]
    random.seed(42)
    random.shuffle(candidates)
    return candidates[:count]


def paper_attacks(datasets: list[str], per_dataset: int, approach: str = "ours", release: str = "weak") -> list[dict]:
    import pyarrow.parquet as pq

    entries = json.loads((PAPER_DATA / "jobs.json").read_text())
    attacks = []
    for dataset in datasets:
        columns = pq.read_schema(PAPER_DATA / dataset / "original.parquet").names
        chosen = [e for e in entries if e["approach"] == approach and e["dataset"] == f"{dataset}.parquet"][:per_dataset]
        for entry in chosen:
            for secret in paper_secrets(columns, entry["known_columns"]):
                attacks.append(
                    {"dataset_dir": str(PAPER_DATA / dataset), "release": release, "secret": secret, "known": entry["known_columns"], "job_num": entry["job_num"]}
                )
    return attacks


if __name__ == "__main__":
    print(json.dumps(paper_attacks(["adult", "BankChurnersNoId", "child"], per_dataset=1), indent=1))
