"""Singling out (Anonymeter's evaluator, Giomi et al. 2023): can the release be used to write a predicate
that isolates exactly one person of the original data?

Predicates are made from the anonymized table, each isolating one of its distinct rows:
univariate ones from a column's extremes (``<= min``, ``>= max``), its values held by one row, and
its only missing value; multivariate ones from random anonymized rows on ``n_cols`` random columns
(equality for text categories, ``>=`` or ``<=`` the row's value for ordered columns, on the side of
the column's median). A predicate succeeds when it isolates exactly one distinct original record.
The control checks the same predicates on the control table; a control of another number of rows
than the original has its count scaled to the original's size as Anonymeter does, and keeps the
range of counts it allows at the original's size (``alc_dask.measure.isolation``), which widens the
risk's interval. Rows are compared, not distinct rows: two samples of one population as large
differ in their duplicates by chance, and reading that as a difference of size would scale and
widen for nothing. The baseline draws random predicates. The predictions name the record each
successful predicate isolates (of identical records, the first), in the original and in the control.

**Without a control table** (``reference: original``) the original is cut at random in two halves,
and the release in two halves of one size (at most the original's half). In each of two folds, one
half of the original is attacked: predicates made from one half of the release and predicates made
from the other half of the original (cut to as many rows) are checked on it; the folds swap the
halves, and their counts add up (every person attacked once, twice the predicates of one fold). A
release of other people of the same population is then a sample as large as the others and as
unrelated to the people attacked, so both sets of predicates single them out as often up to
chance; a release that republishes its members' rare values singles out the attacked half's. Half
of a release's people are outside the attacked half, so the risk read this way is about half the
one a control table shows: a weaker test, never a false alarm. Each fold asks for half the
predicates and attempts.
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Literal

import numpy as np
import pandas as pd
import pyarrow as pa
from pydantic import Field, model_validator

from alc_dask.data import ScenarioError
from alc_dask.data.combinations import alone, combined_ranks
from alc_dask.data.partitioned import whole
from alc_dask.families.base import CheckExamples, Evaluation, HeadlineInterval, column
from alc_dask.families.wp29.common import (
    WP29_FIELDS,
    ChosenColumns,
    Wp29Family,
    Wp29Params,
    attacked_table,
    attacked_tables,
    by_reference,
    check_columns,
    hits_table,
    wp29_measures,
)
from alc_dask.families.wp29.draws import random_conditions
from alc_dask.families.wp29.predicates import EQ, EQUALITY_OPS, GE, IS_NULL, LE, NOT_NULL, ORDERED_OPS, Predicates, RowMatrix, count_matches, isolated_records
from alc_dask.measure import AttackCounts, singling_out_probability
from alc_dask.measure.isolation import isolating_range
from alc_dask.measure.verdict import one_sided
from alc_dask.seeds import stream

BATCH = 1000
"""Multivariate predicates made and checked at a time."""

CONTROL_CAP = 50
"""Control matches counted per predicate at most, to read the control at the original's size
(``isolating_at_size``): a predicate matching 50 of the control's records has no chance left of
isolating one record in a larger table, so counting on would cost time for nothing."""

NOTHING_ATTACKED = "no predicate singling out one person could be made from the release: nothing was attacked"

MAX_ATTEMPTS = 100_000_000
"""The most multivariate predicates a job may have tried: a few microseconds each, so a release
that resists the search costs minutes, not days."""


class SinglingOutParams(Wp29Params):
    mode: Literal["univariate", "multivariate"] = "multivariate"
    n_cols: Annotated[int, Field(ge=1)] = 3
    max_attempts: Annotated[int, Field(ge=1, le=MAX_ATTEMPTS)] = 10_000_000
    """Multivariate predicates tried at most, so a release that resists never hangs the job."""
    columns: ChosenColumns | None = None
    """Columns predicates may use; default: every column of the attacked anonymized table."""

    @model_validator(mode="after")
    def _attempts_cover_attacks(self):
        if self.mode == "multivariate" and self.max_attempts < self.n_attacks:
            raise ValueError(f"max_attempts: {self.max_attempts} is fewer than n_attacks: {self.n_attacks}; each attempt makes one predicate at most")
        return self


BATTERY_COLUMNS = 3
"""Columns of the battery's multivariate predicates at least (Anonymeter's default)."""
UNIQUE_SHARE = 0.05
"""The share of the release's rows that its predicates' columns should single out, on average over
random choices of them: on tables of a few categories per column no combination of 3 singles anyone
out (child, insurance: 0 of 5 000 rows), so the battery made a few hundred predicates, and a
release of other people stayed inconclusive with a risk's interval reaching 0.1–0.2."""
BATTERY_PREDICATES = 2000
"""Predicates of each of the battery's evaluations: at a risk near 0.1, a 95% interval of about ±1.3 points."""
BATTERY_ATTEMPTS = 200_000
"""Attempts at a multivariate predicate the battery allows (100 per predicate): on a table of few
categories almost no combination singles anyone out, and the default 10⁷ attempts took 100 s of a
check on the child table for half the predicates."""


