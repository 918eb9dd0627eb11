"""The field's first rule, checked: a release that leaks must never be scored as safe.

A copy of the original gives everyone away; a fresh sample of the same population gives no one away
(what it teaches holds for anyone). Every evaluation must find the copy worse on the family's headline
than the fresh sample, and must not label the copy "no loss" or "safe".
"""

from __future__ import annotations

import pandas as pd

from alc_dask.families import EvaluationFamily
from alc_dask.testing.contract import expect

HARMLESS = ("no loss", "safe")


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
    harmless = {s: copy.at[s, "risk"] for s in copy.index if copy.at[s, "risk"] in HARMLESS}
    expect(not harmless, name, "copy against fresh sample", f"a release copying the original was labelled harmless: {harmless}")
    check_verdict_of_copy(cls, copy.reset_index())


def check_verdict_of_copy(cls: type[EvaluationFamily], copy: pd.DataFrame) -> None:
    """The verdict reads every evaluation of the copy (its headline's interval and its evidence) and
    never passes it: a family without a threshold leaves it inconclusive, never pass."""
    from alc_dask.report.verdict import judged

    threshold = cls.threshold.value if cls.threshold else None
    try:
        evaluations = [judged(cls, row, threshold) for _, row in copy.iterrows()]
    except Exception as error:  # noqa: BLE001 - the family's headline_interval or evidence is at fault: say so
        expect(False, cls.name, "verdict", f"headline_interval or evidence failed on a stored row: {type(error).__name__}: {error}")
    passed = [e.id for e in evaluations if e.label == "pass"]
    expect(not passed, cls.name, "verdict", f"a release copying the original passed the verdict: {passed}")
    silent = [e.id for e in evaluations if not e.evidence.strip()]
    expect(not silent, cls.name, "verdict", f"evaluations without a sentence of evidence: {silent}")
