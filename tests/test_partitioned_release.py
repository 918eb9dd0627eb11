"""Releases kept on the workers in parts: read and encoded part by part exactly as a whole release
is, scored bit for bit as the copied release is, and bad part files named."""

import os
import signal
import threading
import time

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from distributed import Client, LocalCluster

from alc_dask import Release, run_job
from alc_dask.apps.synthetic import make_demo_release
from alc_dask.data import ReleaseError, ReleaseWarning
from alc_dask.data import profile as profiles
from alc_dask.data.on_cluster import load_on_cluster
from alc_dask.data.parts import list_parts
from alc_dask.data.profile import ColumnProfile, merge_profiles

FAST = {"candidates": ["majority", "logistic_regression"], "trees": 10}


@pytest.fixture(scope="module")
def client():
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        yield client


def write_parts(frame: pd.DataFrame, folder, rows: int, fmt: str = "parquet", row_group_size: int = 97):
    folder.mkdir(parents=True)
    for i, start in enumerate(range(0, len(frame), rows)):
        part = frame.iloc[start : start + rows]
        if fmt == "parquet":
            pq.write_table(pa.Table.from_pandas(part, preserve_index=False), folder / f"part-{i:03d}.parquet", row_group_size=row_group_size)
        else:
            part.to_csv(folder / f"part-{i:03d}.csv", index=False)
    return folder


def demo_tables(rows=1500, seed=3):
    tables = make_demo_release(rows, seed=seed)
    tables["original"]["joined"] = pd.to_datetime("2020-01-01", utc=True) + pd.to_timedelta(np.arange(rows) % 400, unit="D")
    tables["weak"]["joined"] = tables["original"]["joined"]
    tables["control"]["joined"] = pd.to_datetime("2021-06-01", utc=True)
    return tables


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_parts_encode_exactly_as_whole_tables(client, tmp_path, fmt):
    tables = demo_tables()
    folders = {name: write_parts(tables[name], tmp_path / name, 400, fmt) for name in ("original", "weak", "control")}
    whole = Release.load(folders["original"], [folders["weak"]], control=folders["control"])
    parted = load_on_cluster(client, str(folders["original"]), [str(folders["weak"])], control=str(folders["control"]), rows_per_part=250)
    assert parted.partitioned and not whole.partitioned
    for name, column in whole.columns.items():
        other = parted.columns[name]
        assert column.kind == other.kind, name
        if column.codes is not None:
            assert column.codes.values.tolist() == other.codes.values.tolist(), name
        else:
            assert (column.bins.low, column.bins.high) == (other.bins.low, other.bins.high), name
    for mine, theirs in [(whole.original, parted.original), (whole.anonymized[0], parted.anonymized[0]), (whole.control, parted.control)]:
        gathered = theirs.rows(np.arange(theirs.n_rows))
        assert (gathered.categorical, gathered.continuous) == (mine.categorical, mine.continuous)
        np.testing.assert_array_equal(gathered.codes, mine.codes)
        np.testing.assert_array_equal(gathered.values, mine.values)
        np.testing.assert_array_equal(theirs.value_min, mine.value_min)
        np.testing.assert_array_equal(theirs.value_max, mine.value_max)
    assert len(parted.original.blocks) >= 4 and len(parted.anonymized[0].blocks) >= 4
    rows = np.array([1499, 0, 777, 250, 249])
    np.testing.assert_array_equal(parted.original.rows(rows).codes, whole.original.rows(rows).codes)
    np.testing.assert_array_equal(parted.secret_column("income"), whole.secret_column("income"))
    np.testing.assert_array_equal(parted.secret_values_present("age"), whole.secret_values_present("age"))


