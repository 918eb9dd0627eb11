"""The paper's Table 2 and Figure 7: our approach against the prior one, key by key (spec §9).

A key is a (secret column, known columns) pair. "ours" is its best ALC over the best-base versus
best-attack measures; "no recall" its best ALC with the attack at recall 1 (same baseline);
"prior" its best ALC in the prior approach (swap-anonymized baseline, recall 1). Table 2 counts
the keys where the two approaches put a release on different sides of the risk thresholds.
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd

from alc_dask.data import DISCRETIZED_SUFFIX
from alc_dask.measure import risk_label

ALC_FLOOR = -0.2
KEY = ["dataset", "secret", "known"]
DISAGREEMENTS = [("at risk", "safe"), ("serious", "safe"), ("safe", "at risk"), ("safe", "serious")]
PAPER_TABLE2 = pd.DataFrame(
    {"no recall": [16.54, 0.59, 0.60, 0.06], "prior approach": [24.24, 1.24, 1.52, 0.01]},
    index=pd.MultiIndex.from_tuples(DISAGREEMENTS, names=["ours", "other"]),
)
"""The paper's published Table 2 (percent of 8886 keys, weak releases), as the spec restores it."""


def paper_label(alc) -> np.ndarray:
    """The paper's three labels: ALC below 0.5 (no loss included) is safe."""
    labels = risk_label(np.asarray(alc, dtype=float))
    return np.where(labels == "no loss", "safe", labels)


def normalize_key(secret: str, known: str | list) -> tuple[str, str]:
    """Secret without the discretized suffix; known columns as a sorted JSON list."""
    columns = json.loads(known) if isinstance(known, str) else list(known)
    return secret.removesuffix(DISCRETIZED_SUFFIX), json.dumps(sorted(columns))


def _keyed(frame: pd.DataFrame) -> pd.DataFrame:
    keys = [normalize_key(s, k) for s, k in zip(frame["secret"], frame["known"])]
    return frame.assign(secret=[k[0] for k in keys], known=[k[1] for k in keys])


def reference_keys(results_dir: Path, strength: str) -> pd.DataFrame:
    """Per key, the reference's ours / no recall / prior ALCs, from its published results."""
    def best(file: str, rows) -> pd.Series:
        frame = pd.read_parquet(Path(results_dir) / file)
        frame = _keyed(frame.rename(columns={"secret_column": "secret", "known_columns": "known"}))
        frame["dataset"] = frame["dataset"].str.removesuffix(".parquet")
        return frame[rows(frame)].groupby(KEY)["alc"].max()

    ours = best(f"all_secret_known_{strength}.parquet", lambda f: ~f["paired"])
    no_recall = best(f"all_secret_known_{strength}.parquet", lambda f: f["attack_recall"] == 1)
    prior = best(f"all_secret_known_prior_{strength}.parquet", lambda f: f["attack_recall"] == 1)
    return pd.DataFrame({"ours": ours, "no recall": no_recall, "prior approach": prior})


def our_keys(ours_scores: pd.DataFrame, prior_scores: pd.DataFrame) -> pd.DataFrame:
    """Per key, our ours / no recall / prior ALCs from engine score tables (columns dataset,
    secret, known, alc, alc_full_recall)."""
    ours = _keyed(ours_scores).groupby(KEY)
    prior = _keyed(prior_scores).groupby(KEY)
    return pd.DataFrame({"ours": ours["alc"].max(), "no recall": ours["alc_full_recall"].max(), "prior approach": prior["alc_full_recall"].max()})


def table2(keys: pd.DataFrame) -> pd.DataFrame:
    """Percent of keys per disagreement (ours label, other label), for each other approach.

    Keys missing an ALC on either side are left out of that column; ALCs are clipped at −0.2.
    """
    columns = {}
    for other in ("no recall", "prior approach"):
        both = keys[["ours", other]].dropna().clip(lower=ALC_FLOOR)
        mine, theirs = paper_label(both["ours"]), paper_label(both[other])
        columns[other] = [100.0 * np.mean((mine == a) & (theirs == b)) if len(both) else np.nan for a, b in DISAGREEMENTS]
    return pd.DataFrame(columns, index=PAPER_TABLE2.index)
