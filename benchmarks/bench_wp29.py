"""Side by side with Anonymeter 1.1.0: singling out, linkability and inference.

Run from the project root:  PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_wp29.py
It prepares two releases (alc-paper/adult and tx2019, each original split 50/50 into training and
control rows), runs every evaluation with five seeds with our families in process on one core and
with Anonymeter in its own virtual environment (benchmarks/peer_anonymeter_wp29.py, one subprocess,
one core), prints a Markdown table and writes it to benchmarks/RESULTS-wp29.md, and the per-seed
numbers to benchmarks/RESULTS-wp29.json (`--table-only` re-renders the table from that file).

Anonymeter pins numpy < 1.27; its environment is created on first use with
    python3 -m venv bench-envs/anonymeter && bench-envs/anonymeter/bin/pip install anonymeter==1.1.0
(or set ANONYMETER_PYTHON to the interpreter of an existing one, e.g. from another checkout).
"""

from __future__ import annotations

import os

for _name in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "POLARS_MAX_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"  # one core, set before numba (or numpy's BLAS) is imported

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
ANONYMETER_ENV = ROOT / "bench-envs" / "anonymeter"
PEER = Path(__file__).with_name("peer_anonymeter_wp29.py")
DATA = Path("/work/shared/data")
MARKER = "<!-- investigation: kept when the table is rewritten -->"

# Per dataset: two linkability splits (disjoint halves) and three inference secrets, the last one continuous.
DATASETS = {
    "adult": {
        "links": [
            (["age", "sex", "race", "marital-status"], ["education", "occupation", "workclass", "hours-per-week"]),
            (["fnlwgt", "relationship", "native-country"], ["capital-gain", "capital-loss", "education-num", "label"]),
        ],
        "secrets": [("occupation", False), ("label", False), ("age", True)],
    },
    "tx2019": {
        "links": [
            (["AGEP", "SEX", "RAC1P", "HISP"], ["EDU", "INDP", "PINCP", "MSP"]),
            (["PUMA", "NPF", "NOC", "OWN_RENT"], ["POVPIP", "PINCP_DECILE", "DREM", "DPHY", "WGTP"]),
        ],
        "secrets": [("EDU", False), ("MSP", False), ("AGEP", True)],
    },
}
NOTES = {
    "adult": "alc-paper/adult: original.parquet deduplicated (24 duplicate rows dropped), split 50/50 at random "
    "(seed 0) into training and control rows of equal size; synthetic = weak.parquet at the training "
    "rows' positions (weak row i is the swapped copy of original row i).",
    "tx2019": "tx2019: original.csv deduplicated (8 duplicate rows dropped), split 50/50 at random (seed 0); "
    "synthetic = syn_0.csv whole. syn_0 was made from *all* of original.csv, so the control rows are "
    "not true non-members: the control rate is inflated and the risk understated; the rows still "
    "compare the two implementations on the same inputs.",
}


# --- data --------------------------------------------------------------------------------------


def split(original: pd.DataFrame, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Positions (into `original`) of the training and control rows: the distinct rows, shuffled,
    halved; an odd row out is dropped so both halves have the same size (Anonymeter then applies
    no control-size correction)."""
    distinct = np.flatnonzero(~original.duplicated().to_numpy())
    order = np.random.default_rng(seed).permutation(distinct)
    half = len(order) // 2
    return np.sort(order[:half]), np.sort(order[half : 2 * half])


def prepare(folder: Path) -> dict[str, dict]:
    """Write each dataset's original (training), synthetic and control Parquet tables into `folder`."""
    adult = pd.read_parquet(DATA / "alc-paper" / "adult" / "original.parquet")
    weak = pd.read_parquet(DATA / "alc-paper" / "adult" / "weak.parquet")
    train, control = split(adult)
    tables = {"adult": (adult.iloc[train], weak.iloc[train], adult.iloc[control])}
    tx = pd.read_csv(DATA / "tx2019" / "original.csv")  # pandas defaults, for both tools
    syn = pd.read_csv(DATA / "tx2019" / "syn_0.csv")
    train, control = split(tx)
    tables["tx2019"] = (tx.iloc[train], syn, tx.iloc[control])
    paths = {}
    for name, frames in tables.items():
        paths[name] = {}
        for role, frame in zip(("original", "synthetic", "control"), frames):
            path = folder / f"{name}-{role}.parquet"
            frame.reset_index(drop=True).to_parquet(path)
            paths[name][role] = str(path)
        paths[name]["rows"] = {role: len(frame) for role, frame in zip(("original", "synthetic", "control"), frames)}
    return paths


def numeric_columns(frame: pd.DataFrame) -> list[str]:
    """The columns Anonymeter treats as numbers (pandas number dtypes; bool is not one)."""
    return [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])]