def write_job(folder, tables, broadcast_limit):
    """The job of `parted_run` (`tables` written once, then None)."""
    for name in ("original", "weak", "control"):
        if not (folder / name).exists():
            write_parts(tables[name], folder / name, 500)
    job = {
        "name": "parts",
        "release": {
            "original": "original",
            "anonymized": ["weak"],
            "control": "control",
            "broadcast_limit": broadcast_limit,
            "rows_per_part": 300,
        },
        "scenarios": [
            {"secret": "income", "known": ["age", "sex", "education", "joined"]},
            {"secret": "region", "known": ["age", "income"], "baseline": "control"},
            {"secret": "age", "known": ["sex", "region", "condition"]},
            {"secret": "condition", "known": ["age", "sex"], "baseline": "prior"},
            {"secret": "education", "known": ["region", "joined"], "targets": {"conditions": [{"column": "age", "op": "top_quantile", "value": 0.3}]}},
            {"family": "singling_out", "mode": "multivariate", "n_cols": 3, "n_attacks": 100},
            {"family": "linkability", "aux_cols": [["age", "sex"], ["education", "region"]], "n_attacks": 100},
            {"family": "inference", "aux_cols": ["age", "sex", "region"], "secret": "income", "n_attacks": 100},
            {"family": "membership", "attack": "distance_ratio", "n_members": 400},
            {"family": "membership", "attack": "density_ratio", "attack_params": {"k": 2}, "n_members": 400},
            {"family": "membership", "attack": "density_ratio", "attack_params": {"density": "mixture"}, "n_members": 400},
            {"family": "near_copies", "n_rows": 500},
        ],
        "baseline_settings": {**FAST, "training_rows": 700},
        "seed": 5,
        "output": f"out-{broadcast_limit}",
    }
    path = folder / f"job-{broadcast_limit}.yaml"
    path.write_text(yaml.safe_dump(job))
    return path


@pytest.fixture(scope="module")
def parted_run(client, tmp_path_factory):
    """A job of every family on a release kept on the workers, and its scores."""
    job = write_job(tmp_path_factory.mktemp("parts"), demo_tables(1500, seed=8), 0)
    return job, run_job(job, client=client, progress=False)


@pytest.mark.long
def test_a_job_on_parts_scores_bit_for_bit_as_on_a_copied_release(client, parted_run):
    job, parted = parted_run
    copied = run_job(write_job(job.parent, None, "1GiB"), client=client, progress=False)
    assert (copied["status"] == "ok").all(), copied["error"].tolist()
    measures = ["scenario_id", "alc", "base_prc", "attack_prc", "base_n", "attack_n", "halt_code", "pairs", "abstentions", "model", "alc_full_recall"]
    pd.testing.assert_frame_equal(parted[measures], copied[measures])
    wp29 = ["scenario_id", "privacy_risk", "risk", "attack_rate", "baseline_rate", "control_rate"]
    assert copied["family"].tolist()[-7:] == ["singling_out", "linkability", "inference", "membership", "membership", "membership", "near_copies"]
    pd.testing.assert_frame_equal(parted[wp29], copied[wp29])
    near = ["scenario_id", "near_copy_share", "near_copy_share_low", "nearer", "ties", "median_to_member", "median_to_released"]
    pd.testing.assert_frame_equal(parted[near], copied[near])  # the release's rows searched block by block, on one range
    membership = copied["family"] == "membership"
    for column in ["auc", "membership_alc", "roc_false_positives", "roc_true_positives"]:  # distances searched block by block on the workers
        assert [np.asarray(v).tolist() for v in parted.loc[membership, column]] == [np.asarray(v).tolist() for v in copied.loc[membership, column]], column
    assert set(parted["worker"]) <= {"0", "1"}


def test_a_part_file_with_other_types_is_named(tmp_path):
    folder = write_parts(pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]}), tmp_path / "t", 2)
    pq.write_table(pa.table({"a": pa.array(["1"]), "b": pa.array(["w"])}), folder / "part-009.parquet")
    with pytest.raises(ReleaseError, match=r"part-009\.parquet: column 'a' is string, but int64 in .*part-000\.parquet"):
        list_parts(str(folder), "release.original")


def test_a_part_file_with_other_columns_is_named(tmp_path):
    folder = write_parts(pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]}), tmp_path / "t", 2, fmt="csv")
    (folder / "part-005.csv").write_text("a,c\n1,2\n")
    with pytest.raises(ReleaseError, match=r"part-005\.csv: header 'a,c' differs from .*part-000\.csv's"):
        list_parts(str(folder), "release.original")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("memory://nowhere/table.parquet", "release.original: 'memory://nowhere/table.parquet': no such file"),
        ("nosuchfs://bucket/t.parquet", "release.original: 'nosuchfs://bucket/t.parquet': cannot"),
    ],
)
def test_an_unreachable_url_is_named(url, message):
    with pytest.raises(ReleaseError, match=message):
        list_parts(url, "release.original")


