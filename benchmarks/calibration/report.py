"""The calibration's report: reads ``work/results.jsonl`` (written by ``run.py``), prints markdown
(the verdicts per release kind with and without control, the two goals met or not with their
figures, what the evaluations that did not pass said on the non-leaking releases, every run) and
draws ``calibration.png`` (per release and control mode, the shares flagged, inconclusive and pass).
Each run's verdict is judged again from the scores its check kept, by the verdict of the code at
hand (``--as-stored``: the verdicts the runs stored).

    .venv/bin/python benchmarks/calibration/report.py [--work DIR] [--figure PATH]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd
from releases import KINDS, MAX_MEMBERS

HERE = Path(__file__).resolve().parent
VERDICTS = ("flagged", "inconclusive", "pass")
COLOURS = {"flagged": "#d62728", "inconclusive": "#ff9f1c", "pass": "#2ca02c"}
PASS_GOAL = 0.90
"""Share of non-leaking releases that must pass (with members and control of ``MAX_MEMBERS`` rows)."""


def read_results(path: Path) -> pd.DataFrame:
    """Every row of ``results.jsonl``, releases in ``KINDS``' order (leaking first)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    frame = pd.DataFrame(rows)
    frame["release"] = pd.Categorical(frame["release"], categories=[name for name in KINDS if name in set(frame["release"])], ordered=True)
    return frame.sort_values(["release", "table", "seed", "with_control"], ascending=[True, True, True, False]).reset_index(drop=True)


def rejudged(frame: pd.DataFrame, work: Path) -> pd.DataFrame:
    """Each run's verdict judged again from the scores its check kept (``work/checks/...``) by the
    verdict of the code at hand: a change to the verdict's rules is measured without attacking
    again. A run whose folder is gone keeps the verdict it stored."""
    from run import EVIDENCE_CHARS

    from alc_dask.results import read_scores
    from alc_dask.verdict import verdict_of

    frame = frame.copy()
    for index, row in frame.iterrows():
        folder = work / "checks" / row["table"] / f"seed{row['seed']}" / row["release"] / ("control" if row["with_control"] else "no_control")
        if row["verdict"] == "error" or not (folder / "scores").exists():
            continue
        verdict = verdict_of(read_scores(folder))
        frame.at[index, "verdict"] = verdict.verdict
        frame.at[index, "non_pass"] = [
            {
                "family": e.family,
                "label": e.label,
                "value": e.headline.value,
                "low": e.headline.low,
                "high": e.headline.high,
                "threshold": e.headline.threshold,
                "evidence": e.evidence[:EVIDENCE_CHARS],
            }
            for e in verdict.evaluations
            if e.label != "pass"
        ]
    return frame


def control_label(with_control: bool) -> str:
    """How a control mode is shown."""
    return "with control" if with_control else "without control"


def shares(frame: pd.DataFrame) -> pd.DataFrame:
    """Per release and control mode: runs, and the share of each verdict (errors count as runs, in no share)."""
    grouped = frame.groupby(["release", "truth", "with_control"], observed=True, sort=True)
    table = grouped["verdict"].value_counts(normalize=True).unstack(fill_value=0.0).reindex(columns=VERDICTS, fill_value=0.0)
    table.insert(0, "runs", grouped.size())
    table["errors"] = grouped["verdict"].apply(lambda verdicts: int((verdicts == "error").sum()))
    return table.sort_index(level=["release", "truth", "with_control"], ascending=[True, False, False])


def summary_markdown(table: pd.DataFrame) -> str:
    """The verdict shares as a markdown table."""
    lines = ["| release | truth | control | runs | flagged | inconclusive | pass | errors |", "|---|---|---|---:|---:|---:|---:|---:|"]
    for (release, truth, with_control), row in table.iterrows():
        figures = " | ".join(f"{100 * row[verdict]:.0f}%" for verdict in VERDICTS)
        lines.append(f"| {release} | {truth} | {control_label(with_control)} | {int(row['runs'])} | {figures} | {int(row['errors'])} |")
    return "\n".join(lines)


def goals_markdown(frame: pd.DataFrame) -> str:
    """Both goals per control mode, met or not, with the counts they rest on."""
    lines = ["| goal | control | figure | met |", "|---|---|---|---|"]
    for with_control in sorted(set(frame["with_control"]), reverse=True):
        mode = frame[frame["with_control"] == with_control]
        leaking = mode[mode["truth"] == "yes"]
        flagged = int((leaking["verdict"] == "flagged").sum())
        met = "yes" if len(leaking) and flagged == len(leaking) else ("no" if len(leaking) else "not measured")
        lines.append(f"| every leaking release flagged (100%) | {control_label(with_control)} | {flagged}/{len(leaking)} flagged{missed(leaking)} | {met} |")
        clean = mode[(mode["truth"] == "no") & (mode["n_members"] >= MAX_MEMBERS)]
        passed = int((clean["verdict"] == "pass").sum())
        figure = f"{passed}/{len(clean)} pass ({100 * passed / len(clean):.0f}%)" if len(clean) else f"no run with {MAX_MEMBERS} members"
        met = ("yes" if passed >= PASS_GOAL * len(clean) else "no") if len(clean) else "not measured"
        lines.append(f"| non-leaking releases pass ≥ {100 * PASS_GOAL:.0f}% ({MAX_MEMBERS} members) | {control_label(with_control)} | {figure} | {met} |")
    return "\n".join(lines)


