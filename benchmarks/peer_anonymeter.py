"""Time Anonymeter's nearest-neighbour search; runs inside its own virtual environment.

Anonymeter pins numpy < 1.27, so `bench_search.py` runs this file with the interpreter of
bench-envs/anonymeter and reads one JSON line: {"seconds": ..., "queries": ..., "rows": ..., "columns": ...}.
Usage: python peer_anonymeter.py QUERIES.parquet CANDIDATES.parquet
"""

import json
import sys
import time

import anonymeter.evaluators  # noqa: F401  (imported first: the neighbors module has a circular import)
import pandas as pd
from anonymeter.neighbors.mixed_types_kneighbors import MixedTypeKNeighbors


def main(queries_path: str, candidates_path: str) -> None:
    queries, candidates = pd.read_parquet(queries_path), pd.read_parquet(candidates_path)
    search = MixedTypeKNeighbors(n_neighbors=1, n_jobs=1).fit(candidates)
    search.kneighbors(queries.head(2))  # compile the Numba functions outside the timing
    start = time.perf_counter()
    search.kneighbors(queries)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "queries": len(queries), "rows": len(candidates), "columns": candidates.shape[1]}))


if __name__ == "__main__":
    main(*sys.argv[1:3])
