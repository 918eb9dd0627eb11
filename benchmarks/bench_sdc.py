"""Statistical disclosure measures at scale: on an original and a release of ``--rows`` rows × 10
quasi-identifiers generated in partitions on the workers of a local cluster (never held in the
client), RepU/DiSCO for 20 key sets in one shared pass, the same key sets one at a time, k and ℓ,
and the MSUs up to size 3 of a sample of ``--msu-rows`` rows; wall time and the peak resident
memory of every process (client and workers) per stage; then k and ℓ beside pycanon on the sizes
it handles in one process (same k and ℓ asserted; ratios of seconds).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_sdc.py --rows 10000000 --pycanon 10000 100000 1000000

``--stages`` picks stages (``separately`` alone runs with an older alc_dask too, for a before/after);
``--cluster distributed`` starts the workers with distributed's defaults instead of alc_dask's
(``MALLOC_TRIM_THRESHOLD_`` set: see docs/concepts/disclosure-at-scale.md).
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

import numpy as np
import pandas as pd

CARDINALITIES = (2, 3, 5, 8, 10, 12, 20, 30, 50, 90)
QUASI = tuple(f"q{i}" for i in range(len(CARDINALITIES)))
STAGES = ("shared", "separately", "models", "msu")


def make_part(part: int, rows: int, seed: int) -> pd.DataFrame:
    """One partition: 10 quasi-identifiers of growing cardinality (skewed) and a target that depends on two of them."""
    rng = np.random.default_rng([seed, part])
    columns = {name: np.minimum(rng.geometric(1.5 / c, rows) - 1, c - 1).astype(np.int64) for name, c in zip(QUASI, CARDINALITIES)}
    columns["target"] = (columns["q0"] + columns["q3"] + rng.integers(0, 3, rows)) % 6
    return pd.DataFrame(columns, index=pd.RangeIndex(part * rows, (part + 1) * rows))


def table(client, rows: int, parts: int, seed: int):
    """A Dask DataFrame made and kept on the workers."""
    import dask.dataframe as dd
    from distributed import wait

    frame = client.persist(dd.from_map(make_part, range(parts), rows=rows // parts, seed=seed, meta=make_part(0, 0, seed)))
    wait(frame)
    return frame


def reset_peak() -> None:
    """Start a new peak of this process's resident memory (Linux: VmHWM)."""
    Path("/proc/self/clear_refs").write_text("5")


def peak_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Stage:
    """Wall time and each process's peak memory of one stage."""

    def __init__(self, client, name: str):
        self.client, self.name = client, name

    def __enter__(self):
        reset_peak()
        self.client.run(reset_peak)
        self.started = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.started
        self.client_mib = peak_mib()
        self.workers_mib = sorted(self.client.run(peak_mib).values())

    def row(self, result: str) -> dict:
        workers = ", ".join(f"{m:.0f}" for m in self.workers_mib)
        return {"stage": self.name, "seconds": round(self.seconds, 1), "client peak MiB": round(self.client_mib), "worker peaks MiB": workers, "result": result}


def key_sets(count: int, seed: int = 0) -> list[tuple[str, ...]]:
    rng = np.random.default_rng(seed)
    found: dict[tuple[str, ...], None] = {}
    while len(found) < count:
        found.setdefault(tuple(sorted(rng.choice(QUASI, rng.integers(3, 6), replace=False).tolist())), None)
    return list(found)


def _ranges(results) -> str:
    repu = [r.original.shares()["repu"] for r in results]
    disco = [r.original.shares()["disco"] for r in results]
    return f"RepU {min(repu):.4f}-{max(repu):.4f}, DiSCO {min(disco):.4f}-{max(disco):.4f}"


def encoded_block(frame: pd.DataFrame):
    from alc_dask.data.table import EncodedTable

    return EncodedTable.build("sample", {name: frame[name].to_numpy() for name in QUASI}, {})