def missed(leaking: pd.DataFrame) -> str:
    """The leaking runs that were not flagged, named briefly (empty if none)."""
    names = [f"{row.table}/{row.seed}/{row.release}: {row.verdict}" for row in leaking.itertuples() if row.verdict != "flagged"]
    return f" (missed: {', '.join(names)})" if names else ""


def clean_findings_markdown(frame: pd.DataFrame) -> str:
    """On the non-leaking releases, each family and label that did not pass: how often, and one evidence as an example."""
    findings: dict[tuple[str, str], list[str]] = {}
    for row in frame[frame["truth"] == "no"].itertuples():
        for item in row.non_pass:
            findings.setdefault((item["family"], item["label"]), []).append(item["evidence"])
    if not findings:
        return "Every evaluation of every non-leaking release passed."
    lines = ["| family | label | evaluations | an example's evidence |", "|---|---|---:|---|"]
    for (family, label), evidence in sorted(findings.items(), key=lambda pair: -len(pair[1])):
        lines.append(f"| {family} | {label} | {len(evidence)} | {evidence[0].replace('|', '/')} |")
    return "\n".join(lines)


def runs_markdown(frame: pd.DataFrame) -> str:
    """Every run: its verdict, the families that did not pass, the time and both diagnostics."""
    lines = [
        "| table | seed | release | truth | control | members | verdict | not passed | s | AUC [95%] | nearest: members / others (secret) |",
        "|---|---:|---|---|---|---:|---|---|---:|---|---|",
    ]
    for row in frame.itertuples():
        families = ", ".join(sorted({f"{item['family']} {item['label']}" for item in row.non_pass}))
        problem = getattr(row, "error", None)
        not_passed = problem if isinstance(problem, str) else families
        nearest = "—" if row.secret_for_nearest is None else f"{row.nearest_members:.2f} / {row.nearest_others:.2f} ({row.secret_for_nearest})"
        lines.append(
            f"| {row.table} | {row.seed} | {row.release} | {row.truth} | {control_label(row.with_control)} | {row.n_members} | {row.verdict} | "
            f"{not_passed.replace('|', '/')} | {row.seconds:.0f} | {row.auc:.3f} [{row.auc_low:.3f}, {row.auc_high:.3f}] | {nearest} |"
        )
    return "\n".join(lines)


def draw(table: pd.DataFrame, path: Path) -> None:
    """``calibration.png``: one panel per control mode, one bar per release kind and truth, split into the shares flagged, inconclusive and pass."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kinds = list(dict.fromkeys((release, truth) for release, truth, _ in table.index))
    releases = [f"{release} (leaks: {truth})" for release, truth in kinds]
    modes = sorted(set(table.index.get_level_values("with_control")), reverse=True)
    figure, axes = plt.subplots(1, len(modes), figsize=(5 * len(modes), 0.45 * len(releases) + 1.5), sharey=True, squeeze=False)
    for axis, with_control in zip(axes[0], modes):
        left = [0.0] * len(releases)
        for verdict in VERDICTS:
            widths = [table[verdict].get((release, truth, with_control), 0.0) for release, truth in kinds]
            axis.barh(releases, widths, left=left, color=COLOURS[verdict], label=verdict)
            left = [start + width for start, width in zip(left, widths)]
        axis.set_title(control_label(with_control))
        axis.set_xlim(0, 1)
        axis.set_xlabel("share of runs")
        axis.invert_yaxis()
    figure.legend(
        *axes[0][0].get_legend_handles_labels(), loc="lower center", ncol=len(VERDICTS), fontsize="small"
    )  # below the panels: inside one it hid a bar
    figure.suptitle("alc_dask verdicts on releases of known truth")
    figure.tight_layout(rect=(0, 0.05, 1, 1))
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    """Print the report of ``results.jsonl`` and draw its figure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=HERE / "work", help="the folder holding results.jsonl")
    parser.add_argument("--figure", type=Path, default=HERE / "calibration.png")
    parser.add_argument("--as-stored", action="store_true", help="the verdicts the runs stored, not judged again from their scores")
    args = parser.parse_args(argv)
    results = args.work / "results.jsonl"
    if not results.exists():
        print(f"{results} does not exist: run benchmarks/calibration/run.py first.")
        return 0
    frame = read_results(results)
    if not args.as_stored:
        frame = rejudged(frame, args.work)
    table = shares(frame)
    print("## Verdicts per release kind\n\n" + summary_markdown(table) + "\n")
    print("## Goals\n\n" + goals_markdown(frame) + "\n")
    print("## What did not pass on the non-leaking releases\n\n" + clean_findings_markdown(frame) + "\n")
    print("## Every run\n\n" + runs_markdown(frame))
    draw(table, args.figure)
    print(f"\nFigure: {args.figure}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
