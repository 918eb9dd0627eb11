"""The membership family's section: each evaluation at the attacker's skew, precision at every skew
of the grid in plain words, TPR at low FPR, the ε each attack proves beside the generator's declared
one, the ROCs on log-log axes and precision-recall curves per skew. Curves are recomputed from the
ROC counts each row keeps."""

import json

import numpy as np
import pandas as pd

from alc_dask.families.membership.dp import epsilon_breach, promise
from alc_dask.families.membership.plots import precision_recall_by_skew, roc_log_log
from alc_dask.families.presentation import Section
from alc_dask.measure import Roc, Skew
from alc_dask.measure.dp_audit import generator_text

CURVES = 6
"""Evaluations (the most exposed) whose precision-recall curves are drawn."""
EVALUATIONS = [
    "release",
    "scenario_id",
    "attack",
    "n_members",
    "n_non_members",
    "auc",
    "skew",
    "baseline_precision",
    "best_precision",
    "best_precision_low",
    "best_precision_high",
    "best_recall",
    "above_baseline",
    "membership_alc",
    "risk",
]


def section(family: str, scores: pd.DataFrame) -> Section:
    ranked = scores.sort_values(["membership_alc", "scenario_id"], ascending=[False, True]).reset_index(drop=True)
    labels = _labels(ranked)
    evaluations = ranked.reindex(columns=EVALUATIONS)
    evaluations[["n_members", "n_non_members"]] = evaluations[["n_members", "n_non_members"]].astype("Int64")
    tables = {
        "Evaluations at the attacker's skew, by membership ALC": evaluations,
        "Precision at each skew": _per_skew(ranked, labels),
        "True positive rate at low false positive rates": _tpr_at_fpr(ranked, labels),
        DP_AUDIT: _dp_audit(ranked, labels),
    }
    rocs = {label: _roc(row) for label, row in zip(labels, ranked.itertuples())}
    figures = {"Membership: ROC on log-log axes": roc_log_log({label: (roc.fpr, roc.tpr) for label, roc in rocs.items()})}
    for label, row in list(zip(labels, ranked.itertuples()))[:CURVES]:
        curves = {}
        for at in row.precision_at_skews:
            recall, precision = rocs[label].supported_precision_recall(Skew.parse(at["skew"]), row.confidence_level)
            curves[at["skew"]] = (recall, precision, at["baseline"])
        figures[f"Membership: precision and recall per skew, {label}"] = precision_recall_by_skew(curves, f"Precision-recall per skew: {label}")
    notes = tuple(_in_words(label, at) for label, row in zip(labels, ranked.itertuples()) for at in row.precision_at_skews if at["skew"] == row.skew)
    if len(ranked) > CURVES:
        notes += (f"Precision-recall curves are drawn for the {CURVES} most exposed of {len(ranked)} evaluations.",)
    notes += (DP_NOTE,) + tuple(f"{label}: {breach}; flagged." for label, row in zip(labels, ranked.to_dict("records")) if (breach := epsilon_breach(row)))
    return Section("Membership inference", tables, figures, notes)


DP_AUDIT = "Differential privacy: the ε each attack proves, beside the generator's"
DP_NOTE = (
    "The ε lower bound is the largest ε any threshold of the attack's score proves, ln((TPR − δ) / FPR) or ln((1 − FPR − δ) / (1 − TPR)) "
    "with Clopper–Pearson bounds of TPR and FPR that hold for every threshold at once (Jagielski et al. 2020; Kairouz et al. 2015, Theorem 2.1), "
    "at the declared δ (else 0). Above the ε a release's generator declares, the generator does not keep its promise, or the release was not "
    "made as declared: the evaluation is flagged whatever its ALC."
)


def in_words(at: dict) -> str:
    """One skew's result as a sentence, e.g. "at 1 member in 101 people (1:100), the best attack is
    right 12.0% of the time (8.1%–17.5%) for 1 member in 1,000, where guessing that everyone is a
    member is right 0.99% of the time"."""
    skew = Skew.parse(at["skew"])
    if not at["above_baseline"]:
        return f"at {skew.in_words()} ({skew}), the attack does no better than guessing that everyone is a member (right {at['baseline']:.2%} of the time)"
    recall = at["recall"]
    found = f"{recall:.0%} of the members" if recall >= 0.1 else f"1 member in {1 / recall:,.0f}"
    return (
        f"at {skew.in_words()} ({skew}), the best attack is right {at['precision']:.1%} of the time "
        f"({at['precision_low']:.1%}–{at['precision_high']:.1%}) for {found}, where guessing that everyone is a member is right {at['baseline']:.2%} of the time"
    )


def _in_words(label: str, at: dict) -> str:
    return f"{label}: {in_words(at)}."


def _per_skew(ranked: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    rows = [
        {
            "evaluation": label,
            "skew": at["skew"],
            "all-member precision": at["baseline"],
            "best precision": at["precision"],
            "low": at["precision_low"],
            "high": at["precision_high"],
            "recall": at["recall"],
            "above baseline": at["above_baseline"],
            "ALC": at["alc"],
            "in words": in_words(at),
        }
        for label, row in zip(labels, ranked.itertuples())
        for at in row.precision_at_skews
    ]
    return pd.DataFrame(rows)


def _tpr_at_fpr(ranked: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    rows = [
        {"evaluation": label, "FPR target": p["fpr_target"], "FPR reached": p["fpr"], "TPR": p["tpr"], "low": p["tpr_low"], "high": p["tpr_high"]}
        for label, row in zip(labels, ranked.itertuples())
        for p in row.tpr_at_fpr
    ]
    return pd.DataFrame(rows, columns=["evaluation", "FPR target", "FPR reached", "TPR", "low", "high"])


def _dp_audit(ranked: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    rows = [
        {
            "evaluation": label,
            "generator": generator_text(json.loads(row["generator"])) if isinstance(row.get("generator"), str) else "not declared",
            "ε declared": row.get("epsilon_declared"),
            "δ declared": row.get("delta_declared"),
            "ε lower bound": row.get("epsilon_lower_bound"),
            "promise": promise(row),
        }
        for label, row in zip(labels, ranked.to_dict("records"))
    ]
    numbers = ["ε declared", "δ declared", "ε lower bound"]
    frame = pd.DataFrame(rows, columns=["evaluation", "generator", *numbers, "promise"])
    return frame.astype(dict.fromkeys(numbers, float))


def _roc(row) -> Roc:
    return Roc.from_counts(np.asarray(row.roc_false_positives), np.asarray(row.roc_true_positives), row.n_members, row.n_non_members)


def _labels(ranked: pd.DataFrame) -> list[str]:
    """Per evaluation: its attack, with the release when there are several, and its id when that is not enough."""
    several = ranked["release"].nunique() > 1
    labels = [f"{row.attack} ({row.release})" if several else str(row.attack) for row in ranked.itertuples()]
    repeated = pd.Series(labels).duplicated(keep=False)
    return [f"{label} [{scenario}]" if twice else label for label, scenario, twice in zip(labels, ranked["scenario_id"], repeated)]
