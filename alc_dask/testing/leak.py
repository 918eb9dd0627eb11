"""The field's first rule, checked: a release that leaks must never be scored as safe.

A copy of the original gives everyone away; a fresh sample of the same population gives no one away
(what it teaches holds for anyone). Every evaluation must find the copy worse on the family's headline
than the fresh sample, and the verdict must never pass the copy. And what an evaluation says
of the people it exposes (``exposed``) names them by their row, never by their values.
"""

from __future__ import annotations

import re

import pandas as pd

from alc_dask.families import EvaluationFamily
from alc_dask.testing.contract import expect


def check_copy_worse_than_fresh(cls: type[EvaluationFamily], copy: pd.DataFrame, fresh: pd.DataFrame) -> None:
    name, headline = cls.name, cls.headline
    copy, fresh = copy[copy["status"] == "ok"], fresh[fresh["status"] == "ok"]
    expect(
        set(copy.index) == set(fresh.index),
        name,
        "copy against fresh sample",
        f"the same entries planned other evaluations on the two releases: {sorted(set(copy.index) ^ set(fresh.index))}",
    )
    not_worse = [
        f"{s}: copy {copy.at[s, headline]}, fresh sample {fresh.at[s, headline]}" for s in copy.index if not copy.at[s, headline] > fresh.at[s, headline]
    ]
    expect(
        not not_worse,
        name,
        "copy against fresh sample",
        f"a release copying the original must score higher on {headline!r} than a fresh sample of the same population: {not_worse}",
    )
    check_verdict_of_copy(cls, copy.reset_index())


def check_verdict_of_copy(cls: type[EvaluationFamily], copy: pd.DataFrame) -> None:
    """The verdict reads every evaluation of the copy (its headline's interval and its evidence) and
    never passes it: a family without a threshold leaves it inconclusive, never pass."""
    from alc_dask.verdict import judged

    threshold = cls.threshold.value if cls.threshold else None
    try:
        evaluations = [judged(cls, row, threshold) for _, row in copy.iterrows()]
    except Exception as error:  # noqa: BLE001 - the family's headline_interval or evidence is at fault: say so
        expect(False, cls.name, "verdict", f"headline_interval or evidence failed on a stored row: {type(error).__name__}: {error}")
    passed = [e.id for e in evaluations if e.label == "pass"]
    expect(not passed, cls.name, "verdict", f"a release copying the original passed the verdict: {passed}")
    silent = [e.id for e in evaluations if not e.evidence.strip()]
    expect(not silent, cls.name, "verdict", f"evaluations without a sentence of evidence: {silent}")


def check_exposure(cls: type[EvaluationFamily], scores: pd.DataFrame, predictions: pd.DataFrame, original: pd.DataFrame) -> None:
    """The records every evaluation (its ``scores`` row and ``predictions``) exposes (``exposed``):
    rows of the ``original``, once each, with evidence that shows none of its values."""
    for row in scores[scores["status"] == "ok"].to_dict("records"):
        try:
            exposed = cls.exposed(predictions[predictions["scenario_id"] == row["scenario_id"]], row)
        except Exception as error:  # noqa: BLE001 - the family's exposed is at fault: say so
            expect(False, cls.name, "exposure", f"scenario {row['scenario_id']}: exposed failed: {type(error).__name__}: {error}")
        part, scenario = "exposure", f"scenario {row['scenario_id']}"
        expect(list(exposed.columns) == ["record", "evidence"], cls.name, part, f"{scenario}: columns {list(exposed.columns)}, not ['record', 'evidence']")
        records = exposed["record"]
        valid = pd.api.types.is_integer_dtype(records) and records.between(0, len(original) - 1).all() and records.is_unique
        expect(valid, cls.name, part, f"{scenario}: records must be distinct rows of the original (0 to {len(original) - 1})")
        shown = {evidence: values_in(evidence, original) for evidence in exposed["evidence"].unique()}
        expect(not any(shown.values()), cls.name, part, f"{scenario}: evidence shows values of the original: {shown}")


def values_in(text: str, table: pd.DataFrame) -> list[str]:
    """The values of ``table`` that ``text`` shows: as a word, or within it when three characters or longer."""
    words = set(re.split(r"[\s,;]+", text))
    values = {shown for column in table.columns for value in table[column].dropna().unique() for shown in _as_texts(value)}
    return sorted(value for value in values if value in words or (len(value) >= 3 and value in text))


def _as_texts(value) -> set[str]:
    if isinstance(value, float):
        return {str(value), f"{value:g}"} | ({str(int(value))} if value.is_integer() else set())
    return {str(value)}
