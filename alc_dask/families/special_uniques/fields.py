"""The measures of a special-uniques evaluation, each with its one-line description."""

import pyarrow as pa

from alc_dask.families.base import column


def _table_fields(side: str, table: str) -> tuple[pa.Field, ...]:
    return (
        column(f"n_special_{side}", pa.int64(), f"records of the {table} with at least one MSU (special uniques)"),
        column(f"special_share_{side}", pa.float64(), f"share of the {table}'s records with at least one MSU"),
        column(f"msus_by_size_{side}", pa.list_(pa.int64()), f"MSUs found in the {table}, of each size from 1 to max_size"),
        column(f"mean_suda_{side}", pa.float64(), f"mean SUDA score over the {table}'s records (0 for a record without MSU)"),
        column(f"max_suda_{side}", pa.float64(), f"highest SUDA score of a record of the {table}"),
        column(f"dis_{side}", pa.float64(), f"the {table}'s DIS: estimated probability that a unique match on all key variables is correct"),
        column(f"mean_dis_suda_{side}", pa.float64(), f"mean DIS-SUDA risk over the {table}'s records"),
        column(f"max_dis_suda_{side}", pa.float64(), f"highest DIS-SUDA risk of a record of the {table}"),
        column(f"share_dis_suda_above_cut_{side}", pa.float64(), f"share of the {table}'s records whose DIS-SUDA risk exceeds dis_cut"),
    )


FIELDS = (
    column("key_columns", pa.string(), "the key variables searched, as a JSON list"),
    column("max_size", pa.int64(), "the largest MSU searched for"),
    column("dis_fraction", pa.float64(), "the sampling fraction DIS assumes (sdcMicro's DisFraction)"),
    column("dis_cut", pa.float64(), "the DIS-SUDA risk from which a record counts as at risk"),
    column("n_original", pa.int64(), "records of the original"),
    column("n_release", pa.int64(), "records of the anonymized table"),
    column("n_control", pa.int64(), "records of the control table (0 without one)"),
    *_table_fields("original", "original"),
    *_table_fields("release", "anonymized table"),
    column(
        "contributions_original",
        pa.string(),
        "each key variable's share of the original's total SUDA score in percent, as JSON (sdcMicro's attribute contributions)",
    ),
    column("n_replicated", pa.int64(), "original records with an MSU whose values occur exactly once in the release (replicated special uniques)"),
    column("replicated_fraction", pa.float64(), "share of all original records that are replicated special uniques"),
    column("replicated_share", pa.float64(), "share of the original's special uniques that the release replicates, Wilson-corrected"),
    column("replicated_share_err", pa.float64(), "the replicated share's error (half its interval)"),
    column("n_special_control", pa.int64(), "control records with at least one MSU in the control table"),
    column("n_control_replicated", pa.int64(), "control records with an MSU (in the control) whose values occur exactly once in the release"),
    column("control_replicated_share", pa.float64(), "share of the control's special uniques that the release replicates, Wilson-corrected"),
    column("control_replicated_share_err", pa.float64(), "the control share's error (half its interval)"),
    column(
        "replicated_risk", pa.float64(), "the original's replicated share beyond the control's: (original - control) / (1 - control), in [0, 1]; the headline"
    ),
    column("replicated_risk_low", pa.float64(), "lower end of the replicated risk's interval"),
    column("replicated_risk_high", pa.float64(), "upper end of the replicated risk's interval"),
    column("highest_risk_records", pa.list_(pa.int64()), "rows of the original of highest SUDA score (so of highest DIS-SUDA risk), highest first"),
    column("highest_risk_dis_suda", pa.list_(pa.float64()), "the DIS-SUDA risk of each of highest_risk_records"),
    column("confidence_level", pa.float64(), "confidence level of the shares' and the risk's intervals"),
    column("warning", pa.string(), "what makes the risk doubtful: no control table, a control of another size than the original, ..."),
)
