"""Special uniques (SUDA): the records of a table unique on a few of its key variables, the SUDA score
and DIS-SUDA risk of each (Elliot, Manning & Ford 2002; Skinner & Elliot 2002; Manning, Haglin &
Keane 2008; sdcMicro's ``suda2``), on the original and on the release, and what the release adds.

A fresh sample of the population has special uniques of its own, so their number in the original
says little about the release. What the release exposes is measured against a non-member
baseline: a special unique of the original is *replicated* when one of its MSUs (in the original)
occurs exactly once in the release too, on the same values: whoever knows those few values of the
person finds one released row, theirs. The share of the original's special uniques the release
replicates is set against the same share of the control table's special uniques (MSUs found in the
control, looked up in the same release): what the release gives anyone by chance. The risk is the
excess, ``(original - control) / (1 - control)``, as Anonymeter counts the members' success beyond
the control's (Giomi et al. 2023), from Wilson-corrected shares. A copy of the original replicates
every special unique (risk near 1); a fresh sample replicates the original's as often as the
control's (risk near 0). The share of all records replicated is reported beside it.
"""

from __future__ import annotations

import json
from typing import Annotated

from pydantic import AfterValidator, Field

from alc_dask.data import ScenarioError
from alc_dask.data.schema import ColumnKind
from alc_dask.families.base import CheckExamples, Evaluation, EvaluationFamily, FamilyParams, HeadlineInterval, exposed_records
from alc_dask.families.special_uniques.fields import FIELDS
from alc_dask.families.special_uniques.keys import number_of_subsets
from alc_dask.measure.verdict import REIDENTIFICATION

MAX_DEFAULT_KEYS = 12
BATTERY_MIN_ROWS = 20_000
"""The original's rows from which the battery runs special uniques (four times the size at which its
interval at no risk still reached 0.15-0.18)."""
"""Key variables taken by default (every categorical column): beyond, the job names them."""
MAX_SUBSETS = 5_000
"""Subsets of the key variables searched at most (each is a count over the table)."""


def _distinct(columns: tuple[str, ...] | None) -> tuple[str, ...] | None:
    if columns is not None:
        if not columns:
            raise ValueError("lists no column; leave the field out to use every categorical column")
        repeated = sorted({c for c in columns if columns.count(c) > 1})
        if repeated:
            raise ValueError(f"names {repeated} more than once")
    return columns


class SpecialUniquesParams(FamilyParams):
    columns: Annotated[tuple[str, ...] | None, AfterValidator(_distinct)] = None
    """The key variables (categorical); left out: every categorical column of the original the release holds (at most 12)."""
    max_size: Annotated[int, Field(ge=1, le=8)] = 3
    """The largest MSU searched for."""
    dis_fraction: Annotated[float, Field(gt=0, lt=1)] = 0.01
    """The sampling fraction of the table in its population (sdcMicro's ``DisFraction``, 0.01 by default)."""
    dis_cut: Annotated[float, Field(gt=0, lt=1)] = REIDENTIFICATION.value
    """The DIS-SUDA risk from which a record counts as at risk."""
    highest: Annotated[int, Field(ge=1, le=1000)] = 10
    """Records of highest risk listed (their rows, never their values)."""
    table: Annotated[int, Field(ge=0)] = 0
    confidence_level: Annotated[float, Field(gt=0, lt=1)] = 0.95


def _check_size(columns: tuple[str, ...], max_size: int) -> None:
    if max_size > len(columns):
        raise ValueError(f"max_size: {max_size} is larger than the {len(columns)} key variables {list(columns)}")
    if number_of_subsets(len(columns), max_size) > MAX_SUBSETS:
        raise ValueError(f"max_size: {max_size} over {len(columns)} key variables makes more than {MAX_SUBSETS} subsets to search; lower it")


