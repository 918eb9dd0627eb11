"""The privacy_models family's measures."""

import pyarrow as pa

from alc_dask.families.base import column

PRIVACY_MODEL_FIELDS = (
    column("table_measured", pa.string(), "the table whose classes were measured: an anonymized table's name, or grouped"),
    column("quasi_identifiers", pa.string(), "the quasi-identifiers the classes are made of, as a JSON list"),
    column("sensitive", pa.string(), "the sensitive column"),
    column("ground_distance", pa.string(), "t-closeness's ground distance: ordered (numbers, ordinals) or equal (categories)"),
    column("n_rows", pa.int64(), "records of the table measured"),
    column("n_classes", pa.int64(), "equivalence classes: records alike on the quasi-identifiers (or on every generalized cell)"),
    column("k", pa.int64(), "k-anonymity: records of the smallest class"),
    column("declared_k", pa.int64(), "the k the release declares"),
    column("l_distinct", pa.int64(), "distinct l-diversity: fewest distinct sensitive values in a class"),
    column("l_entropy", pa.float64(), "entropy l-diversity: lowest exp(entropy) of a class's sensitive values"),
    column("l_kind", pa.string(), "which l the declared l is compared with: distinct or entropy"),
    column("l", pa.float64(), "the release's l of that kind"),
    column("declared_l", pa.float64(), "the l the release declares (none: not declared)"),
    column("t", pa.float64(), "t-closeness: largest earth mover's distance of a class's sensitive distribution to the table's"),
    column("declared_t", pa.float64(), "the t the release declares (none: not declared)"),
    column("k_missed", pa.bool_(), "whether a class is smaller than the declared k"),
    column("l_missed", pa.bool_(), "whether a class has an l below the declared l"),
    column("t_missed", pa.bool_(), "whether a class is farther than the declared t"),
    column("models_missed", pa.float64(), "how many declared models (k, l, t) the release misses: the headline"),
    column("below_k_records", pa.int64(), "records in classes smaller than the declared k"),
    column("violating_records", pa.int64(), "records in classes that miss any declared model"),
    column("violating_share", pa.float64(), "share of the table's records in classes that miss a declared model"),
    column(
        "violating_rows",
        pa.list_(pa.int64()),
        "the first violating records: rows of the table measured (a generalized table's in group order), at most max_records",
    ),
    column("risk", pa.string(), "safe: every declared model met; at risk: one missed; serious: missed with a record alone in its class"),
)
