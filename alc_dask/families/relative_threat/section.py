"""The relative-threat family's section: per group-anonymized release, the global threats of the
attacker, the learner and the random-worlds reasoner beside the ideal and baseline accuracies (the
shape of Boreale et al. 2020, Tables IV and V), the chains' convergence, and a figure of the rows the
attacker threatens."""

import numpy as np
import pandas as pd

from alc_dask.families.presentation import Section
from alc_dask.families.relative_threat.plots import relative_threats

MEASURES = {
    "gt_attacker": "Global threat level under p_A (GT_A)",
    "gt_learner": "Global threat level under p_L (GT_L)",
    "gt_random_worlds": "Global threat level under p_RW (GT_RW)",
    "rgt_attacker": "Relative global threat (RGT_A)",
    "faithfulness": "Empirical relative faithfulness level (RF)",
    "abs_attacker": "Absolute error under p_A (ABS_A)",
    "abs_random_worlds": "Absolute error under p_RW (ABS_RW)",
    "baseline_accuracy": "Baseline accuracy",
    "ideal_accuracy": "Ideal accuracy",
    "ti_max": "Largest relative threat (max Ti)",
    "ti_doubled_share": "Rows threatened under p_A with log2 Ti ≥ 1",
    "alc_over_learner": "ALC of the attacker over the learner",
    "risk": "Risk",
}
RELEASE = ["scheme", "n_rows", "n_groups", "mean_group_size", "min_group_size", "min_diversity"]
CONVERGENCE = ["chains", "iterations", "burn_in", "draws", "chain_seconds", "acceptance", "geweke_outside", "geweke_max", "rhat_max", "converged", "warning"]


def section(family: str, scores: pd.DataFrame) -> Section:
    ranked = scores.sort_values(["alc_over_learner", "scenario_id"], ascending=[False, True]).reset_index(drop=True)
    labels = _labels(ranked)
    measures = pd.DataFrame({"measure": list(MEASURES.values())} | {label: [_shown(ranked[m].iloc[i]) for m in MEASURES] for i, label in enumerate(labels)})
    releases = (
        _whole(ranked[RELEASE], ["n_rows", "n_groups", "min_group_size", "min_diversity"]).assign(evaluation=labels).set_index("evaluation").reset_index()
    )
    convergence = _whole(ranked[CONVERGENCE], ["chains", "iterations", "burn_in", "draws"]).assign(evaluation=labels).set_index("evaluation").reset_index()
    figures = {
        f"Relative threat: {label}": relative_threats(label, np.asarray(row.threat_attacker, dtype=float), np.asarray(row.threat_learner, dtype=float))
        for label, row in zip(labels, ranked.itertuples())
    }
    notes = tuple(_sentence(label, row) for label, row in zip(labels, ranked.itertuples()))
    return Section(
        "Relative threat of group-anonymized releases",
        {"Threat and faithfulness (as Boreale et al. 2020, Tables IV and V)": measures, "Releases": releases, "Convergence of the chains": convergence},
        figures,
        notes,
    )


def _shown(value) -> str:
    """A measure as Boreale et al.'s tables print it: shares to 4 decimals, errors and Ti to 2."""
    if isinstance(value, str):
        return value
    return f"{value:.4f}" if abs(value) <= 1 else f"{value:,.2f}"


def _whole(table: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Counts as whole numbers (the scores table holds them beside other families' nulls)."""
    return table.astype({c: "Int64" for c in columns})


def _labels(scores: pd.DataFrame) -> list[str]:
    """The release and scheme of each evaluation; its id where that repeats."""
    labels = [f"{row.release} ({row.scheme})" for row in scores.itertuples()]
    return [f"{label}, {int(row.iterations):,} sweeps" if labels.count(label) > 1 else label for label, row in zip(labels, scores.itertuples())]


def _sentence(label: str, row) -> str:
    verdict = "" if row.converged else " The chains did not converge: treat these figures as provisional."
    return (
        f"{label}: an attacker who knows a person is in the release guesses their {row.sensitive} right for {row.gt_attacker:.1%} of the people, "
        f"a learner of the population for {row.gt_learner:.1%} (the most common value alone: {row.baseline_accuracy:.1%}); "
        f"{int(row.ti_doubled_rows):,} people are at least twice as exposed to the attacker as to the learner (largest Ti {row.ti_max:.1f}).{verdict}"
    )
