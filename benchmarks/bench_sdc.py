"""Statistical disclosure measures at scale: RepU/DiSCO for 20 key sets, k and ℓ, on an original and a
release of ``--rows`` rows × 10 quasi-identifiers generated in partitions on a local cluster (never
held in the client), with wall time and the largest process's peak memory; then beside pycanon on the
sizes it can handle (k and distinct ℓ; ratios of seconds).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_sdc.py --rows 1000000 --pycanon 10000 100000
"""

from __future__ import annotations

import argparse
import logging
import resource
import time

import numpy as np
import pandas as pd

CARDINALITIES = (2, 3, 5, 8, 10, 12, 20, 30, 50, 90)
QUASI = tuple(f"q{i}" for i in range(len(CARDINALITIES)))


def make_part(part: int, rows: int, seed: int) -> pd.DataFrame:
    """One partition: 10 quasi-identifiers of growing cardinality (skewed) and a target that depends on two of them."""
    rng = np.random.default_rng([seed, part])
    columns = {name: np.minimum(rng.geometric(1.5 / c, rows) - 1, c - 1).astype(np.int64) for name, c in zip(QUASI, CARDINALITIES)}
    columns["target"] = (columns["q0"] + columns["q3"] + rng.integers(0, 3, rows)) % 6
    return pd.DataFrame(columns, index=pd.RangeIndex(part * rows, (part + 1) * rows))


def table(rows: int, parts: int, seed: int):
    import dask.dataframe as dd

    per = rows // parts
    return dd.from_map(make_part, range(parts), rows=per, seed=seed, meta=make_part(0, 0, seed)).persist()


def peak_memory(client) -> float:
    """The largest peak resident size (MiB) of the client and the workers (ru_maxrss, KiB on Linux)."""
    workers = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return max([resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, *workers.values()]) / 1024


def key_sets(count: int, seed: int = 0) -> list[tuple[str, ...]]:
    rng = np.random.default_rng(seed)
    found: dict[tuple[str, ...], None] = {}
    while len(found) < count:
        found.setdefault(tuple(sorted(rng.choice(QUASI, rng.integers(3, 6), replace=False).tolist())), None)
    return list(found)


def at_scale(client, rows: int, parts: int) -> dict:
    from alc_dask.data.key_counts import dataframe_frames
    from alc_dask.families.disclosure.counting import measure_disclosure
    from alc_dask.families.privacy_models.classes import Declared, plain_models

    start = time.perf_counter()
    original, release = table(rows, parts, 1), table(rows, parts, 2)
    columns = (*QUASI, "target")
    frames_o, frames_r = dataframe_frames(original, columns, {}), dataframe_frames(release, columns, {})
    generated = time.perf_counter() - start
    start = time.perf_counter()
    results = [measure_disclosure([], frames_o, frames_r, None, keys, "target", 0) for keys in key_sets(20)]
    disclosure = time.perf_counter() - start
    start = time.perf_counter()
    models = plain_models([], frames_r, QUASI[:6], "target", False, Declared(5, 2), 0)
    privacy = time.perf_counter() - start
    repu = [r.original.shares()["repu"] for r in results]
    disco = [r.original.shares()["disco"] for r in results]
    return {
        "rows": rows,
        "generate_s": generated,
        "disclosure_20_sets_s": disclosure,
        "k_l_s": privacy,
        "peak_mib": peak_memory(client),
        "repu_range": (min(repu), max(repu)),
        "disco_range": (min(disco), max(disco)),
        "k": models.k,
        "l": models.l_distinct,
        "classes": models.n_classes,
    }


def against_pycanon(rows: int) -> dict:
    from pycanon import anonymity

    from alc_dask.data.key_counts import coded_frame
    from alc_dask.families.privacy_models.classes import Declared, plain_models

    frame = make_part(0, rows, 3)
    quasi = list(QUASI[:6])
    start = time.perf_counter()
    k, l_value = anonymity.k_anonymity(frame, quasi), anonymity.l_diversity(frame, quasi, ["target"])
    theirs = time.perf_counter() - start
    import dask

    start = time.perf_counter()
    ours = plain_models([], [dask.delayed(coded_frame)(frame, (*quasi, "target"), {})], quasi, "target", False, Declared(5, 2), 0)
    mine = time.perf_counter() - start
    assert (ours.k, ours.l_distinct) == (k, l_value), ((ours.k, ours.l_distinct), (k, l_value))
    return {"rows": rows, "pycanon_s": theirs, "alc_dask_s": mine, "ratio": theirs / mine, "k": k, "l": l_value}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--parts", type=int, default=0, help="partitions (default: one per 500 000 rows)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pycanon", type=int, nargs="*", default=[10_000, 100_000])
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None, silence_logs=logging.ERROR
        ) as cluster,
        Client(cluster) as client,
    ):
        scale = at_scale(client, args.rows, args.parts or max(1, args.rows // 500_000))
        print(
            f"{scale['rows']:,} rows x 10 quasi-identifiers, {args.workers} workers: generated {scale['generate_s']:.1f} s; "
            f"RepU/DiSCO for 20 key sets {scale['disclosure_20_sets_s']:.1f} s; k and l on 6 quasi-identifiers {scale['k_l_s']:.1f} s; "
            f"largest process peak {scale['peak_mib']:.0f} MiB"
        )
        print(
            f"  RepU {scale['repu_range'][0]:.4f}-{scale['repu_range'][1]:.4f}, DiSCO {scale['disco_range'][0]:.4f}-{scale['disco_range'][1]:.4f}; "
            f"k {scale['k']}, l {scale['l']}, {scale['classes']:,} classes"
        )
        print("| rows | pycanon k + l (s) | alc_dask k + l + t (s) | ratio |")
        print("|---:|---:|---:|---:|")
        for rows in args.pycanon:
            r = against_pycanon(rows)
            print(f"| {rows:,} | {r['pycanon_s']:.2f} | {r['alc_dask_s']:.2f} | {r['ratio']:.1f}x |")


if __name__ == "__main__":
    main()