def test_too_many_categories_for_parts_are_refused_naming_the_column(client, tmp_path, monkeypatch):
    frame = pd.DataFrame({"name": [f"person {i}" for i in range(3000)], "x": np.arange(3000) % 7})
    folder = write_parts(frame, tmp_path / "t", 1000)
    monkeypatch.setattr(profiles, "DISTINCT_LIMIT", 500)
    client.run(lambda: setattr(profiles, "DISTINCT_LIMIT", 500))
    try:
        with pytest.raises(ReleaseError, match=r"column 'name' has too many distinct values to code as categories on a cluster"):
            load_on_cluster(client, str(folder), [str(folder)])
    finally:
        client.run(lambda: setattr(profiles, "DISTINCT_LIMIT", 100_000))


def test_a_truncated_profile_keeps_the_extremes_and_a_non_number(monkeypatch):
    monkeypatch.setattr(profiles, "DISTINCT_LIMIT", 10)
    numbers = ColumnProfile.of(pd.Series(np.arange(100.0)[::-1]))
    assert numbers.truncated and {0.0, 99.0} <= set(numbers.representative())
    text = [str(i) for i in range(50)] + ["n/a"]
    merged = merge_profiles(*(profiles.TableProfile.of(pd.DataFrame({"t": text[i::3]})) for i in range(3)))
    kept = set(merged.columns["t"].representative())
    assert merged.columns["t"].truncated and {"0", "49", "n/a"} <= kept and merged.n_rows == len(text)


@pytest.mark.long
def test_a_worker_killed_mid_run_loses_no_scenario(client, parted_run, tmp_path, monkeypatch):
    """The parts the killed worker held are read and encoded again (Dask's lineage): the run completes
    with the scores of an undisturbed one. (With a scheduler and worker processes and 30
    scenarios: tests/test_cli_engine.py.)"""
    monkeypatch.setenv("ALC_DASK_PART_SCENARIOS", "1")  # a part per scenario: the first one tells the run is under way
    job, undisturbed = parted_run
    out = tmp_path / "killed"
    victim = next(iter(client.run(os.getpid).values()))
    parts_at_kill = []

    def kill_when_a_scenario_is_done():
        while not (parts := list((out / "scores").glob("*/*.parquet"))):
            time.sleep(0.05)
        parts_at_kill.append(len(parts))
        os.kill(victim, signal.SIGKILL)

    killer = threading.Thread(target=kill_when_a_scenario_is_done, daemon=True)
    killer.start()
    scores = run_job(job, client=client, out=out, progress=False)
    killer.join(timeout=5)
    assert parts_at_kill and parts_at_kill[0] < len(undisturbed), "the run finished before a worker was killed"
    assert (scores["status"] == "ok").all(), scores["error"].dropna().tolist()
    timings = ["elapsed_seconds", "seconds", "worker", "finished_at"]
    pd.testing.assert_frame_equal(scores.drop(columns=timings), undisturbed.drop(columns=timings))


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_extreme_values_in_parts_are_warned_of_as_in_whole_tables(client, tmp_path, fmt):
    tables = demo_tables(rows=1200)
    tables["control"].loc[[20, 250], "age"] = 1e300
    folders = {name: write_parts(tables[name], tmp_path / name, 400, fmt) for name in ("original", "weak", "control")}
    with pytest.warns(ReleaseWarning) as whole:
        Release.load(folders["original"], [folders["weak"]], control=folders["control"])
    with pytest.warns(ReleaseWarning) as parted:
        load_on_cluster(client, str(folders["original"]), [str(folders["weak"])], control=str(folders["control"]), rows_per_part=250)
    messages = [str(w.message) for w in parted]
    assert messages == [str(w.message) for w in whole] and len(messages) == 1
    assert messages[0].startswith(f"column 'age': a few extreme values (e.g. 1e+300 in {folders['control']}) stretch its range")