class SpecialUniques(EvaluationFamily):
    name = "special_uniques"
    Params = SpecialUniquesParams
    headline = "replicated_risk"
    threshold = REIDENTIFICATION
    scale = "the share of the original's special uniques whose MSU the release holds once, beyond the control's share"
    fields = FIELDS

    @classmethod
    def battery(cls, tables):
        """With a control table of at least ``BATTERY_MIN_ROWS`` rows, the special uniques of the
        categorical columns the release holds (at most ``MAX_DEFAULT_KEYS``), MSUs of up to three
        of them. Below that size the risk cannot pass: the control replicates about half its special
        uniques by chance, and dividing by what it left to gain doubles the shares' error (on adult,
        5 000 people, 999 special uniques: releases of other people scored 0.07 [0, 0.15] and 0.11
        [0.04, 0.18] against 0.09); the battery's other families judge such tables."""
        if not tables.has_control or len(tables.original) < BATTERY_MIN_ROWS:
            return []
        keys = [c for c in tables.columns if c in tables.release.columns and not tables.is_continuous(c)][:MAX_DEFAULT_KEYS]
        return [{"family": cls.name, "columns": keys, "max_size": min(3, len(keys))}] if keys else []

    @classmethod
    def headline_interval(cls, row):
        trials = float(row["n_special_original"])
        return HeadlineInterval(float(row["replicated_risk"]), float(row["replicated_risk_low"]), float(row["replicated_risk_high"]), trials)

    @classmethod
    def evidence(cls, row) -> str:
        return (
            f"{int(row['n_replicated'])} of the original's {int(row['n_special_original'])} special uniques ({int(row['n_original'])} records) have an MSU (on at most {int(row['max_size'])} of "
            f"{', '.join(json.loads(row['key_columns']))}) the release holds once: risk {float(row['replicated_risk']):.3g} beyond the control"
        )

    @classmethod
    def exposed(cls, predictions, row):
        replicated = predictions[(predictions["side"] == "original") & predictions["correct"].eq(True)]
        return exposed_records(replicated["target"], "a special unique the release holds once")

    @classmethod
    def check_examples(cls, columns: tuple[str, ...]) -> CheckExamples:
        """Every categorical column up to size 3, and three named ones up to size 2."""
        return CheckExamples([{}, {"columns": ["sex", "region", "education"], "max_size": 2}])

    @classmethod
    def report_section(cls, scores):
        from alc_dask.families.special_uniques.section import section

        return section(cls.name, scores)

    def describe(self) -> str:
        return f"special uniques up to {self.params.max_size}"

    def key_columns(self, release) -> tuple[str, ...]:
        """The key variables: as named, or every categorical column of the original in the release's table."""
        if self.params.columns is not None:
            return self.params.columns
        table = release.anonymized[self.params.table]
        chosen = tuple(c for c in release.original.categorical if c in table.columns and release.columns[c].kind is ColumnKind.CATEGORICAL)
        if not chosen:
            raise ScenarioError(f"columns: the original and anonymized table {table.name} share no categorical column; name the key variables")
        if len(chosen) > MAX_DEFAULT_KEYS:
            raise ScenarioError(f"columns: {len(chosen)} categorical columns ({', '.join(chosen)}) are more than {MAX_DEFAULT_KEYS}: name the key variables")
        return chosen

    def check(self, release) -> None:
        p = self.params
        if p.table >= len(release.anonymized):
            raise ScenarioError(f"table: {p.table} is not an anonymized table of the release (it has {len(release.anonymized)})")
        columns = self.key_columns(release)
        unknown = [c for c in columns if c not in release.columns]
        if unknown:
            raise ScenarioError(f"columns: {unknown} are not columns of the release; it has {list(release.columns)}")
        continuous = [c for c in columns if release.columns[c].kind is not ColumnKind.CATEGORICAL]
        if continuous:
            raise ScenarioError(f"columns: {continuous} are continuous; key variables are categorical (declare them so in the release's columns)")
        tables = [release.original, release.anonymized[p.table]] + ([release.control] if release.control is not None else [])
        for table in tables:
            missing = [c for c in columns if c not in table.columns]
            if missing:
                raise ScenarioError(f"columns: {missing} are not columns of {table.name}")
        try:
            _check_size(columns, p.max_size)
        except ValueError as error:
            raise ScenarioError(str(error)) from None

    def evaluate(self, release, seed: int) -> Evaluation:
        """No randomness: every record of every table is searched."""
        from alc_dask.families.special_uniques.evaluate import special_uniques

        self.check(release)
        return special_uniques(self.params, release, self.key_columns(release))