def load_release(paths: dict):
    """Our release, every column Anonymeter treats as a number declared continuous (a numeric column
    with few values would otherwise be categorical here: 0/1 in the distance where Anonymeter scales
    the difference), every other column categorical, as in Anonymeter."""
    from alc_dask.data import ColumnKind, Release

    frame = pd.read_parquet(paths["original"])
    numeric = numeric_columns(frame)
    release = Release.load(
        paths["original"], [paths["synthetic"]], control=paths["control"], columns={c: ("continuous" if c in numeric else "categorical") for c in frame.columns}
    )
    for column in frame.columns:  # both tools must type every column alike
        for role in ("synthetic", "control"):
            other = pd.read_parquet(paths[role], columns=[column])
            assert (column in numeric_columns(other)) == (column in numeric), (column, role)
        assert (release.column(column).kind is ColumnKind.CONTINUOUS) == (column in numeric), column
    return release, numeric


# --- evaluations -------------------------------------------------------------------------------


def evaluations(name: str, columns: list[str], n_attacks: int) -> list[dict]:
    """The cases of one dataset, without seed: singling out (univariate, multivariate), linkability on
    two splits with 1 and 10 neighbours, inference on three secrets with every other column known."""
    config = DATASETS[name]
    cases = [
        {"case": "singling out, univariate", "family": "singling_out", "mode": "univariate", "n_cols": 1},
        {"case": "singling out, multivariate (3 cols)", "family": "singling_out", "mode": "multivariate", "n_cols": 3},
    ]
    for i, (first, second) in enumerate(config["links"]):
        for k in (1, 10):
            cases.append({"case": f"linkability split {i + 1}, k={k}", "family": "linkability", "aux_cols": [first, second], "n_neighbors": k})
    for secret, continuous in config["secrets"]:
        cases.append(
            {
                "case": f"inference {secret}" + (" (continuous)" if continuous else ""),
                "family": "inference",
                "secret": secret,
                "aux_cols": [c for c in columns if c != secret],
                "regression": continuous,
            }
        )
    return [{**c, "dataset": name, "n_attacks": n_attacks, "max_attempts": 10_000_000} for c in cases]


def our_family(spec: dict):
    from alc_dask.families.wp29.inference import Inference
    from alc_dask.families.wp29.linkability import Linkability
    from alc_dask.families.wp29.singling_out import SinglingOut

    if spec["family"] == "singling_out":
        return SinglingOut(mode=spec["mode"], n_attacks=spec["n_attacks"], n_cols=spec["n_cols"], max_attempts=spec["max_attempts"])
    if spec["family"] == "linkability":
        return Linkability(aux_cols=spec["aux_cols"], n_neighbors=spec["n_neighbors"], n_attacks=spec["n_attacks"])
    return Inference(aux_cols=spec["aux_cols"], secret=spec["secret"], n_attacks=spec["n_attacks"])


def warm_up(release, cases: list[dict]) -> None:
    """Compile (or load from Numba's cache) every kernel the families use, outside the timings."""
    small = type(release)(
        release.columns, release.original.rows(slice(0, 300)), tuple(t.rows(slice(0, 300)) for t in release.anonymized), release.control.rows(slice(0, 300))
    )
    for spec in cases:
        our_family({**spec, "n_attacks": 20}).evaluate(small, 0)


def run_ours(releases: dict, specs: list[dict]) -> dict[str, dict]:
    import numba

    numba.set_num_threads(1)
    out = {}
    for spec in specs:
        family = our_family(spec)
        start = time.perf_counter()
        measures = family.evaluate(releases[spec["dataset"]], spec["seed"]).measures
        seconds = time.perf_counter() - start
        out[spec["id"]] = {**{k: _plain(v) for k, v in measures.items()}, "seconds": seconds}
        print(f"  ours {spec['id']}: {seconds:.2f} s, risk {measures['privacy_risk']:.3f}", file=sys.stderr, flush=True)
    return out


