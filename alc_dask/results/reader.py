"""Reading a results folder: one row per scenario (the one that counts, see ``counting``), per
family or every family's together, and the predictions of complete scenarios.

The folder's layout is checked first: results of another layout are refused, never misread.
"""

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from alc_dask.families import family_names
from alc_dask.results.counting import DONE, resolve
from alc_dask.results.manifest import ResultsError, check_layout
from alc_dask.results.parts import Parts, every_part
from alc_dask.results.scan import read_table
from alc_dask.results.schema import PREDICTIONS, family_schema, union_schema

UNREADABLE = (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError)  # a part cut short, or a column of another type


class ResultReader:
    """The scores and predictions under one root, read with pyarrow."""

    def __init__(self, parts: Parts):
        self.parts = parts
        self.files = parts.files
        self._checked = False

    def completed(self) -> set[str]:
        """Ids of the scenarios finished or skipped in written parts (failed ones are tried again on a re-run)."""
        rows = self._rows(self._present())
        return set(rows.loc[rows["status"].isin(DONE), "scenario_id"])

    def scores(self, family: str | None = None, columns: list[str] | None = None, filters=None) -> pd.DataFrame:
        """One row per scenario of ``family`` in its own columns (identity, then its measures), or of
        every family (None) in the union of their columns, in write order. ``filters``: pyarrow-style
        (``[("status", "==", "ok")]``) or a ``pyarrow.compute`` expression; like ``columns``, applied by pyarrow."""
        present = self._present()
        selected = present if family is None else {family: present.get(family, [])}
        shown, schema = self._schemas(family, selected)
        wanted = list(columns or shown.names)
        if missing := [name for name in wanted if name not in schema.names]:
            whose = "any family's" if family is None else f"family {family!r}'s"
            raise ResultsError(f"scores of {self.files.url}: no column {', '.join(map(repr, missing))} in {whose} scores (see the results reference)")
        names = every_part(selected)
        counting, keep = resolve(self._rows(selected), names)
        several = len(selected) > 1
        read = [*wanted, "scenario_id"] if several and "scenario_id" not in wanted else wanted
        tables = [self._read(name, part_names, schema, read, columns, _expression(filters), keep) for name, part_names in selected.items()]
        table = pa.concat_tables(tables) if tables else pa.schema([schema.field(column) for column in read]).empty_table()
        if several:
            table = _in_write_order(table, counting, names).select(wanted)
        return table.to_pandas()

    def predictions(self, scenario_ids=None) -> pd.DataFrame:
        """Predictions of complete scenarios (predictions without scores are of an interrupted write)."""
        present = self._present()
        names = every_part(present)
        counting = resolve(self._rows(present), names)[0]
        if scenario_ids is not None:
            counting = counting[counting.index.isin(list(scenario_ids))]
        keep = {part: ids.index.tolist() for part, ids in counting.groupby(counting)}
        wanted = None if scenario_ids is None else pc.field("scenario_id").isin(counting.index.tolist())
        predicted = self.parts.prediction_names()
        paths = [self.parts.predictions_path(name) for name in names if name in keep and name in predicted]
        return self._guarded("predictions", lambda: read_table(self.files, paths, PREDICTIONS, None, wanted, keep), None, wanted).to_pandas()

    def _schemas(self, family: str | None, selected: dict[str, list[str]]) -> tuple[pa.Schema, pa.Schema]:
        """The columns shown when none are asked for, and those that may be asked for or filtered on:
        a family's own; or, for every family, the union of those present and of every registered family's."""
        schemas = {name: self.parts.schema(name, names) for name, names in selected.items()}
        if family is not None:
            return schemas[family], schemas[family]
        return union_schema(schemas), union_schema({**schemas, **{name: family_schema(name) for name in family_names()}})

    def _present(self) -> dict[str, list[str]]:
        if not self._checked:
            check_layout(self.files)
            self._checked = True
        return self.parts.present()

    def _rows(self, present: dict[str, list[str]]) -> pd.DataFrame:
        """``Parts.rows``; a part that cannot be read (cut short, say) is a ResultsError naming it."""
        try:
            return self.parts.rows(present)
        except UNREADABLE as error:
            raise ResultsError(f"scores of {self.files.url}: cannot be read: {error}") from None

    def _read(self, family: str, names: list[str], schema: pa.Schema, columns: list[str], asked: list[str] | None, filter, keep: dict) -> pa.Table:
        """The rows of ``family``'s parts ``names`` that count; an error names the ``asked`` columns."""
        paths = [self.parts.scores_path(family, name) for name in names]
        kept = {name: keep[name] for name in names if name in keep}
        return self._guarded("scores", lambda: read_table(self.files, paths, schema, columns, filter, kept), asked, filter)

    def _guarded(self, what: str, read, asked: list[str] | None, filter) -> pa.Table:
        try:
            return read()
        except UNREADABLE as error:
            where = f" where {filter}" if filter is not None else ""
            raise ResultsError(f"{what} of {self.files.url}: cannot read {', '.join(asked) if asked else 'every column'}{where}: {error}") from None


def _in_write_order(table: pa.Table, counting: pd.Series, names: list[str]) -> pa.Table:
    """Rows ordered as one table of every family would hold them: by the part of each scenario's row, then by scenario."""
    ids = table["scenario_id"].to_numpy(zero_copy_only=False)
    position = counting.map({name: index for index, name in enumerate(names)})
    order = position.reindex(ids).to_numpy()
    return table.take(np.lexsort((ids, order)))


def _expression(filters) -> pc.Expression | None:
    if filters is None or isinstance(filters, pc.Expression):
        return filters
    return pq.filters_to_expression(filters)
