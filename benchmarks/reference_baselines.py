"""How often the reference's baseline predicts worse than always guessing the most common value.

A non-member baseline can always predict the secret's most common value; a baseline whose
precision at recall 1 falls below that value's share is broken for that attack, and inflates the
reference's ALC. Prints, per dataset and strength, the share of the reference's attacks where this
happens, and alc_dask's Table 2 against the reference's on the sampled attacks whose reference
baseline is not broken.

    .venv/bin/python benchmarks/reference_baselines.py alc-out/paper/*-weak
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from alc_dask import Release
from alc_dask.apps.reproduction import KEY, our_keys, reference_keys, release_dataset_strength, table2, with_normalized_keys
from alc_dask.results import read_scores

PAPER = Path(__file__).resolve().parents[2] / "shared" / "data" / "alc-paper"


def majority_shares(dataset: str) -> dict[str, float]:
    release = Release.load(PAPER / dataset / "original.parquet", [PAPER / dataset / "weak.parquet"])
    return {column: np.bincount(release.true_codes(column, release.original)).max() / release.original.n_rows for column in release.columns}


def reference_base_at_full_recall(strength: str) -> pd.Series:
    frame = pd.read_parquet(PAPER / "reference-results" / f"all_secret_known_{strength}.parquet")
    frame = with_normalized_keys(frame.rename(columns={"secret_column": "secret", "known_columns": "known"}))
    frame["dataset"] = frame["dataset"].str.removesuffix(".parquet")
    return frame[frame["base_recall"] == 1].groupby(KEY)["base_prec"].max()


def main() -> None:
    outs = sys.argv[1:]
    scores = pd.concat([read_scores(out) for out in outs], ignore_index=True)
    strength = release_dataset_strength(scores["release"].iloc[0])[1]
    base = reference_base_at_full_recall(strength).rename("base_prec").reset_index()
    shares = {dataset: majority_shares(dataset) for dataset in base["dataset"].unique()}
    base["majority"] = [shares[d][s] for d, s in zip(base["dataset"], base["secret"])]
    base["broken"] = base["base_prec"] < base["majority"] - 0.02
    print(f"reference attacks ({strength}) whose baseline at recall 1 is below the majority share:")
    print(base.groupby("dataset")["broken"].mean().map("{:.1%}".format).to_string(), f"\nall: {base['broken'].mean():.1%}\n")

    ok = scores[scores["status"] == "ok"].copy()
    ok["dataset"] = [release_dataset_strength(r)[0] for r in ok["release"]]
    ours = our_keys(ok[ok["baseline"] == "ml"], ok[ok["baseline"] == "prior"])
    sound = base.set_index(KEY).loc[lambda f: ~f["broken"]].index
    reference = reference_keys(PAPER / "reference-results", strength)
    keys = ours.index.intersection(sound).intersection(reference.index)
    print(f"Table 2 on the {len(keys)} sampled attacks whose reference baseline is sound:")
    print(pd.concat({"alc_dask": table2(ours.loc[keys]), "reference": table2(reference.loc[keys])}, axis=1).round(2).to_string())


if __name__ == "__main__":
    main()
