"""The release's data in the resume fingerprint: a table may be a file, a partitioned directory, a glob
or an fsspec URL; every part counts, and a table that cannot be reached is named before any work."""

import hashlib
import os
import uuid

import fsspec
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from alc_dask.data import ReleaseError
from alc_dask.data.fingerprint import data_digest, dataset_files
from alc_dask.engine.runner import manifest
from alc_dask.jobs import check_files, validate_job
from alc_dask.results import ResultsError, ResultStore

FIELD = "release.anonymized[0]"


def write_parts(folder, tables: int = 3, rows: int = 20, start: int = 0):
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(start, start + tables):
        pq.write_table(pa.table({"age": list(range(i, i + rows)), "sex": ["f", "m"] * (rows // 2)}), folder / f"part-{i}.parquet")
    return folder


def hive_dataset(folder):
    """A hive-partitioned dataset as pyarrow writes it, with the marker files other writers leave."""
    table = pa.table({"age": list(range(40)), "region": ["north", "south"] * 20})
    ds.write_dataset(table, folder, format="parquet", partitioning=["region"], partitioning_flavor="hive")
    (folder / "_SUCCESS").write_text("")
    (folder / "region=north" / ".part-0.parquet.crc").write_text("crc")
    return folder


@pytest.fixture
def memory_folder():
    """A fresh folder in fsspec's in-process memory file system, removed afterwards."""
    fs, root = fsspec.filesystem("memory"), f"/fingerprint-{uuid.uuid4().hex}"
    yield fs, root
    if fs.exists(root):
        fs.rm(root, recursive=True)


@pytest.mark.parametrize("hash_limit", [0, 2**30], ids=["metadata", "content"])
def test_a_hive_partitioned_directory_covers_its_parts_and_ignores_marker_files(tmp_path, hash_limit):
    folder = hive_dataset(tmp_path / "anonymized")
    _, files, single = dataset_files(str(folder), FIELD)
    assert [f.relative for f in files] == ["region=north/part-0.parquet", "region=south/part-0.parquet"] and not single
    first = data_digest(str(folder), FIELD, hash_limit)
    (folder / "_common_metadata").write_text("x")
    assert data_digest(str(folder), FIELD, hash_limit) == first
    part = folder / "region=east" / "part-0.parquet"
    part.parent.mkdir()
    pq.write_table(pa.table({"age": [1]}), part)
    added = data_digest(str(folder), FIELD, hash_limit)
    assert added != first
    part.unlink()
    assert data_digest(str(folder), FIELD, hash_limit) == first


@pytest.mark.parametrize("hash_limit", [0, 2**30], ids=["metadata", "content"])
def test_a_part_added_removed_or_rewritten_changes_the_digest(tmp_path, hash_limit):
    folder = write_parts(tmp_path / "parts")
    digests = {data_digest(str(folder), FIELD, hash_limit)}
    write_parts(folder, tables=1, start=3)
    digests.add(data_digest(str(folder), FIELD, hash_limit))
    (folder / "part-0.parquet").unlink()
    digests.add(data_digest(str(folder), FIELD, hash_limit))
    write_parts(folder, tables=1, start=1, rows=22)  # part-1 republished with more rows
    digests.add(data_digest(str(folder), FIELD, hash_limit))
    assert len(digests) == 4


def test_a_part_rewritten_with_the_same_size_and_date_is_caught_within_the_hash_limit(tmp_path):
    folder = write_parts(tmp_path / "parts")
    part = folder / "part-1.parquet"
    stat = part.stat()
    content = data_digest(str(folder), FIELD)
    pq.write_table(pa.table({"age": list(range(2, 22)), "sex": ["f", "m"] * 10}), part)  # other values, same size
    os.utime(part, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert part.stat().st_size == stat.st_size
    assert data_digest(str(folder), FIELD) != content
    # beyond the limit only metadata is read: such a rewrite goes unseen, a new date does not
    metadata = data_digest(str(folder), FIELD, hash_limit=0)
    assert data_digest(str(folder), FIELD, hash_limit=0) == metadata
    os.utime(part, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert data_digest(str(folder), FIELD, hash_limit=0) != metadata


def test_a_single_local_file_keeps_the_sha256_earlier_versions_recorded(tmp_path):
    path = write_parts(tmp_path / "parts", tables=1) / "part-0.parquet"
    assert data_digest(str(path), FIELD) == "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    assert data_digest(str(path), FIELD, hash_limit=0).startswith("metadata:")


def test_a_glob_covers_the_files_it_matches(tmp_path):
    folder = write_parts(tmp_path / "data")
    pattern = str(folder / "part-*.parquet")
    _, files, single = dataset_files(pattern, FIELD)
    assert [f.relative for f in files] == ["part-0.parquet", "part-1.parquet", "part-2.parquet"] and not single
    first = data_digest(pattern, FIELD, hash_limit=0)
    pq.write_table(pa.table({"age": [1]}), folder / "other.parquet")
    assert data_digest(pattern, FIELD, hash_limit=0) == first
    write_parts(folder, tables=1, start=3)
    assert data_digest(pattern, FIELD, hash_limit=0) != first


def test_a_memory_url_dataset_reads_footers_and_sees_a_republished_part(memory_folder):
    fs, root = memory_folder
    for i in range(3):
        with fs.open(f"{root}/part-{i}.parquet", "wb") as handle:
            pq.write_table(pa.table({"age": list(range(10 * (i + 1)))}), handle)
    url = f"memory://{root}"
    first = data_digest(url, FIELD)
    assert first.startswith("metadata:") and data_digest(url, FIELD) == first
    with fs.open(f"{root}/part-1.parquet", "wb") as handle:
        pq.write_table(pa.table({"age": list(range(20))}), handle)  # same content, a new object
    assert data_digest(url, FIELD) != first
    assert data_digest(f"memory://{root}/part-1.parquet", FIELD).startswith("metadata:")


def test_a_corrupt_parquet_part_is_named(tmp_path):
    folder = write_parts(tmp_path / "parts")
    (folder / "part-1.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(ReleaseError, match=rf"release\.anonymized\[0\]: 'file://{folder}/part-1\.parquet': cannot read its Parquet footer"):
        data_digest(str(folder), FIELD, hash_limit=0)


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("memory://no-such-release/anonymized.parquet", "no such file or directory"),
        ("{tmp}/absent.parquet", "no such file or directory"),
        ("{tmp}/parts/part-*.csv", "the pattern matches no file"),
        ("{tmp}/empty", "the directory holds no part file"),
        ("nosuch://bucket/anonymized.parquet", r"cannot be reached \(ValueError: Protocol not known: nosuch\)"),
    ],
)
def test_a_table_that_cannot_be_found_or_reached_names_the_field_and_path(tmp_path, path, says):
    write_parts(tmp_path / "parts")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "_SUCCESS").write_text("")
    path = path.format(tmp=tmp_path)
    with pytest.raises(ReleaseError, match=rf"^release\.anonymized\[0\]: '{path.replace('*', '[*]')}': {says}"):
        data_digest(path, FIELD)


def test_an_s3_endpoint_that_refuses_is_named(monkeypatch):
    pytest.importorskip("s3fs")
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")  # the discard port: nothing listens
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "x")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    s3 = fsspec.get_filesystem_class("s3")
    s3.clear_instance_cache()  # a file system cached with other settings would not see the endpoint
    try:
        with pytest.raises(ReleaseError, match=r"release\.anonymized\[0\]: 's3://bucket/anonymized': cannot be reached \(EndpointConnectionError"):
            data_digest("s3://bucket/anonymized", FIELD)
    finally:
        s3.clear_instance_cache()


def job(original: str, anonymized: str, output: str) -> dict:
    return {"name": "j", "release": {"original": original, "anonymized": [anonymized]}, "scenarios": [{"generate": "each_column"}], "output": output}


def test_check_files_accepts_a_directory_a_glob_and_a_url_and_names_a_missing_one(tmp_path, memory_folder):
    fs, root = memory_folder
    with fs.open(f"{root}/original.parquet", "wb") as handle:
        pq.write_table(pa.table({"age": [1, 2]}), handle)
    folder = write_parts(tmp_path / "parts")
    for anonymized in (str(folder), str(folder / "part-*.parquet"), f"memory://{root}/original.parquet"):
        check_files(validate_job(job(f"memory://{root}/original.parquet", anonymized, str(tmp_path / "out"))), "job.yaml")
    missing = validate_job(job(str(folder), f"memory://{root}/republished", str(tmp_path / "out")))
    with pytest.raises(ReleaseError, match=rf"job\.yaml: release\.anonymized\[0\]: 'memory://{root}/republished': no such file or directory"):
        check_files(missing, "job.yaml")


def test_a_missing_table_stops_a_run_before_any_work(tmp_path):
    from alc_dask import run_job

    folder = write_parts(tmp_path / "parts")
    spec = validate_job(job(str(folder), "memory://no-such-release/anonymized.parquet", str(tmp_path / "out")))
    with pytest.raises(ReleaseError, match=r"release\.anonymized\[0\]: 'memory://no-such-release/anonymized\.parquet'"):
        run_job(spec, workers=1, progress=False)
    assert not (tmp_path / "out").exists()


def test_a_partitioned_release_republished_at_the_same_path_is_refused_on_resume(tmp_path):
    """The store keeps its manifest, as a run does; the part rewritten changes only the anonymized table's data."""
    original, anonymized = write_parts(tmp_path / "original"), write_parts(tmp_path / "anonymized")
    spec = validate_job(job(str(original), str(anonymized), str(tmp_path / "out")))
    row = {"scenario_id": "a-000000000a", "family": "alc", "status": "ok", "alc": 0.5, "base_n": 10}
    with ResultStore.create(tmp_path / "out", manifest(spec)) as first:
        first.write(row, None)
    ResultStore.create(tmp_path / "out", manifest(spec)).close()  # unchanged: resumed
    write_parts(anonymized, tables=1, start=2, rows=30)
    with pytest.raises(ResultsError, match=r"other settings or data \(changed: release\.anonymized\[0\] data\)"):
        ResultStore.create(tmp_path / "out", manifest(spec))


def test_a_release_without_a_grouped_table_keeps_the_settings_earlier_versions_recorded(tmp_path):
    """Version 0.4.0's manifests had no `grouped` key; writing `grouped: null` changed every fingerprint,
    so no earlier results folder would resume."""
    original, anonymized = write_parts(tmp_path / "original"), write_parts(tmp_path / "anonymized")
    settings = manifest(validate_job(job(str(original), str(anonymized), str(tmp_path / "out"))))["settings"]["release"]
    assert set(settings) == {"name", "original", "anonymized", "control", "columns", "kinds"}
