"""A job's release, read as a run holds it: whole, to be copied to every worker, or, too large for
that, part by part on the cluster's workers. Apart from the runner so that ``plan`` reads a release
without importing what running scenarios needs.
"""

from dataclasses import replace

from alc_dask.data import Release, ReleaseError
from alc_dask.data.parts import estimated_bytes, list_parts
from alc_dask.engine.cluster import OnDemandClient
from alc_dask.jobs import JobSpec


def prepare_release(spec: JobSpec, cluster: OnDemandClient | None = None) -> Release:
    """The release read whole and copied to every worker, or, when larger than the job's
    ``release.broadcast_limit``, read part by part on ``cluster``'s workers and kept there."""
    r = spec.release
    if cluster is None or not keeps_on_workers(spec):
        release = Release.load(r.original, r.anonymized, control=r.control, columns=r.column_kinds or None, kinds=r.kinds, grouped=r.grouped)
    elif r.kinds != "alc_dask":
        raise ReleaseError(
            f"release.kinds: {r.kinds!r} needs whole tables; this release is beyond release.broadcast_limit ({r.broadcast_limit} bytes): raise it"
        )
    else:
        from alc_dask.data.on_cluster import load_on_cluster  # the cluster's reader, with Dask, only for a release that needs it

        release = load_on_cluster(cluster.get(), r.original, r.anonymized, control=r.control, columns=r.column_kinds or None, rows_per_part=r.rows_per_part)
    return release if r.generator is None else replace(release, generator=r.generator.model_dump())


def keeps_on_workers(spec: JobSpec) -> bool:
    """Whether the release is too large to copy: its tables' encoded size (from Parquet footers, or
    CSV file sizes) beyond ``release.broadcast_limit``, unless it must be read whole."""
    r = spec.release
    if r.read_whole:
        return False
    tables = [list_parts(path, field) for field, path in release_files(spec)]
    return estimated_bytes(tables) > r.broadcast_limit


def release_files(spec: JobSpec) -> list[tuple[str, str]]:
    """(field, path) of every file of the release."""
    return spec.release.files()
