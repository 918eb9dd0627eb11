"""An unchanged copy of the original, released with an undeclared 18-digit account id, must be
flagged by every family that matches rows.

The ids are numbers, inferred continuous; as float64 they round to multiples of 128 (or 256), so
neighbouring accounts would become one value and the copy would look safe (ALC 0.09 before the
fix). Members hold the even ids of a run and non-members the odd ones, so a rounding that merges
neighbours also merges members with non-members.
"""

import distributed
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv
import pyarrow.parquet as pq
import pytest
import yaml

from alc_dask import Release, run_job
from alc_dask.data import ColumnKind, ReleaseError
from alc_dask.families.alc.loop.scoring import SecretScoring
from alc_dask.measure import Tolerance

FIRST_ID = 123_456_789_012_345_678
N_PEOPLE = 300


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
        distributed.Client(cluster) as connected,
    ):
        yield connected


def people(ids: np.ndarray, dtype, rng) -> pa.Table:
    return pa.table({"acct": pa.array(ids.astype(dtype)), "job": rng.choice(list("abcde"), len(ids))})


def write(table: pa.Table, path, fmt: str) -> str:
    path = path.with_suffix(f".{fmt}")
    pq.write_table(table, path) if fmt == "parquet" else pa.csv.write_csv(table, path)
    return path.name


def copy_release_job(folder, dtype, fmt: str, broadcast_limit: int | None = None) -> str:
    rng = np.random.default_rng(5)
    ids = rng.permutation(FIRST_ID + 2 * np.arange(N_PEOPLE, dtype=np.int64))
    original = write(people(ids, dtype, rng), folder / "original", fmt)
    control = write(people(ids + 1, dtype, rng), folder / "control", fmt)
    job = {
        "name": "copy",
        "release": {"original": original, "anonymized": [original], "control": control}
        | ({"broadcast_limit": broadcast_limit} if broadcast_limit is not None else {}),
        "scenarios": [
            {"secret": "job", "known": ["acct"]},
            {"family": "inference", "aux_cols": ["acct"], "secret": "job", "n_attacks": 200},
            {"family": "membership", "attack": "closest_distance", "columns": ["acct"]},
        ],
        "baseline_settings": {"candidates": ["majority", "logistic_regression"], "trees": 10},
        "output": "out",
    }
    (folder / "job.yaml").write_text(yaml.safe_dump(job))
    return str(folder / "job.yaml")


@pytest.mark.parametrize("held", ["whole", "on the workers"])
@pytest.mark.parametrize("fmt", ["parquet", "csv"])
@pytest.mark.parametrize("dtype", [np.int64, np.uint64], ids=["int64", "uint64"])
def test_a_copy_released_with_undeclared_18_digit_ids_is_flagged(tmp_path, client, dtype, fmt, held):
    job = copy_release_job(tmp_path, dtype, fmt, broadcast_limit=0 if held == "on the workers" else None)
    scores = run_job(job, client=client, progress=False).set_index("family")
    assert (scores["status"] == "ok").all(), scores["error"].tolist()
    assert scores.loc["alc", "alc"] > 0.9
    assert scores.loc["inference", "attack_rate"] > 0.9
    assert scores.loc["membership", "auc"] > 0.99


def test_ids_measured_from_their_smallest_value_keep_their_distances():
    ids = FIRST_ID + np.array([0, 3, 7, 10], dtype=np.int64)
    frame = pd.DataFrame({"acct": np.tile(ids, 6), "k": np.arange(24) % 2})
    release = Release.load(frame, [frame], max_categories=3)
    column = release.columns["acct"]
    assert column.kind is ColumnKind.CONTINUOUS and column.origin == FIRST_ID
    np.testing.assert_array_equal(release.original.values[0][:4], [0.0, 3.0, 7.0, 10.0])


def test_ids_that_floats_cannot_keep_apart_are_categories():
    """Spanning beyond 2^53, two ids 1 apart round into one float even measured from the origin."""
    ids = np.array([0, 2**60, 2**60 + 1] + list(range(1, 30)), dtype=np.int64)
    frame = pd.DataFrame({"acct": ids, "k": np.arange(len(ids)) % 2})
    release = Release.load(frame, [frame])
    assert release.columns["acct"].kind is ColumnKind.CATEGORICAL
    assert len(np.unique(release.original.codes[release.original.categorical.index("acct")])) == len(ids)
    with pytest.raises(ReleaseError, match=r"column 'acct' is declared continuous but holds integers \(e.g. 1152921504606846976 and 1152921504606846977\)"):
        Release.load(frame, [frame], columns={"acct": "continuous"})


def test_a_tolerance_relative_to_the_value_compares_the_values_not_their_offsets():
    """Within 1% of 10^18, 10^18 + 10^15 is right: measured from the origin both would be near 0 and the tolerance vanish."""
    rng = np.random.default_rng(2)
    values = 10**18 + rng.integers(0, 10**15, 200) * 1000
    frame = pd.DataFrame({"amount": values, "k": rng.integers(0, 3, 200)})
    release = Release.load(frame, [frame])
    assert release.columns["amount"].origin > 0
    scoring = SecretScoring(release, "amount", Tolerance(0.01, "value"))
    truth = scoring.truth(release.original)
    assert scoring.correct(truth + 5e15, truth).all()
    assert not scoring.correct(truth + 5e16, truth).any()
