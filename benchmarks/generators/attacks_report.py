"""Write the generated tables of RESULTS-attacks.md from work/results/alc_attacks.jsonl: every
membership attack's AUC and TPR at FPR 1%, every attribute attack's ALC, on every release.

The hand-written text of RESULTS-attacks.md stays: only the text between the two markers is replaced.
Usage: python benchmarks/generators/attacks_report.py   (the main environment)
"""

from __future__ import annotations

import json
import sys

import pandas as pd
from common import HERE, REAL, WORK, digest
from report import END, RELEASE_ORDER, START, current_digests, latest

RESULTS_MD = HERE / "RESULTS-attacks.md"
ALC_ATTACKS = ("best_row_match", "ml_on_release")
MEMBERSHIP_ORDER = ("closest_distance", "distance_ratio", "density_ratio", "density_ratio_mixture")
"""The distance attacks first, then the density ones (as ``evaluators/alc_attacks.py`` names them)."""


def read_results() -> pd.DataFrame:
    """The latest measures of every release as it is now on disk (a remade release's old ones left out)."""
    path = WORK / "results" / "alc_attacks.jsonl"
    frame = pd.DataFrame([json.loads(line) for line in path.read_text().splitlines()]) if path.exists() else pd.DataFrame()
    if frame.empty:
        return frame
    current = current_digests() | {(path.parent.name, "real_weak"): digest(path) for path in REAL.glob("*/release.parquet")}
    return latest(frame, current, ["dataset", "release", "measure"], ["rank", "dataset"], (*RELEASE_ORDER, "real_weak"))


FLOOR = -10.0
"""ALCs below this are shown as "< -10": an interval's low end at a tiny recall reaches millions below 0, a number no one reads."""


def number(value: float) -> str:
    return f"< {FLOOR:g}" if value < FLOOR else f"{value:.3f}"


def interval(value: float, low: float, high: float) -> str:
    return f"{number(value)} [{number(low)}, {number(high)}]"


def membership_table(frame: pd.DataFrame) -> list[str]:
    measured = set(frame.loc[frame["family"] == "membership", "attack"])
    attacks = [name for name in MEMBERSHIP_ORDER if name in measured] + sorted(measured - set(MEMBERSHIP_ORDER))
    lines = [
        "| dataset | release | " + " | ".join(f"{name}: AUC · TPR@1%" for name in attacks) + " | seconds (whole job) |",
        "|---|---|" + "---|" * len(attacks) + "---:|",
    ]
    for (dataset, release), rows in frame.groupby(["dataset", "release"], sort=False):
        cells = []
        for attack in attacks:
            row = rows[rows["measure"] == f"membership:{attack}"]
            if row.empty:
                cells.append("—")
                continue
            r = row.iloc[0]
            cells.append(f"{interval(r['value'], r['low'], r['high'])} · {interval(r['tpr'], r['tpr_low'], r['tpr_high'])}")
        total = rows[rows["measure"] == "total"]
        seconds = "—" if total.empty else f"{total['seconds'].iloc[0]:.0f}"
        lines.append(f"| {dataset} | {release} | {' | '.join(cells)} | {seconds} |")
    return lines


def alc_table(frame: pd.DataFrame) -> list[str]:
    lines = [
        "| dataset | release | secret | " + " | ".join(f"{name} ALC [interval]" for name in ALC_ATTACKS) + " |",
        "|---|---|---|" + "---|" * len(ALC_ATTACKS),
    ]
    alc = frame[frame["family"] == "alc"]
    for (dataset, release, secret), rows in alc.groupby(["dataset", "release", "secret"], sort=False):
        cells = []
        for attack in ALC_ATTACKS:
            row = rows[rows["attack"] == attack]
            cells.append("—" if row.empty else interval(*row.iloc[0][["value", "low", "high"]]))
        lines.append(f"| {dataset} | {release} | {secret} | {' | '.join(cells)} |")
    return lines


def epsilon_table(frame: pd.DataFrame) -> list[str]:
    """Each DP release's declared ε beside the ε each membership attack proves (its lower bound)."""
    if "epsilon_declared" not in frame:
        return ["No release declares an ε."]
    dp = frame[(frame["family"] == "membership") & frame["epsilon_declared"].notna()]
    lines = [
        "| dataset | release | declared ε | " + " | ".join(f"{name}: ε ≥" for name in MEMBERSHIP_ORDER) + " |",
        "|---|---|---:|" + "---:|" * len(MEMBERSHIP_ORDER),
    ]
    for (dataset, release), rows in dp.groupby(["dataset", "release"], sort=False):
        bounds = {row["attack"]: f"{row['epsilon_lower_bound']:.3f}" for _, row in rows.iterrows()}
        cells = [bounds.get(name, "—") for name in MEMBERSHIP_ORDER]
        lines.append(f"| {dataset} | {release} | {rows['epsilon_declared'].iloc[0]:g} | {' | '.join(cells)} |")
    return lines


def main() -> int:
    frame = read_results()
    if frame.empty:
        print("no results yet in work/results/alc_attacks.jsonl", file=sys.stderr)
        return 3
    section = "\n".join(
        [
            START,
            "",
            "### Membership: AUC [95% interval] · TPR at FPR 1% [95% interval]",
            "",
            *membership_table(frame),
            "",
            "### Attribute inference: ALC [interval]",
            "",
            *alc_table(frame),
            "",
            "### Differential privacy: the declared ε against the ε each attack proves",
            "",
            *epsilon_table(frame),
            "",
            END,
        ]
    )
    text = RESULTS_MD.read_text() if RESULTS_MD.exists() else f"# Every attack on every release\n\n{START}\n{END}\n"
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    RESULTS_MD.write_text(head + section + tail)
    print(f"wrote {RESULTS_MD}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
