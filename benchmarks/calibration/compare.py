"""Two calibration runs side by side: whether a change moved the verdict or any evaluation beyond
what its own interval allows (the rule of a change of scores: each headline of the new run within
the old run's interval, or the two intervals overlapping, and the labels agreeing).

Rows are matched by (table, seed, release, control mode); a check's evaluations of one family by
their subject (the secret or attack their evidence names first) and, within one subject, by the
nearest headlines. Prints, per family: evaluations
compared, the share whose new headline lies within the old interval, whose intervals overlap, whose
label is kept, and the largest change of a headline; then every verdict that changed.

    .venv/bin/python benchmarks/calibration/compare.py benchmarks/calibration/results-0.13.0.jsonl work/results.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from itertools import permutations
from pathlib import Path

import pandas as pd

MAX_PERMUTED = 7
"""Evaluations paired by trying every order at most (7! = 5 040 orders); more are paired as listed."""


def read_rows(path: Path) -> dict[tuple, dict]:
    """The rows of a results file by their key (a row written twice: the last)."""
    rows = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return {(row["table"], row["seed"], row["release"], row["with_control"]): row for row in rows}


def evaluations(row: dict) -> dict[str, list[dict]]:
    """A check's evaluations per family, in verdict order, each with its label."""
    if "passed" not in row:
        raise SystemExit("a row without the evaluations that passed: runs before 0.13.0 cannot be compared evaluation by evaluation")
    per_family: dict[str, list[dict]] = defaultdict(list)
    for item in row["non_pass"] + [{**item, "label": "pass"} for item in row["passed"]]:
        per_family[item["family"]].append(item)
    return per_family


def compared(old: dict[tuple, dict], new: dict[tuple, dict]) -> pd.DataFrame:
    """One row per evaluation both runs hold: its family, old and new headline, interval and label."""
    records = []
    for key in sorted(old.keys() & new.keys(), key=str):
        before, after = evaluations(old[key]), evaluations(new[key])
        for family in before.keys() & after.keys():
            for o, n in _paired(before[family], after[family]):
                records.append({"key": key, "family": family, **_pair(o, n)})
    return pd.DataFrame(records)


def _paired(before: list[dict], after: list[dict]) -> list[tuple[dict, dict]]:
    """A family's evaluations of two runs paired by their subject (the evidence's first words name
    the secret or the attack); several of one subject (a secret inferred from two column sets) by
    the nearest headlines, since a row lists the evaluations that did not pass apart from the
    others. Those whose subjects do not match (an evidence that names no secret, such as "not
    informative") are paired among themselves by the nearest headlines."""
    pairs, left_before, left_after = [], [], []
    for subject in dict.fromkeys(_subject(item) for item in before + after):
        olds = [item for item in before if _subject(item) == subject]
        news = [item for item in after if _subject(item) == subject]
        if len(olds) == len(news):
            pairs += _nearest_pairs(olds, news)
        else:
            left_before, left_after = left_before + olds, left_after + news
    if len(left_before) == len(left_after):
        pairs += _nearest_pairs(left_before, left_after)
    return pairs


def _nearest_pairs(olds: list[dict], news: list[dict]) -> list[tuple[dict, dict]]:
    """``olds`` paired with ``news`` (as many) so that the headlines move least in all."""
    if len(olds) > MAX_PERMUTED:
        return list(zip(olds, news, strict=True))
    best = min(permutations(news), key=lambda order: sum(_distance(o, n) for o, n in zip(olds, order, strict=True)))
    return list(zip(olds, best, strict=True))


def _subject(item: dict) -> str:
    return item["evidence"].split(" is ")[0].split(" of ")[0][:60]


def _distance(old: dict, new: dict) -> float:
    return abs((new.get("value") or 0.0) - (old.get("value") or 0.0))


def _pair(old: dict, new: dict) -> dict:
    value, low, high = (new.get(name) for name in ("value", "low", "high"))
    old_low, old_high = old.get("low"), old.get("high")
    numbers = None not in (value, low, high, old.get("value"), old_low, old_high)
    return {
        "old": old.get("value"),
        "new": value,
        "within": numbers and old_low <= value <= old_high,
        "overlap": numbers and low <= old_high and old_low <= high,
        "label_kept": old["label"] == new["label"],
    }


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per family and in all: evaluations, shares within, overlapping, labels kept, largest |change|."""
    frame = frame.assign(change=(frame["new"] - frame["old"]).abs())
    groups = [(family, part) for family, part in frame.groupby("family")] + [("all", frame)]
    return pd.DataFrame(
        [
            {
                "family": family,
                "evaluations": len(part),
                "within %": 100 * part["within"].mean(),
                "overlap %": 100 * part["overlap"].mean(),
                "labels kept %": 100 * part["label_kept"].mean(),
                "max |change|": part["change"].max(),
                "unchanged %": 100 * (part["change"] == 0).mean(),
            }
            for family, part in groups
        ]
    ).set_index("family")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path, help="the earlier run's results.jsonl")
    parser.add_argument("new", type=Path, help="the later run's results.jsonl")
    args = parser.parse_args(argv)
    old, new = read_rows(args.old), read_rows(args.new)
    both = old.keys() & new.keys()
    frame = compared(old, new)
    if frame.empty:
        print(f"no check is in both runs ({len(old)} and {len(new)} rows)")
        return 1
    print(f"{len(both)} checks in both runs")
    print(summary(frame).round(4).to_string())
    changed = [key for key in sorted(both, key=str) if old[key]["verdict"] != new[key]["verdict"]]
    print(f"verdicts kept: {len(both) - len(changed)} of {len(both)}")
    for key in changed:
        print(f"  {key}: {old[key]['verdict']} -> {new[key]['verdict']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
