"""Write the generated part of RESULTS.md (the tables) and the figure from work/results/*.jsonl.

The hand-written findings in RESULTS.md stay: only the text between the two markers is replaced.
Usage: python benchmarks/generators/report.py   (the main environment: pandas and matplotlib)
"""

from __future__ import annotations

import json
import sys

import pandas as pd
from common import HERE, WORK, datasets_present, digest, release_paths
from figure import draw

RESULTS_MD = HERE / "RESULTS.md"
FIGURE = HERE / "generators.png"
START, END = "<!-- generated tables: start -->", "<!-- generated tables: end -->"
EVALUATORS = ("alc_dask", "anonymeter", "sdmetrics", "syntheval")
RELEASE_ORDER = (
    "copy",
    "noisy_copy",
    "marginals",
    "marginals_smoothed",
    "bootstrap_population",
    "sdv_gaussian_copula",
    "sdv_ctgan",
    "sdv_tvae",
    "sdv_ctgan_overfit",
    "smartnoise_mst_eps1",
    "smartnoise_mst_eps10",
    "smartnoise_aim_eps1",
    "smartnoise_aim_eps10",
)
SHORT = {"singling_out": "SO", "linkability": "LK", "inference": "INF", "membership": "MEM", "alc": "ALC", "identification": "ID"}
LABEL_ORDER = ("flagged", "inconclusive", "pass", "not_informative")


def read_results() -> pd.DataFrame:
    rows = []
    for evaluator in EVALUATORS:
        path = WORK / "results" / f"{evaluator}.jsonl"
        if path.exists():
            rows += [json.loads(line) for line in path.read_text().splitlines()]
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    return latest(frame, current_digests(), ["dataset", "release", "evaluator", "measure"], ["dataset", "rank", "evaluator"])


def current_digests() -> dict[tuple[str, str], str]:
    """(dataset, release) -> the digest of the release as it is on disk now."""
    return {(dataset, path.stem): digest(path) for dataset in datasets_present() for path in release_paths(dataset)}


def latest(frame: pd.DataFrame, current: dict, unique: list[str], order_by: list[str], order: tuple[str, ...] = RELEASE_ORDER) -> pd.DataFrame:
    """The last measure of each release as it is now: one remade since it was measured (or removed)
    leaves its old measurements out; releases in ``order``, then the others."""
    frame = frame[[current.get(key) == measured for key, measured in zip(zip(frame["dataset"], frame["release"]), frame["digest"])]]
    frame = frame.drop_duplicates(unique, keep="last")
    ranks = {name: rank for rank, name in enumerate(order)}
    return frame.assign(rank=frame["release"].map(ranks).fillna(len(ranks))).sort_values(order_by, kind="stable")


def interval_text(row) -> str:
    if row is None or pd.isna(row.get("value")):
        return "—" if row is None else f"failed ({row.get('error', '')[:60]})"
    text = f"{row['value']:.3f}"
    if pd.notna(row.get("low")) and pd.notna(row.get("high")):
        text += f" [{row['low']:.3f}, {row['high']:.3f}]"
    return text


def alc_summary(rows: pd.DataFrame) -> tuple[str, str, str]:
    """The verdict, each family's worst label (F flagged, i inconclusive, p pass) and the worst evaluation."""
    verdict = rows[rows["measure"] == "verdict"].iloc[0]
    evaluations = rows[rows["measure"] != "verdict"]
    families = []
    for family, group in evaluations.groupby("family", sort=False):
        worst = min(group["verdict"], key=LABEL_ORDER.index)
        families.append(f"{SHORT.get(family, family)}:{worst[0].upper() if worst == 'flagged' else worst[0]}")
    ranked = evaluations.assign(order=evaluations["verdict"].map(LABEL_ORDER.index))
    worst = ranked.sort_values("order", kind="stable").iloc[0]
    return f"**{verdict['verdict']}**", " ".join(sorted(families)), f"{worst['measure'].split('-')[0]} {interval_text(worst)}"


def peer_cell(rows: pd.DataFrame, measures: tuple[str, ...]) -> str:
    cells = []
    for prefix in measures:
        chosen = rows[rows["measure"].str.startswith(prefix)]
        cells += [f"{row['measure'].split(':')[-1] if ':' in row['measure'] else row['measure']} {interval_text(row)}" for _, row in chosen.iterrows()]
    return "<br>".join(cells) or "—"


def seconds_of(rows: pd.DataFrame, evaluator: str) -> float | None:
    measure = "verdict" if evaluator == "alc_dask" else "total"
    chosen = rows[(rows["evaluator"] == evaluator) & (rows["measure"] == measure)]
    return None if chosen.empty else float(chosen["seconds"].iloc[0])


def headline_table(frame: pd.DataFrame) -> list[str]:
    lines = [
        "| dataset | release | alc_dask verdict | alc_dask families | alc_dask worst evaluation | Anonymeter risk [95% CI] | SDMetrics risk (1 − score) | SynthEval |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (dataset, release), rows in frame.groupby(["dataset", "release"], sort=False):
        alc = rows[rows["evaluator"] == "alc_dask"]
        verdict, families, worst = alc_summary(alc) if not alc.empty else ("—", "—", "—")
        anonymeter = peer_cell(rows[rows["evaluator"] == "anonymeter"], ("singling_out", "linkability", "inference"))
        sdmetrics = peer_cell(rows[rows["evaluator"] == "sdmetrics"], ("DCROverfitting", "Disclosure"))
        syntheval = peer_cell(rows[rows["evaluator"] == "syntheval"], ("mia:", "eps_risk:eps", "hit_rate", "nndr:priv", "att_discl", "dcr"))
        lines.append(f"| {dataset} | {release} | {verdict} | {families} | {worst} | {anonymeter} | {sdmetrics} | {syntheval} |")
    return lines


def timing_table(frame: pd.DataFrame) -> list[str]:
    lines = [
        "| dataset | release | alc_dask check (s) | Anonymeter (s, ×) | SDMetrics (s, ×) | SynthEval (s, ×) | generator fit + sample (s) |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for (dataset, release), rows in frame.groupby(["dataset", "release"], sort=False):
        alc = seconds_of(rows, "alc_dask")
        cells = []
        for peer in EVALUATORS[1:]:
            seconds = seconds_of(rows, peer)
            cells.append("—" if seconds is None else f"{seconds:.1f} ({seconds / alc:.2f}×)" if alc else f"{seconds:.1f}")
        meta = WORK / dataset / "releases" / f"{release}.json"
        fit = json.loads(meta.read_text()).get("seconds") if meta.exists() else None
        lines.append(f"| {dataset} | {release} | {'—' if alc is None else f'{alc:.1f}'} | {' | '.join(cells)} | {'—' if fit is None else f'{fit:.0f}'} |")
    return lines


def generated_section(frame: pd.DataFrame) -> str:
    parts = [START, "", "### Release × evaluator", "", *headline_table(frame), "", "### Times", "", *timing_table(frame), "", END]
    return "\n".join(parts)


def main() -> int:
    frame = read_results()
    if frame.empty:
        print("no results yet in work/results", file=sys.stderr)
        return 3
    section = generated_section(frame)
    text = RESULTS_MD.read_text() if RESULTS_MD.exists() else f"# Real synthetic-data generators: results\n\n{START}\n{END}\n"
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    RESULTS_MD.write_text(head + section + tail)
    draw(frame, FIGURE)
    print(f"wrote {RESULTS_MD} and {FIGURE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
