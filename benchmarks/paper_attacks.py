"""The paper's attacks from jobs.json: each entry's known columns with its 5 secret columns.

The protocol itself (which entries, which secrets) lives in ``alc_dask.families.alc.paper``; job files use
it through the ``paper`` scenario generator.
"""

import json
from pathlib import Path

import pyarrow.parquet as pq

from alc_dask.families.alc.paper import paper_entries, paper_secrets

PAPER_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "alc-paper"


def paper_attacks(datasets: list[str], per_dataset: int, approach: str = "ours", release: str = "weak") -> list[dict]:
    attacks = []
    for dataset in datasets:
        columns = pq.read_schema(PAPER_DATA / dataset / "original.parquet").names
        for entry in paper_entries(PAPER_DATA / "jobs.json", dataset, approach, per_dataset):
            for secret in paper_secrets(columns, entry["known_columns"]):
                attacks.append(
                    {
                        "dataset_dir": str(PAPER_DATA / dataset),
                        "release": release,
                        "secret": secret,
                        "known": entry["known_columns"],
                        "job_num": entry["job_num"],
                    }
                )
    return attacks


if __name__ == "__main__":
    print(json.dumps(paper_attacks(["adult", "BankChurnersNoId", "child"], per_dataset=1), indent=1))
