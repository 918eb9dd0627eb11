"""The columns of a results dataset, fixed so every part (ok or failed) reads back as one table."""

import dataclasses

import pyarrow as pa

from alc_dask.measure import PrcResult

_COUNTS = {"n", "attempts", "correct"}


def _prc_fields(prefix: str) -> list[pa.Field]:
    return [pa.field(prefix + f.name, pa.int64() if f.name in _COUNTS else pa.float64()) for f in dataclasses.fields(PrcResult)]


SCORES = pa.schema(
    [
        pa.field("job", pa.string()),
        pa.field("release", pa.string()),
        pa.field("scenario_id", pa.string()),
        pa.field("scenario_index", pa.int64()),
        pa.field("origin", pa.string()),
        pa.field("status", pa.string()),  # ok | failed
        pa.field("error", pa.string()),
        pa.field("traceback", pa.string()),  # of a failed scenario, as Python formats it
        pa.field("secret", pa.string()),
        pa.field("known", pa.string()),  # JSON list, sorted
        pa.field("attack", pa.string()),
        pa.field("attack_params", pa.string()),  # JSON
        pa.field("baseline", pa.string()),
        pa.field("targets", pa.string()),  # JSON selector or null
        pa.field("seed", pa.int64()),
        pa.field("alc", pa.float64()),
        pa.field("risk", pa.string()),
        pa.field("model", pa.string()),
        pa.field("expected_base_prc", pa.float64()),
        pa.field("halt_code", pa.string()),
        *_prc_fields("base_"),
        *_prc_fields("attack_"),
        pa.field("alc_full_recall", pa.float64()),
        pa.field("risk_full_recall", pa.string()),
        *_prc_fields("attack_full_recall_"),
        pa.field("pairs", pa.int64()),
        pa.field("abstentions", pa.int64()),
        pa.field("recall_basis", pa.string()),
        pa.field("seconds", pa.float64()),  # the scenario's own work
        pa.field("elapsed_seconds", pa.float64()),  # on the worker, with unpacking and result building
        pa.field("worker", pa.string()),
        pa.field("finished_at", pa.string()),  # ISO 8601, UTC
    ]
)

PREDICTIONS = pa.schema(
    [
        pa.field("scenario_id", pa.string()),
        pa.field("target", pa.int64()),
        pa.field("side", pa.string()),  # base | attack
        pa.field("correct", pa.bool_()),
        pa.field("confidence", pa.float64()),
        pa.field("abstained", pa.bool_()),
        pa.field("predicted", pa.string()),  # only when the job stores values
        pa.field("true", pa.string()),
    ]
)