def test_an_infinite_value_in_a_part_is_an_error_naming_the_table_and_column(client, tmp_path):
    tables = demo_tables(rows=1200)
    tables["weak"].loc[1000, "age"] = np.inf
    folders = {name: write_parts(tables[name], tmp_path / name, 400) for name in ("original", "weak")}
    with pytest.raises(ReleaseError, match=rf"{folders['weak']}: column 'age' holds infinite values"):
        load_on_cluster(client, str(folders["original"]), [str(folders["weak"])], rows_per_part=250)


def _computed_where_asked() -> tuple[int, int]:
    """In a task: its own thread, and the thread a delayed call on in-memory blocks ran in."""
    import threading

    import dask

    from alc_dask.data.partitioned import compute
    from alc_dask.testing.truth import truth_releases

    truth = truth_releases(rows=300)
    table = Release.load(truth.members, [truth.releases["copy"]]).original  # a table held in the task's process
    (ran_in,) = compute([table], dask.delayed(threading.get_ident, pure=False)())
    return threading.get_ident(), ran_in


def test_a_scenario_computes_its_in_memory_blocks_in_its_own_thread(client):
    """Not through the worker's client: with the cluster busy, a disclosure's small tasks on in-memory
    tables (a check's) waited behind every other scenario while the scenario held its thread."""
    own, ran_in = client.submit(_computed_where_asked, pure=False).result()
    assert ran_in == own


def _gathered_by_three(table):
    """In a task: whole ``table`` asked for by this task and by two threads at once."""
    from concurrent.futures import ThreadPoolExecutor

    from alc_dask.data.partitioned import whole

    first = whole(table)
    with ThreadPoolExecutor(2) as pool:
        others = list(pool.map(lambda _: whole(table), range(2)))
    return all(other is first for other in others), first.codes.flags.writeable, first.values.flags.writeable, first.codes.dtype.itemsize


def test_a_table_gathered_on_a_worker_is_shared_by_whoever_asks_while_it_is_held(client):
    """Each evaluation of a release in parts gathered its own whole copy: a worker running several
    of a 1e7-row release's held one each. Now one copy, read-only, with the blocks' narrow codes."""
    from alc_dask.data.partitioned import partition_table, whole

    tables = demo_tables()
    original = Release.load(tables["original"], [tables["weak"]]).original
    parts = partition_table(original, 200, client)
    shared, *writeable, code_bytes = client.submit(_gathered_by_three, parts, pure=False).result()
    assert shared and writeable == [False, False] and code_bytes == original.codes.dtype.itemsize
    gathered = whole(parts)  # in the client too
    np.testing.assert_array_equal(gathered.codes, original.codes)
    np.testing.assert_array_equal(gathered.values, original.values)


def test_sampled_known_sets_on_parts_are_those_of_whole_tables_each_column_gathered_once(client, tmp_path, monkeypatch):
    """Planning ``sampled_known`` on a release kept on the workers draws the sets (and unique
    shares) it draws on the whole tables, and gathers each column of the original once, not once per
    set it is drawn in."""
    from alc_dask.data.partitioned import PartitionedTable
    from alc_dask.engine import OnDemandClient, prepare_release
    from alc_dask.jobs import expand, validate_job

    tables = demo_tables(1500, seed=4)
    for name in ("original", "weak"):
        write_parts(tables[name], tmp_path / name, 500)
    entry = {"generate": "sampled_known", "per_secret": 3, "size": 3, "min_unique": 0.3}

    def planned(broadcast_limit):
        release = {"original": str(tmp_path / "original"), "anonymized": [str(tmp_path / "weak")], "broadcast_limit": broadcast_limit, "rows_per_part": 300}
        spec = validate_job({"name": "plan", "release": release, "scenarios": [entry], "seed": 2})
        with OnDemandClient(client) as cluster:
            return [(s.id, s.origin) for s in expand(spec, prepare_release(spec, cluster))]

    gathered = []
    column_array = PartitionedTable.column_array
    monkeypatch.setattr(PartitionedTable, "column_array", lambda table, name: gathered.append(name) or column_array(table, name))
    on_parts = planned(0)
    assert on_parts == planned("1GiB")
    assert len(on_parts) == 3 * len(tables["original"].columns)
    assert sorted(gathered) == sorted(set(gathered)) and len(gathered) > 3
