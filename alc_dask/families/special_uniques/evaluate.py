"""One special-uniques evaluation: the counts of the three tables, their MSUs, and the measures, in
one Dask graph computed where the tables' blocks are."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa

from alc_dask.data.partitioned import compute
from alc_dask.families.base import Evaluation
from alc_dask.families.special_uniques.keys import KeySpace
from alc_dask.families.special_uniques.measures import TableRisk, contributions, table_measures
from alc_dask.families.special_uniques.search import blocks_of, counts_of, summary_of
from alc_dask.measure.privacy_risk import PrivacyRisk, bounded, residual_rate, success_rate
from alc_dask.measure.suda import msu_weights

NO_CONTROL = "the release has no control table: the risk is the original's replicated share, with no baseline of people not in the release"
NO_CONTROL_SPECIAL = "the control table has no special unique: the risk is the original's replicated share, with no baseline"
NO_SPECIAL = "the original has no special unique on these key variables up to max_size: the release can replicate none"
UNEQUAL_SIZES = 0.1
"""A control table this much larger or smaller than the original is said to be: its share of random uniques differs."""


def special_uniques(params, release, columns: tuple[str, ...]) -> Evaluation:
    space = KeySpace(columns, tuple(release.columns[c].codes.n_codes for c in columns), params.max_size)
    weights = msu_weights(len(columns), params.max_size)
    released, original, control = release.anonymized[params.table], release.original, release.control
    counts = {"release": counts_of(released, space), "original": counts_of(original, space)}
    summaries = {
        "release": summary_of(released, space, counts["release"], weights, params.highest),
        "original": summary_of(original, space, counts["original"], weights, params.highest, counts["release"]),
    }
    if control is not None:
        counts["control"] = counts_of(control, space)
        summaries["control"] = summary_of(control, space, counts["control"], weights, params.highest, counts["release"])
    blocks = [b for table in (original, released, control) if table is not None for b in blocks_of(table)[0]]
    blocks.sort(key=lambda b: getattr(b, "client", None) is None)  # blocks on a cluster first: compute runs there
    names = list(counts)
    computed = compute(blocks, *(counts[n] for n in names), *(summaries[n] for n in names))
    counts, summaries = dict(zip(names, computed[: len(names)])), dict(zip(names, computed[len(names) :]))
    risks = {n: TableRisk.of(summaries[n], counts[n], len(columns), params.dis_fraction) for n in names}
    return Evaluation(_measures(params, columns, summaries, risks), _predictions(summaries, risks))


def _measures(params, columns, summaries: dict, risks: dict) -> dict:
    original, released, control = summaries["original"], summaries["release"], summaries.get("control")
    main = success_rate(original.n_special, len(original.replicated_rows), params.confidence_level)
    usable = control is not None and control.n_special > 0
    baseline = success_rate(control.n_special, len(control.replicated_rows), params.confidence_level) if usable else None
    risk = bounded(residual_rate(main, baseline) if baseline is not None else main)
    warnings = [] if control is not None else [NO_CONTROL]
    if control is not None and not usable:
        warnings.append(NO_CONTROL_SPECIAL)
    if control is not None and abs(control.n_rows - original.n_rows) > UNEQUAL_SIZES * original.n_rows:
        warnings.append(
            f"the control table holds {control.n_rows} records and the original {original.n_rows}: a smaller table has more special uniques, "
            "and more of them random, so the baseline is not that of a table of the original's size"
        )
    if original.n_special == 0:
        risk, warnings = PrivacyRisk(0.0, 0.0, 0.0), [*warnings, NO_SPECIAL]
    top = risks["original"].risks(original.top_scores)
    return {
        "key_columns": json.dumps(list(columns)),
        "max_size": params.max_size,
        "dis_fraction": params.dis_fraction,
        "dis_cut": params.dis_cut,
        "n_original": original.n_rows,
        "n_release": released.n_rows,
        "n_control": control.n_rows if control is not None else 0,
        **table_measures("original", original, risks["original"], params.dis_cut),
        **table_measures("release", released, risks["release"], params.dis_cut),
        "contributions_original": json.dumps(contributions(original, columns)),
        "n_replicated": len(original.replicated_rows),
        "replicated_fraction": len(original.replicated_rows) / max(original.n_rows, 1),
        "replicated_share": main.value,
        "replicated_share_err": main.error,
        "n_special_control": control.n_special if control is not None else 0,
        "n_control_replicated": len(control.replicated_rows) if control is not None else 0,
        "control_replicated_share": baseline.value if baseline is not None else float("nan"),
        "control_replicated_share_err": baseline.error if baseline is not None else float("nan"),
        "replicated_risk": risk.value,
        "replicated_risk_low": risk.low,
        "replicated_risk_high": risk.high,
        "highest_risk_records": original.top_rows.astype(np.int64).tolist(),
        "highest_risk_dis_suda": top.tolist(),
        "confidence_level": params.confidence_level,
        "warning": "; ".join(warnings) or None,
    }


def _predictions(summaries: dict, risks: dict) -> pa.Table:
    """The replicated special uniques: rows of the original (side ``original``) and of the control
    (side ``control``), each with its DIS-SUDA risk in its own table as the confidence."""
    sides = [s for s in ("original", "control") if s in summaries]
    rows = [summaries[s].replicated_rows for s in sides]
    confidence = [risks[s].risks(summaries[s].replicated_scores) for s in sides]
    n = sum(len(r) for r in rows)
    return pa.table(
        {
            "target": pa.array(np.concatenate(rows) if rows else [], pa.int64()),
            "side": pa.array([s for s, r in zip(sides, rows) for _ in range(len(r))], pa.string()),
            "correct": pa.array(np.ones(n, dtype=bool)),
            "confidence": pa.array(np.concatenate(confidence) if confidence else [], pa.float64()),
            "abstained": pa.array(np.zeros(n, dtype=bool)),
        }
    )