def msu_sample(client, frame, rows: int, per: int) -> str:
    """MSUs up to size 3 of the first ``rows`` rows (independent draws: a random sample), as blocks
    of ``per`` rows on the workers."""
    import dask

    from alc_dask.data.partitioned import PartitionedTable, compute
    from alc_dask.families.special_uniques.keys import KeySpace
    from alc_dask.families.special_uniques.search import counts_of, summary_of
    from alc_dask.measure.suda import msu_weights

    parts = max(1, rows // per)
    blocks = client.compute([dask.delayed(encoded_block)(p) for p in frame.to_delayed()[:parts]])
    sample = PartitionedTable("sample", QUASI, (), np.zeros(0), np.zeros(0), parts * per, tuple(range(0, parts * per, per)), tuple(blocks))
    space = KeySpace(QUASI, CARDINALITIES, 3)
    (summary,) = compute(sample.blocks, summary_of(sample, space, counts_of(sample, space), msu_weights(len(QUASI), 3), 10))
    return f"{parts * per:,} rows: {summary.n_special:,} special uniques, MSUs by size {summary.msus_by_size.tolist()}"


def at_scale(client, rows: int, parts: int, stages: list[str], msu_rows: int) -> list[dict]:
    from distributed import futures_of

    from alc_dask.data.key_counts import dataframe_frames
    from alc_dask.families.disclosure import counting

    done = []
    with Stage(client, "generate two tables on the workers") as stage:
        original, release = table(client, rows, parts, 1), table(client, rows, parts, 2)
    done.append(stage.row(f"{rows:,} rows x 10 quasi-identifiers + target each, {parts} partitions"))
    held = futures_of(original) + futures_of(release)  # the work runs where the partitions are
    columns, sets = (*QUASI, "target"), key_sets(20)
    frames_o, frames_r = dataframe_frames(original, columns, {}), dataframe_frames(release, columns, {})
    if "shared" in stages:
        with Stage(client, "RepU/DiSCO, 20 key sets, one shared pass") as stage:
            shared = counting.measure_key_sets(held, frames_o, frames_r, None, sets, "target", 0)
        done.append(stage.row(_ranges(shared)))
    if "separately" in stages:
        with Stage(client, "RepU/DiSCO, 20 key sets, one at a time") as stage:
            alone = [counting.measure_disclosure(held, frames_o, frames_r, None, keys, "target", 0) for keys in sets]
        done.append(stage.row(_ranges(alone)))
        if "shared" in stages:
            assert [(a.original, a.n_disco_rows) for a in alone] == [(s.original, s.n_disco_rows) for s in shared]
    if "models" in stages:
        from alc_dask.families.privacy_models.classes import Declared, plain_models

        with Stage(client, "k, distinct and entropy l, t on 6 quasi-identifiers") as stage:
            models = plain_models(held, frames_r, QUASI[:6], "target", False, Declared(5, 2), 0)
        done.append(stage.row(f"{models.n_classes:,} classes; k {models.k}, l {models.l_distinct}"))
    if "msu" in stages:
        with Stage(client, "MSUs up to size 3 (SUDA2), sample of the original") as stage:
            found = msu_sample(client, original, msu_rows, rows // parts)
        done.append(stage.row(found))
    return done


def against_pycanon(rows: int) -> dict:
    import dask
    from pycanon import anonymity

    from alc_dask.data.key_counts import coded_frame
    from alc_dask.families.privacy_models.classes import Declared, plain_models

    frame = make_part(0, rows, 3)
    quasi = list(QUASI[:6])
    start = time.perf_counter()
    k, l_value = anonymity.k_anonymity(frame, quasi), anonymity.l_diversity(frame, quasi, ["target"])
    theirs = time.perf_counter() - start
    start = time.perf_counter()
    ours = plain_models([], [dask.delayed(coded_frame)(frame, (*quasi, "target"), {})], quasi, "target", False, Declared(5, 2), 0)
    mine = time.perf_counter() - start
    assert (ours.k, ours.l_distinct) == (k, l_value), ((ours.k, ours.l_distinct), (k, l_value))
    return {
        "rows": f"{rows:,}",
        "pycanon k + l (s)": round(theirs, 2),
        "alc_dask k + l + t (s)": round(mine, 2),
        "ratio": round(theirs / mine, 1),
        "k, l": f"{k}, {l_value}",
    }


def _client(kind: str, workers: int):
    from contextlib import contextmanager

    from distributed import Client, LocalCluster

    from alc_dask.engine.cluster import connect

    if kind == "alc_dask":
        return connect(workers=workers)

    @contextmanager
    def plain():
        with (
            LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None, silence_logs=logging.ERROR
            ) as cluster,
            Client(cluster) as client,
        ):
            yield client

    return plain()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=float, default=10_000_000)
    parser.add_argument("--parts", type=int, default=0, help="partitions (default: one per 500 000 rows)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--stages", nargs="*", choices=STAGES, default=["shared", "models", "msu"])
    parser.add_argument("--msu-rows", type=float, default=1_000_000)
    parser.add_argument("--cluster", choices=("alc_dask", "distributed"), default="alc_dask")
    parser.add_argument("--pycanon", type=float, nargs="*", default=[10_000, 100_000])
    args = parser.parse_args()
    rows = int(args.rows)
    print(json.dumps({"rows": rows, "workers": args.workers, "cluster": args.cluster, "load": Path("/proc/loadavg").read_text().split()[:3]}), flush=True)
    with _client(args.cluster, args.workers) as client, client.as_current():
        for row in at_scale(client, rows, args.parts or max(1, rows // 500_000), args.stages, int(args.msu_rows)):
            print(json.dumps(row), flush=True)
    for size in args.pycanon:
        print(json.dumps(against_pycanon(int(size))), flush=True)
    print(json.dumps({"load after": Path("/proc/loadavg").read_text().split()[:3]}), flush=True)


if __name__ == "__main__":
    main()
