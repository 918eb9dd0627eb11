"""A table's special uniques as measures: how many records have an MSU, their SUDA scores and
DIS-SUDA risks, summarised from a ``Summary`` (the distribution of scores suffices: DIS-SUDA is a
function of the score and of sums over the whole table)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alc_dask.families.special_uniques.search import Counts, Summary
from alc_dask.measure.suda import dis_probability, dis_suda, score_power_sum


@dataclass(frozen=True)
class TableRisk:
    """DIS-SUDA of one table: the file-level DIS and what turns a SUDA score into a record's risk."""

    n_keys: int
    n_unique: int
    n_in_pairs: int
    dis: float
    power_sum: float

    @classmethod
    def of(cls, summary: Summary, counts: Counts, n_keys: int, dis_fraction: float) -> TableRisk:
        n_unique, n_in_pairs = counts.full_profile()
        power_sum = score_power_sum(summary.score_values, n_keys, summary.score_counts)
        return cls(n_keys, n_unique, n_in_pairs, dis_probability(n_unique, n_in_pairs, dis_fraction), power_sum)

    def risks(self, scores: np.ndarray) -> np.ndarray:
        if self.n_unique == 0:
            return np.zeros(len(scores))
        return dis_suda(scores, self.n_keys, self.n_unique, self.dis, self.power_sum)


def table_measures(side: str, summary: Summary, risk: TableRisk, dis_cut: float) -> dict:
    """The measures of one table, each name ending in ``_<side>``."""
    n = max(summary.n_rows, 1)
    values, counts = summary.score_values, summary.score_counts
    risks = risk.risks(values)
    measures = {
        "n_special": summary.n_special,
        "special_share": summary.n_special / n,
        "msus_by_size": summary.msus_by_size.astype(np.int64).tolist(),
        "mean_suda": float((values * counts).sum() / n),
        "max_suda": float(values.max(initial=0.0)),
        "dis": risk.dis,
        "mean_dis_suda": float((risks * counts).sum() / n),
        "max_dis_suda": float(risks.max(initial=0.0)),
        "share_dis_suda_above_cut": float(counts[risks > dis_cut].sum() / n),
    }
    return {f"{name}_{side}": value for name, value in measures.items()}


def contributions(summary: Summary, columns: tuple[str, ...]) -> dict[str, float]:
    """Each key variable's share of the table's total SUDA score, in percent (sdcMicro's attribute
    contributions): the scores of the MSUs holding it over the sum of all records' scores. A
    variable in an MSU of several counts for each, so the shares may add to more than 100."""
    total = float((summary.score_values * summary.score_counts).sum())
    if total == 0:
        return {c: 0.0 for c in columns}
    return {c: float(100 * v / total) for c, v in zip(columns, summary.contributions)}