def run_anonymeter(specs: list[dict], folder: Path) -> dict[str, dict]:
    python = Path(os.environ.get("ANONYMETER_PYTHON", ANONYMETER_ENV / "bin" / "python"))
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(ANONYMETER_ENV)], check=True)
        subprocess.run([str(ANONYMETER_ENV / "bin" / "pip"), "install", "--quiet", "anonymeter==1.1.0"], check=True)
    listing = folder / "evaluations.json"
    listing.write_text(json.dumps(specs))
    env = {**os.environ, "NUMBA_NUM_THREADS": "1", "POLARS_MAX_THREADS": "1", "OMP_NUM_THREADS": "1", "PYTHONWARNINGS": "ignore"}
    env.pop("PYTHONPATH", None)
    out = {}
    with subprocess.Popen([str(python), str(PEER), str(listing)], stdout=subprocess.PIPE, text=True, env=env) as peer:
        for line in peer.stdout:
            row = json.loads(line)
            out[row["id"]] = row
            print(
                f"  anonymeter {row['id']}: {row.get('seconds', float('nan')):.2f} s risk {row.get('privacy_risk', row.get('error'))}",
                file=sys.stderr,
                flush=True,
            )
    if peer.returncode:
        raise RuntimeError(f"the Anonymeter peer failed with exit code {peer.returncode}")
    return out


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


# --- comparison --------------------------------------------------------------------------------


def pooled(rows: list[dict], success: str, attacks: str) -> tuple[float, float, int]:
    k = sum(r[success] for r in rows)
    n = sum(r[attacks] for r in rows)
    p = k / n if n else float("nan")
    return p, math.sqrt(p * (1 - p) / n) if n else float("nan"), n


def compare(cases: list[dict], ours: dict, theirs: dict, seeds: list[int]) -> tuple[list[dict], dict]:
    rows = []
    for case in cases:
        ids = [f"{case['dataset']}|{case['case']}|{s}" for s in seeds]
        a, b = [ours[i] for i in ids], [theirs[i] for i in ids]
        failed = [r for r in b if "error" in r]
        row = {"dataset": case["dataset"], "case": case["case"], "errors": [r["error"] for r in failed]}
        if failed:
            rows.append(row)
            continue
        overlap = sum(max(x["privacy_risk_low"], y["privacy_risk_low"]) <= min(x["privacy_risk_high"], y["privacy_risk_high"]) for x, y in zip(a, b))
        pa, sa, _ = pooled(a, "n_success", "n_attacks")
        pb, sb, _ = pooled(b, "n_success", "n_attacks")
        se = math.hypot(sa, sb)
        delta = (pa - pb) / se if se > 0 else (0.0 if pa == pb else math.inf)
        row.update(
            risk=[_mean(r, "privacy_risk") for r in (a, b)],
            low=[_mean(r, "privacy_risk_low") for r in (a, b)],
            high=[_mean(r, "privacy_risk_high") for r in (a, b)],
            overlap=overlap,
            attack=[pa, pb],
            delta_se=delta,
            baseline=[pooled(r, "n_baseline_success", "n_baseline_attacks")[0] for r in (a, b)],
            control=[pooled(r, "n_control_success", "n_control_attacks")[0] for r in (a, b)],
            made=[sum(r["n_attacks"] for r in a), sum(r["n_attacks"] for r in b)],
            seconds=[sum(r["seconds"] for r in a), sum(r["seconds"] for r in b)],
            warnings=[sum(bool(r.get("warning")) for r in x) for x in (a, b)],
        )
        rows.append(row)
    good = [r for r in rows if not r["errors"]]
    totals = {
        "ours": sum(r["seconds"][0] for r in good),
        "theirs": sum(r["seconds"][1] for r in good),
        "overlap_all": sum(r["overlap"] == len(seeds) for r in good),
        "within_2se": sum(abs(r["delta_se"]) < 2 for r in good),
        "cases": len(rows),
        "failed": len(rows) - len(good),
    }
    return rows, totals


def flag(ok: bool) -> str:
    return "" if ok else " ✗"


def _mean(rows: list[dict], key: str) -> float:
    return float(np.mean([r[key] for r in rows]))


