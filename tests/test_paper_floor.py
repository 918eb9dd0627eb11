"""The baseline floor on the paper's attacks: on sampled attacks of each of the five shared datasets
the base PRC is never below always guessing the secret's most common value on the same targets."""

import numpy as np
import pandas as pd
import pytest

from alc_dask import Release
from alc_dask.baseline import BaselineSettings
from alc_dask.families.alc.loop import run_attack
from alc_dask.families.alc.paper import paper_entries, paper_secrets
from alc_dask.measure import MeasureSettings

DATASETS = ["adult", "BankChurnersNoId", "census", "child", "insurance"]
FAST = BaselineSettings(candidates=("majority", "logistic_regression", "random_forest"), trees=10)


@pytest.mark.parametrize("dataset", DATASETS)
def test_the_base_prc_is_never_below_the_most_common_value(shared_data, dataset):
    folder = shared_data / "alc-paper" / dataset
    original = pd.read_parquet(folder / "original.parquet")
    release = Release.load(original, [pd.read_parquet(folder / "weak.parquet")])
    entry = paper_entries(shared_data / "alc-paper" / "jobs.json", dataset, "ours", 1)[0]
    for secret in paper_secrets(list(original.columns), entry["known_columns"])[:2]:
        for baseline in ("ml", "prior"):
            result = run_attack(release, secret, entry["known_columns"], baseline=baseline, seed=7, baseline_settings=FAST, swap_fraction=0.2)
            truth = result.predictions["base_true"].to_numpy()
            most_common = _most_common_code(release, original, secret)
            floor = MeasureSettings().at_full_recall(truth == most_common)
            assert result.floor_prc == pytest.approx(floor.prc), (secret, baseline)
            assert result.base.prc >= result.floor_prc, (secret, baseline, result.model)


def _most_common_code(release: Release, original: pd.DataFrame, secret: str) -> int:
    """The code of the secret's most common value, counted on the raw column (its bin when continuous)."""
    column = release.column(secret)
    if column.kind.value == "categorical":
        counts = original[secret].value_counts(dropna=False)
        assert len(counts) == 1 or counts.iloc[0] > counts.iloc[1], "a tied most common value: pick another secret"
        return int(column.codes.encode(pd.Series([counts.index[0]]))[0])
    return int(np.bincount(column.bins.encode(original[secret].to_numpy(dtype=float))).argmax())
