"""Shared fixtures: random mixed-type release tables with missing values, the real data folder, and an S3 server (moto) on 127.0.0.1."""

import logging
import socket
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def random_table(rng: np.random.Generator, n_rows: int, missing: float = 0.1, extra_letter: str = "") -> pd.DataFrame:
    """Mixed columns: text `c0..c2`, a small-integer `k`, continuous `x0..x2`; `missing` of cells NaN.

    `extra_letter` adds a category that only this table holds. Continuous values are positive, on a
    coarse grid for some columns so that distance ties happen.
    """
    letters = list("abcd" + extra_letter)
    table = pd.DataFrame(
        {
            "c0": rng.choice(letters, n_rows),
            "c1": rng.choice(["x", "y"], n_rows),
            "c2": rng.choice(letters, n_rows),
            "k": rng.integers(1, 4, n_rows).astype(float),
            "x0": rng.uniform(1, 100, n_rows),
            "x1": rng.integers(1, 40, n_rows).astype(float),
            "x2": rng.uniform(0.5, 2, n_rows).round(1),
        }
    )
    table["x1"] = table["x1"].where(np.arange(n_rows) % 2 == 0, table["x1"] + 0.5)
    for column in table.columns:
        table.loc[rng.random(n_rows) < missing, column] = np.nan
    for column in ("c0", "c1", "c2"):
        table[column] = table[column].astype(object)
    return table


@pytest.fixture
def make_table():
    return random_table


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data folder {SHARED_DATA} is absent")
    return SHARED_DATA


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def s3():
    """``s3://alc-dask-tests`` on a moto server of this process, reached as users reach theirs: AWS_ENDPOINT_URL.
    One for the session: a second server started after the first stopped was not answered (aiobotocore)."""
    server_module = pytest.importorskip("moto.server", reason="moto[server] is not installed (pip install alc-dask[test])")
    s3fs = pytest.importorskip("s3fs", reason="s3fs is not installed (pip install alc-dask[s3])")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    port = free_port()
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    with pytest.MonkeyPatch.context() as env:
        for name, value in {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": "us-east-1"}.items():
            env.setenv(name, value)
        env.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
        env.setenv("AWS_MAX_ATTEMPTS", "2")
        try:
            server.start()
        except Exception as error:  # noqa: BLE001 - whatever keeps the server from starting skips these tests
            pytest.skip(f"moto's S3 server could not start on 127.0.0.1:{port}: {error}")
        s3fs.S3FileSystem.clear_instance_cache()
        try:
            _create_bucket(s3fs.S3FileSystem(), "alc-dask-tests")
            yield "s3://alc-dask-tests"
        finally:
            s3fs.S3FileSystem.clear_instance_cache()
            server.stop()


def _create_bucket(fs, bucket: str) -> None:
    deadline = time.monotonic() + 10
    while True:
        try:
            fs.mkdir(bucket)
            return
        except Exception as error:  # noqa: BLE001 - the server may need a moment to listen
            if time.monotonic() > deadline:
                pytest.skip(f"moto's S3 server did not answer: {error}")
            time.sleep(0.2)


def process_died(store) -> None:
    """What the death of the process writing ``store`` leaves: its buffered outcomes unwritten and its
    lease stale (another process takes it over; in one test process, it is given up here)."""
    store._lease.release()


@pytest.fixture
def two_workers_without_stealing():
    """A client of two local worker processes with work stealing off, so that every task runs on
    the worker it prefers (tests of where work goes; a scenario's scores never depend on it)."""
    import dask
    import distributed

    with (
        dask.config.set({"distributed.scheduler.work-stealing": False}),
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client