def table(rows: list[dict], totals: dict, seeds: list[int], meta: dict) -> str:
    n = len(seeds)
    lines = [
        "# Side by side with Anonymeter 1.1.0",
        "",
        f"Command: `{meta['command']}`  ",
        f"{n} seeds ({seeds[0]}..{seeds[-1]}), n_attacks {meta['n_attacks']}, 95 % level, both tools on one core "
        "(ours in process, NUMBA_NUM_THREADS=1; Anonymeter in its own venv, NUMBA_NUM_THREADS=1 POLARS_MAX_THREADS=1 "
        "OMP_NUM_THREADS=1, n_jobs=1, seeded per run with np.random.seed, pl.set_random_seed and "
        "SinglingOutEvaluator(seed=))." + f" Machine: {meta['machine']}.",
        "",
        "Risk: mean over seeds of the risk and of its interval's ends. Overlap: seeds whose risk intervals "
        f"intersect (of {n}). Attack, baseline, control: pooled over seeds, successes / attacks (Anonymeter's "
        "denominator is the requested n_attacks, ours the predicates made). Δ/SE: (ours − theirs) / "
        "sqrt(se₁² + se₂²), se = sqrt(p(1 − p)/n) from the pooled counts. Time: seconds summed over seeds "
        "(evaluation only; data loading excluded for both).",
        "",
        "| dataset | evaluation | risk ours [low, high] | risk Anonymeter [low, high] | overlap | attack ours | "
        "attack Anon. | Δ/SE | baseline ours / Anon. | control ours / Anon. | time ours (s) | time Anon. (s) | speed-up |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["errors"]:
            lines.append(f"| {r['dataset']} | {r['case']} | – | Anonymeter failed: {r['errors'][0]} | | | | | | | | | |")
            continue
        lines.append(
            f"| {r['dataset']} | {r['case']} | {r['risk'][0]:.3f} [{r['low'][0]:.3f}, {r['high'][0]:.3f}] | "
            f"{r['risk'][1]:.3f} [{r['low'][1]:.3f}, {r['high'][1]:.3f}] | {r['overlap']}/{n}{flag(r['overlap'] == n)} | "
            f"{r['attack'][0]:.3f} | {r['attack'][1]:.3f} | {r['delta_se']:+.2f}{flag(abs(r['delta_se']) < 2)} | "
            f"{r['baseline'][0]:.3f} / {r['baseline'][1]:.3f} | {r['control'][0]:.3f} / {r['control'][1]:.3f} | "
            f"{r['seconds'][0]:.2f} | {r['seconds'][1]:.2f} | {r['seconds'][1] / r['seconds'][0]:.0f}× |"
        )
    t = totals
    lines += [
        "",
        f"**Totals.** Time ours {t['ours']:.1f} s, Anonymeter {t['theirs']:.1f} s: **{t['theirs'] / t['ours']:.1f}× faster** "
        f"(goal ≥ 20×). Risk intervals overlapping in every seed: **{t['overlap_all']}/{t['cases']}** cases; "
        f"|Δ attack rate| < 2 SE: **{t['within_2se']}/{t['cases']}** cases" + (f"; {t['failed']} case(s) failed in Anonymeter." if t["failed"] else "."),
        "",
        "Notes:",
        "",
        *[
            f"- {text} Rows per table (training / synthetic / control): "
            f"{meta['rows'][d]['original']} / {meta['rows'][d]['synthetic']} / {meta['rows'][d]['control']}."
            for d, text in NOTES.items()
            if d in meta["rows"]
        ],
        f"- Column types: the columns pandas reads as numbers ({meta['numeric_note']}) are declared continuous "
        "in our release (`Release.load(columns=...)`), every other column categorical, so both tools use the "
        "same kind everywhere (Anonymeter treats every pandas number column as numeric).",
        "- Inference on a continuous secret: Anonymeter runs with regression=True; a guess g of the true value s "
        "is right for Anonymeter when |g − s| / g ≤ 0.05 (relative to the guess, signed), for us when "
        "|g − s| ≤ 0.05·|s| (relative to the true value).",
        "- Baselines are not expected to agree in inference: Anonymeter 1.1.0 re-indexes its random guesses "
        "onto the targets' labels, so most guesses are missing when the synthetic table has more rows than the "
        "attacks (its baseline collapses towards 0). Singling-out and linkability baselines of Anonymeter are "
        "not reproducible by any seed (polars hash order; an unseeded generator).",
        "- Equal distances among neighbours: Anonymeter takes them in the order of numba's unstable quicksort "
        "(arbitrary); our linkability takes them in a seeded random order drawn per half, our inference in a seeded random order too. "
        "The k nearest distances themselves are the same in both tools.",
        "- ✗ marks a case failing a criterion; see the investigation below the table when present. With 18 "
        "cases at the 2 SE level, about one is expected to fail by chance alone.",
        '- Seeds with a "does not beat the baseline" warning (ours / Anonymeter): '
        + (", ".join(f"{r['dataset']} {r['case']} {r['warnings'][0]}/{r['warnings'][1]}" for r in rows if not r["errors"] and any(r["warnings"])) or "none")
        + ".",
        "- Preparing our releases (`Release.load`, not in the times above): "
        + ", ".join(f"{k} {v:.1f} s" for k, v in meta.get("load_seconds", {}).items())
        + ".",
    ]
    if meta.get("profile"):
        lines += [
            "",
            "Our time per evaluation (mean seconds per seed, slowest first):",
            "",
            "| dataset | evaluation | ours (s/seed) | Anonymeter (s/seed) |",
            "|---|---|---|---|",
        ]
        for r in sorted((r for r in rows if not r["errors"]), key=lambda r: -r["seconds"][0]):
            lines.append(f"| {r['dataset']} | {r['case']} | {r['seconds'][0] / n:.3f} | {r['seconds'][1] / n:.2f} |")
    return "\n".join(lines) + "\n"


# --- main --------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--n-attacks", type=int, default=500)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--only", help="run only the cases whose name contains this text")
    parser.add_argument("--keep", type=Path, help="prepare the data in this folder and keep it")
    parser.add_argument("--table-only", action="store_true", help="re-render the table from RESULTS-wp29.json")
    parser.add_argument(
        "--interleave", action="store_true", help="time the tools case by case, one right after the other (a peer process per case), not each over all cases"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "RESULTS-wp29.md")
    args = parser.parse_args()
    raw_path = args.out.with_suffix(".json")
    seeds = list(range(args.seeds))

    if args.table_only:
        raw = json.loads(raw_path.read_text())
    else:
        with tempfile.TemporaryDirectory() as tmp:
            folder = args.keep or Path(tmp)
            folder.mkdir(parents=True, exist_ok=True)
            raw = run(args, folder, seeds)
        raw_path.write_text(json.dumps(raw, indent=1))
    rows, totals = compare(raw["cases"], raw["ours"], raw["theirs"], raw["seeds"])
    text = table(rows, totals, raw["seeds"], {**raw["meta"], "profile": True})
    print(text)
    kept = args.out.read_text().partition(MARKER)[2] if args.out.exists() else ""
    args.out.write_text(text + (f"\n{MARKER}{kept}" if kept else ""))


def run(args, folder: Path, seeds: list[int]) -> dict:
    paths = {k: v for k, v in prepare(folder).items() if k in args.datasets}
    releases, cases, numeric_note, load_seconds = {}, [], [], {}
    for name, p in paths.items():
        start = time.perf_counter()
        releases[name], numeric = load_release(p)
        load_seconds[name] = time.perf_counter() - start
        numeric_note.append(f"{name}: {', '.join(numeric)}")
        columns = list(pd.read_parquet(p["original"]).columns)
        cases += [c for c in evaluations(name, columns, args.n_attacks) if not args.only or args.only in c["case"]]
    specs = [
        {**c, **{k: v for k, v in paths[c["dataset"]].items() if k != "rows"}, "seed": s, "id": f"{c['dataset']}|{c['case']}|{s}"} for c in cases for s in seeds
    ]
    print(f"{len(specs)} evaluations; loading our releases took " + ", ".join(f"{k} {v:.1f} s" for k, v in load_seconds.items()), file=sys.stderr, flush=True)
    for name, release in releases.items():
        warm_up(release, [c for c in cases if c["dataset"] == name])
    if args.interleave:  # case by case, each tool right after the other: both see the same load on a shared machine
        ours, theirs = {}, {}
        for case in cases:
            group = [s for s in specs if s["dataset"] == case["dataset"] and s["case"] == case["case"]]
            ours.update(run_ours(releases, group))
            theirs.update(run_anonymeter(group, folder))
    else:
        ours = run_ours(releases, specs)
        theirs = run_anonymeter(specs, folder)
    machine = f"{os.cpu_count()} logical cores, Python {sys.version.split()[0]}"
    command = "PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_wp29.py " + " ".join(sys.argv[1:])
    return {
        "cases": cases,
        "seeds": seeds,
        "ours": ours,
        "theirs": theirs,
        "meta": {
            "command": command.strip(),
            "n_attacks": args.n_attacks,
            "machine": machine,
            "rows": {k: v["rows"] for k, v in paths.items()},
            "numeric_note": "; ".join(numeric_note),
            "load_seconds": load_seconds,
        },
    }


if __name__ == "__main__":
    main()
