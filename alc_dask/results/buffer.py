"""Outcomes waiting to be written as one part.

A row of scores is kept as a record and the part's scores tables (one per family) are built once,
column by column, when the part is written: converting a wide one-row frame costs milliseconds, a
column of 500 values hardly more than one. A record that does not fit its family's schema is left
out of its part with an error naming its scenario and column, so that it cannot hold back the others.
"""

import time

import pandas as pd
import pyarrow as pa

from alc_dask.results.counting import DONE
from alc_dask.results.manifest import ResultsError
from alc_dask.results.schema import family_schema


class PartBuffer:
    """Per scenario its row of scores and its predictions; a scenario written twice keeps the outcome
    readers would keep: an ``ok`` or ``skipped`` one over a ``failed`` one, else the later."""

    def __init__(self):
        self.outcomes: dict[str, tuple[dict, pa.Table | None]] = {}
        self.rows = 0  # predictions
        self.since = time.monotonic()

    def __len__(self) -> int:
        return len(self.outcomes)

    def age(self) -> float:
        return time.monotonic() - self.since if self.outcomes else 0.0

    def add(self, record: dict, predictions: pa.Table | None) -> None:
        scenario = record["scenario_id"]
        previous = self.outcomes.get(scenario)
        if previous is not None and previous[0].get("status") in DONE and record.get("status") not in DONE:
            return
        if not self.outcomes:
            self.since = time.monotonic()
        self.rows += (predictions.num_rows if predictions is not None else 0) - (previous[1].num_rows if previous and previous[1] is not None else 0)
        self.outcomes[scenario] = (record, predictions)

    def tables(self) -> tuple[dict[str, pa.Table], pa.Table | None, dict[str, str]]:
        """The part's scores per family (in the family's schema) and its predictions, sorted by scenario
        so that filters skip row groups, and the scenarios left out, with why."""
        by_family: dict[str, list[dict]] = {}
        for record, _ in self.outcomes.values():
            by_family.setdefault(record["family"], []).append(record)
        scores, rejected = {}, {}
        for family, records in by_family.items():
            table, left_out = records_table(records, family_schema(family))
            rejected |= left_out
            if table.num_rows:
                scores[family] = table.sort_by("scenario_id")
        predictions = [table for scenario, (_, table) in self.outcomes.items() if table is not None and scenario not in rejected]
        return scores, pa.concat_tables(predictions).sort_by("scenario_id") if predictions else None, rejected


def records_table(records: list[dict], schema: pa.Schema) -> tuple[pa.Table, dict[str, str]]:
    """The records as a table of ``schema`` (missing columns null, NaN null as pandas has it), and the
    records that do not fit, by scenario id."""
    columns, rejected = [], {}
    for field in schema:
        values = [record.get(field.name) for record in records]
        try:
            columns.append(pa.array(values, field.type, from_pandas=True))
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            rejected |= {
                record["scenario_id"]: f"column {field.name!r}: {value!r} is not {field.type}"
                for record, value in zip(records, values)
                if not _fits(value, field)
            }
    if rejected:
        return records_table([record for record in records if record["scenario_id"] not in rejected], schema)[0], rejected
    return pa.Table.from_arrays(columns, schema=schema), rejected


def frame_table(frame: pd.DataFrame | pa.Table, schema: pa.Schema, what: str) -> pa.Table:
    """``frame`` (a DataFrame or an Arrow table) as a table of ``schema``, missing columns null."""
    arrow = isinstance(frame, pa.Table)
    present = frame.column_names if arrow else frame.columns
    columns = []
    for field in schema:
        if field.name not in present:
            columns.append(pa.nulls(len(frame), field.type))
            continue
        try:
            columns.append(frame[field.name].cast(field.type) if arrow else pa.array(frame[field.name], field.type, from_pandas=True))
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as error:
            raise ResultsError(f"{what}: column {field.name!r} is not {field.type}: {error}") from None
    return pa.Table.from_arrays(columns, schema=schema)


def _fits(value, field: pa.Field) -> bool:
    try:
        pa.array([value], field.type, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return False
    return True