def predicate_columns(release: pd.DataFrame, repeats: int = 10) -> int:
    """The fewest columns (at least ``BATTERY_COLUMNS``) whose combinations single out
    ``UNIQUE_SHARE`` of the release's rows, on average over ``repeats`` seeded random choices."""
    columns = list(release.columns)
    ranked = {}
    for name in columns:  # each column coded once (text), not per choice: most of the battery's 51 s at 1e7 rows
        codes, distinct = pd.factorize(release[name], use_na_sentinel=False)
        ranked[name] = (codes.astype(np.int64, copy=False), max(len(distinct), 1))
    rng = np.random.default_rng(0)
    for n_cols in range(min(BATTERY_COLUMNS, len(columns)), len(columns)):
        chosen = [list(rng.choice(columns, n_cols, replace=False)) for _ in range(repeats)]
        if np.mean([alone(combined_ranks([ranked[name] for name in c])).mean() for c in chosen]) >= UNIQUE_SHARE:
            return n_cols
    return len(columns)


class SinglingOut(Wp29Family):
    name = "singling_out"
    criterion = "singling out"
    Params = SinglingOutParams
    fields = (
        *WP29_FIELDS,
        column(
            "control_success_low",
            pa.float64(),
            "fewest control successes plausible at the original's size, when the control has another number of rows (null: as many as the original)",
        ),
        column(
            "control_success_high",
            pa.float64(),
            "most control successes plausible at the original's size, when the control has another number of rows (null: as many as the original)",
        ),
    )

    @classmethod
    def headline_interval(cls, row) -> HeadlineInterval:
        """The risk's interval, widened by the range of control rates a control table of another number
        of rows than the original allows (``alc_dask.measure.isolation``): a small control cannot settle a verdict."""
        head = super().headline_interval(row)
        fewest, most = (_number(row.get(name)) for name in ("control_success_low", "control_success_high"))
        if not (math.isfinite(fewest) and math.isfinite(most)):
            return head

        def risk(control_success: float, level: float = float(row["confidence_level"])) -> dict:
            counts = AttackCounts(
                *(int(row[name]) for name in ("n_attacks", "n_success", "n_baseline_attacks", "n_baseline_success", "n_control_attacks")), control_success
            )
            return counts.measures(level)

        low, high = min(head.low, risk(most)["privacy_risk_low"]), max(head.high, risk(fewest)["privacy_risk_high"])
        pass_high = max(head.pass_bound, risk(fewest, one_sided(float(row["confidence_level"])))["privacy_risk_high"])
        return HeadlineInterval(head.value, low, high, head.trials, pass_high)

    @classmethod
    def not_informative(cls, row) -> str | None:
        """No predicate made: its rates are Wilson's uninformed 0.5 ± 0.5 and no control rate, a risk of nobody."""
        return NOTHING_ATTACKED if not row.get("n_attacks") else super().not_informative(row)

    @classmethod
    def too_few_attacks(cls, made: int) -> str:
        return f"only {made:,} predicate{'s' if made != 1 else ''} singling out one row could be made from the release"

    @classmethod
    def evidence(cls, row) -> str:
        if not row.get("n_attacks"):
            return NOTHING_ATTACKED
        others = by_reference(row, "on people not in it", "of those made from the original's other people, on the same people")
        sentence = f"{float(row['attack_rate']):.1%} of the predicates made from the release single out one person of the original; {others}, {float(row['control_rate']):.1%}"
        fewest, most = (_number(row.get(name)) for name in ("control_success_low", "control_success_high"))
        if math.isfinite(fewest) and math.isfinite(most):
            n = float(row["n_attacks"])
            sentence += f" (a control table of another size than the original allows {fewest / n:.1%} to {most / n:.1%})"
        return sentence

    @classmethod
    def exposure(cls, row) -> str:
        params = json.loads(row["params"])
        return "singled out by a univariate predicate" if params["mode"] == "univariate" else f"singled out by a {params['n_cols']}-column predicate"

    @classmethod
    def check_examples(cls, columns: tuple[str, ...]) -> CheckExamples:
        return CheckExamples([{"mode": "univariate", "n_attacks": 50}, {"mode": "multivariate", "n_cols": 3, "n_attacks": 50}])

    @classmethod
    def battery(cls, tables):
        """Univariate predicates and multivariate ones on as many columns as ``predicate_columns``
        finds; without a control table, against other people of the original (``reference: original``)."""
        n_cols = predicate_columns(tables.release[[c for c in tables.columns if c in tables.release.columns]])
        reference = {} if tables.has_control else {"reference": "original"}
        return [
            {"family": cls.name, "mode": "univariate", "n_attacks": BATTERY_PREDICATES, **reference},
            {"family": cls.name, "mode": "multivariate", "n_cols": n_cols, "n_attacks": BATTERY_PREDICATES, "max_attempts": BATTERY_ATTEMPTS, **reference},
        ]

    def describe(self) -> str:
        return self.params.mode

    def check(self, release) -> None:
        anonymized = attacked_table(release, self.params, self.name)
        columns = self._columns(anonymized)
        check_columns(release, anonymized, "columns", columns)
        if self.params.mode == "multivariate" and self.params.n_cols > len(columns):
            raise ScenarioError(f"n_cols: {self.params.n_cols} is more than the {len(columns)} columns predicates may use")

    def evaluate(self, release, seed: int) -> Evaluation:
        p = self.params
        self.check(release)
        anonymized, control = attacked_tables(release, p, self.name)
        columns = self._columns(anonymized)
        rng = stream(seed, "singling out")
        if control is None:
            return self._against_others(release, anonymized, columns, rng)
        original_table = whole(release.original)
        synthetic, original, held_out = (RowMatrix.of(release, t, columns) for t in (anonymized, original_table, control))
        predicates, attempts = self._predicates(synthetic, rng)
        baseline = self._baseline(synthetic, rng)
        singled_out = {"attack": isolated_records(predicates, original), "control": isolated_records(predicates, held_out)}
        n_control = int((singled_out["control"] >= 0).sum())
        control_range = (None, None)
        if control.n_rows != original_table.n_rows and len(predicates):
            n_control = min(scale_to_size(predicates, held_out, len(original.rows), rng) * n_control, len(predicates))
            low, high = isolating_range(count_matches(predicates, held_out, CONTROL_CAP), len(held_out.rows), len(original.rows), CONTROL_CAP)
            control_range = (min(low, n_control), min(max(high, n_control), len(predicates)))
        counts = AttackCounts(
            n_attacks=len(predicates),
            n_success=int((singled_out["attack"] >= 0).sum()),
            n_baseline_attacks=len(baseline),
            n_baseline_success=int((count_matches(baseline, original) == 1).sum()),
            n_control_attacks=len(predicates),
            n_control_success=n_control,
        )
        measures = wp29_measures(counts, p.confidence_level, self._warnings(len(predicates), attempts))
        return Evaluation(measures | dict(zip(("control_success_low", "control_success_high"), control_range)), hits_table(singled_out))

    def _against_others(self, release, anonymized, columns: tuple[str, ...], rng: np.random.Generator) -> Evaluation:
        """Without a control table: in each of two folds, predicates made from half the release and
        from the other half of the original, as many rows each, single out people of one half of
        the original (see the module); the folds' counts add up."""
        p = self.params
        original = whole(release.original)
        half = original.n_rows // 2
        size = min(half, anonymized.n_rows // 2)
        if size < 1:
            raise ScenarioError(
                f"singling_out: reference: original needs two rows of the original and of the release or more; they have {original.n_rows} and {anonymized.n_rows}"
            )
        order, drawn = rng.permutation(original.n_rows), rng.permutation(anonymized.n_rows)
        halves = (np.sort(order[:half]), np.sort(order[half : 2 * half]))
        released = (np.sort(drawn[:size]), np.sort(drawn[size : 2 * size]))
        made, baseline, singled_out = {"attack": [], "others": []}, [], {"attack": [], "others": []}
        for fold in (0, 1):
            people, others = halves[fold], halves[1 - fold][:size] if size == half else np.sort(rng.choice(halves[1 - fold], size, replace=False))
            targets = RowMatrix.of(release, original.rows(people), columns)
            sources = {
                "attack": RowMatrix.of(release, anonymized.rows(released[fold]), columns),
                "others": RowMatrix.of(release, original.rows(others), columns),
            }
            for side, source in sources.items():
                predicates, attempts = self._predicates(source, rng, folds=2)
                made[side].append((len(predicates), attempts))
                found = isolated_records(predicates, targets)
                singled_out[side].append(np.where(found >= 0, people[np.maximum(found, 0)], -1))
            random = self._baseline(sources["attack"], rng, folds=2)
            baseline.append((len(random), int((count_matches(random, targets) == 1).sum())))
        hits = {side: np.concatenate(found) for side, found in singled_out.items()}
        n_made = {side: sum(n for n, _ in folds) for side, folds in made.items()}
        counts = AttackCounts(
            n_attacks=n_made["attack"],
            n_success=int((hits["attack"] >= 0).sum()),
            n_baseline_attacks=sum(n for n, _ in baseline),
            n_baseline_success=sum(won for _, won in baseline),
            n_control_attacks=n_made["others"],
            n_control_success=int((hits["others"] >= 0).sum()),
        )
        tried = [attempts for _, attempts in made["attack"] if attempts]
        measures = wp29_measures(counts, p.confidence_level, self._warnings(n_made["attack"], sum(tried) if tried else None))
        return Evaluation(measures | {"control_success_low": None, "control_success_high": None}, hits_table(hits))

    def _predicates(self, synthetic: RowMatrix, rng: np.random.Generator, folds: int = 1) -> tuple[Predicates, int | None]:
        """The predicates made from ``synthetic`` and the multivariate attempts it took (None:
        univariate): a ``folds``-th of the predicates and attempts asked for."""
        p = self.params
        wanted = -(-p.n_attacks // folds)
        if p.mode == "univariate":
            return univariate_predicates(synthetic, wanted, rng), None
        return multivariate_predicates(synthetic, wanted, p.n_cols, max(wanted, p.max_attempts // folds), rng)

    def _baseline(self, synthetic: RowMatrix, rng: np.random.Generator, folds: int = 1) -> Predicates:
        return random_predicates(synthetic, -(-self.params.n_attacks // folds), 1 if self.params.mode == "univariate" else self.params.n_cols, rng)

    def _warnings(self, made: int, attempts: int | None) -> list[str]:
        if made >= self.params.n_attacks:
            return []
        tried = f" in {attempts} attempts" if attempts else ""
        return [f"only {made} of the {self.params.n_attacks} predicates asked for could be made{tried}; the risk is scored on those and may be underestimated"]

    def _columns(self, anonymized) -> tuple[str, ...]:
        return tuple(self.params.columns) if self.params.columns else anonymized.columns


def univariate_predicates(synthetic: RowMatrix, wanted: int, rng: np.random.Generator) -> Predicates:
    """Up to ``wanted`` distinct one-column predicates, each isolating one anonymized row: per column,
    ``is null`` when one row misses it, ``<= min`` and ``>= max`` when it is ordered, ``== value`` for
    each value one row holds (increasing); tried in a random order."""
    values, present = synthetic.sorted_values, synthetic.present
    starts, ends = synthetic.runs
    single = np.flatnonzero(len(synthetic.source) - present == 1)
    bounded = np.flatnonzero(synthetic.ordered & (present > 0))
    once_column, once_at = np.nonzero(starts & ends)
    column = np.concatenate([single, bounded, bounded, once_column])
    kind = np.concatenate([np.zeros(len(single)), np.ones(len(bounded)), np.full(len(bounded), 2), np.full(len(once_column), 3)])
    at = np.concatenate([np.zeros(2 * len(bounded) + len(single), dtype=np.int64), once_at])
    op = np.concatenate([np.full(len(single), IS_NULL), np.full(len(bounded), LE), np.full(len(bounded), GE), np.full(len(once_column), EQ)])
    value = np.concatenate([np.zeros(len(single)), values[bounded, 0], values[bounded, present[bounded] - 1], values[once_column, once_at]])
    order = np.lexsort((at, kind, column))  # per column: is null, <= min, >= max, then == each value
    candidates = Predicates(column[order].astype(np.int64)[:, None], op[order].astype(np.int64)[:, None], value[order].astype(np.float64)[:, None])
    return _isolating(candidates.select(rng.permutation(len(candidates))), synthetic, wanted, set())


def multivariate_predicates(synthetic: RowMatrix, wanted: int, n_cols: int, max_attempts: int, rng: np.random.Generator) -> tuple[Predicates, int]:
    """Up to ``wanted`` distinct ``n_cols``-column predicates from random anonymized rows, and the attempts made."""
    medians = np.array([_median(synthetic.sorted_values[j, : synthetic.present[j]]) if synthetic.ordered[j] else np.nan for j in range(len(synthetic.columns))])
    found, seen, attempts = [], set(), 0
    while sum(map(len, found)) < wanted and attempts < max_attempts:
        size = min(BATCH, max_attempts - attempts)
        rows = synthetic.rows[rng.integers(0, len(synthetic.rows), size)]
        columns = np.sort(np.argsort(rng.random((size, synthetic.rows.shape[1])), axis=1)[:, :n_cols], axis=1)
        values = np.take_along_axis(rows, columns, axis=1)
        ops = np.where(values > medians[columns], GE, LE)
        ops = np.where(synthetic.ordered[columns], ops, EQ)
        ops = np.where(np.isnan(values), IS_NULL, ops)
        batch = Predicates(columns, ops, np.nan_to_num(values))
        found.append(_isolating(batch, synthetic, wanted - sum(map(len, found)), seen))
        attempts += size
    return _concat(found, n_cols), attempts


def random_predicates(synthetic: RowMatrix, count: int, n_cols: int, rng: np.random.Generator) -> Predicates:
    """The baseline: columns, values (from the anonymized table's distinct values) and operators at
    random: per predicate ``n_cols`` distinct columns, then per column (in order) a value and an
    operator, each one ``rng.choice`` (drawn in bulk, ``alc_dask.families.wp29.draws``)."""
    n_cols = min(n_cols, synthetic.rows.shape[1])
    if count == 0:
        return Predicates.stack([])
    distinct, n_values = _distinct_values(synthetic)
    ops_of = np.array([ORDERED_OPS if ordered else EQUALITY_OPS + (EQ,) * (len(ORDERED_OPS) - len(EQUALITY_OPS)) for ordered in synthetic.ordered])
    n_ops = np.where(synthetic.ordered, len(ORDERED_OPS), len(EQUALITY_OPS))
    columns, value_index, op_index = random_conditions(rng, synthetic.rows.shape[1], n_cols, count, n_values, n_ops)
    values = distinct[np.concatenate([[0], np.cumsum(n_values)[:-1]])[columns] + value_index]
    ops = ops_of[columns, op_index]
    missing = np.isnan(values)
    ops = np.where(missing, np.where(ops == EQ, IS_NULL, NOT_NULL), ops)
    return Predicates(columns, ops.astype(np.int64), np.where(missing, 0.0, values))


def scale_to_size(predicates: Predicates, control: RowMatrix, size: int, rng: np.random.Generator) -> float:
    """How much more (or less) often the predicates would isolate a record among ``size`` records
    than among the control's: the isolation model fitted to counts on subsamples of the control."""
    from scipy.optimize import curve_fit

    sizes = np.repeat(np.linspace(min(1000, len(control.rows)), len(control.rows), 10).astype(int), 5)
    counts = [int((count_matches(predicates, _subsample(control, n, rng)) == 1).sum()) for n in sizes]

    def model(n, w_max, norm):
        return norm * singling_out_probability(n, w_max)

    start = 1.0 / sizes.max()
    (w_max, norm), _ = curve_fit(model, sizes, counts, p0=(start, 1.0 / singling_out_probability(sizes.max(), start)), bounds=(0, (1, np.inf)))
    return float(model(size, w_max, norm) / model(len(control.rows), w_max, norm))


def _median(increasing: np.ndarray) -> float:
    """The median of values already sorted, as ``np.nanmedian`` computes it (NaN when there are none)."""
    half = len(increasing) // 2
    if not len(increasing):
        return np.nan
    return float(increasing[half]) if len(increasing) % 2 else float((increasing[half - 1] + increasing[half]) / 2)


def _distinct_values(rows: RowMatrix) -> tuple[np.ndarray, np.ndarray]:
    """Every column's distinct values, increasing, NaN last when a value is missing (``np.unique``'s
    answer per column), one column after another; and how many each column has."""
    starts, _ = rows.runs
    column, at = np.nonzero(starts)
    per_column = np.bincount(column, minlength=len(rows.columns))
    missing = rows.present < len(rows.source)
    counts = per_column + missing
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    values = np.empty(int(counts.sum()))
    values[offsets[column] + np.arange(len(column)) - (np.cumsum(per_column) - per_column)[column]] = rows.sorted_values[column, at]
    values[(offsets + per_column)[missing]] = np.nan
    return values, counts


def _number(value) -> float:
    return math.nan if value is None else float(value)


def _subsample(rows: RowMatrix, n: int, rng: np.random.Generator) -> RowMatrix:
    return rows.subset(np.sort(rng.choice(len(rows.rows), n, replace=False)))


def _isolating(candidates: Predicates, synthetic: RowMatrix, wanted: int, seen: set) -> Predicates:
    """The candidates, in order, that isolate one anonymized row and were not found before, at most ``wanted``."""
    isolating = np.flatnonzero(count_matches(candidates, synthetic) == 1)
    keep = []
    for index, key in zip(isolating, candidates.select(isolating).keys()):
        if len(keep) == wanted:
            break
        if key not in seen:
            seen.add(key)
            keep.append(index)
    return candidates.select(np.array(keep, dtype=np.int64))


def _concat(parts: list[Predicates], width: int) -> Predicates:
    if not parts:
        return Predicates.stack([])
    return Predicates(*(np.concatenate([getattr(p, name).reshape(-1, width) for p in parts]) for name in ("column", "op", "value")))
