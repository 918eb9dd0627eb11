"""Attribute inference scored with the Anonymity Loss Coefficient: the default family.

One evaluation is one scenario of the ALC paper: a secret column, the columns the attacker knows,
an attack, and a non-member baseline; the scenario loop pairs their predictions and halts when the
ALC is known well enough. Its measures are the ALC and both precision/recall measures.
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa

from alc_dask.attacks.base import AttributeTask
from alc_dask.baseline import BaselineSettings
from alc_dask.data import ColumnKind, ScenarioError
from alc_dask.families.alc.entries import GENERATORS, AlcJobSettings, ExplicitScenario
from alc_dask.families.alc.loop import AttackResult, run_attack
from alc_dask.families.alc.params import AlcParams
from alc_dask.families.alc.settings import to_settings
from alc_dask.families.base import CheckExamples, Evaluation, EvaluationFamily, HeadlineInterval, column, exposed_records
from alc_dask.measure import HaltCode, HaltingRules, MatchedCoverage, MeasureSettings, PrcResult, Tolerance, risk_label
from alc_dask.measure.privacy_risk import LITTLE_ROOM
from alc_dask.measure.sequential import ALC_FLOOR, Cut, alc_interval, best_provable_alc, interval_with_every_target, pi_interval, smallest_flagged_alc
from alc_dask.measure.verdict import ALC_AT_RISK

PRC_MEASURES = {
    "n": "predictions kept at the best cut",
    "attempts": "targets predicted for (the recall's denominator)",
    "correct": "right predictions among those kept",
    "precision": "precision of the kept predictions: the midpoint of its Wilson interval",
    "measured_precision": "precision of the kept predictions as measured: correct / n",
    "recall": "share of the targets kept at the cut",
    "interval_low": "lower end of the precision's Wilson interval",
    "interval_high": "upper end of the precision's Wilson interval",
    "interval_width": "width of the precision's Wilson interval",
    "prc": "precision-recall coefficient of the cut (what the ALC compares)",
    "confidence_cut": "lowest confidence kept (NaN when nothing is kept)",
}
"""What each figure of a precision/recall measure (``PrcResult``) says; the columns prefix it with whose measure it is."""

MATCHED_COVERAGE = {
    "pi": "precision improvement at matched coverage: (attack precision - baseline precision) / (1 - baseline precision)",
    "pi_low": "lower end of the precision improvement's interval",
    "pi_high": "upper end of the precision improvement's interval",
    "pi_coverage": "share of the targets the attack predicted for at its best cut (the baseline is measured on the same)",
    "pi_attack_precision": "the attack's precision on the targets it predicted for",
    "pi_base_precision": "the baseline's precision on exactly the targets the attack predicted for",
    "pi_base_precision_low": "lower end of that baseline precision's Wilson interval",
    "pi_base_precision_high": "upper end of that baseline precision's Wilson interval",
    "pi_vulnerable": "precision improvement above 0 and no cut of the baseline as precise on at least as many targets",
    "pi_predicted": "targets the attack predicted for at its best cut",
    "pi_attack_correct": "of those, the attack's right predictions",
    "pi_base_correct": "of those, the baseline's right predictions",
}
PI_COUNTS = ("pi_predicted", "pi_attack_correct", "pi_base_correct")
PI_CONFIDENCE = 0.975
"""PI's flag is a second way for an ALC evaluation to flag: its interval at half the ALC's error (0.95)."""


def _matched_type(name: str) -> pa.DataType:
    return pa.bool_() if name == "pi_vulnerable" else pa.int64() if name in PI_COUNTS else pa.float64()


def _prc_fields(prefix: str, whose: str) -> list[pa.Field]:
    counts = {"n", "attempts", "correct"}
    return [column(prefix + name, pa.int64() if name in counts else pa.float64(), f"{whose}: {PRC_MEASURES[name]}") for name in PrcResult.__dataclass_fields__]


ALC_FIELDS = (
    column("secret", pa.string(), "the column the attack infers"),
    column("known", pa.string(), "the columns the attacker knows, as a sorted JSON list"),
    column("attack", pa.string(), "the attack's registered name"),
    column("attack_params", pa.string(), "the attack's parameters, as JSON"),
    column("baseline", pa.string(), "the baseline the attack is measured against: ml, prior or control"),
    column("targets", pa.string(), "the target selector, as JSON (null: every original row may be a target)"),
    column("tolerance", pa.string(), "for a continuous secret scored within a tolerance, the tolerance as JSON"),
    column("alc", pa.float64(), "anonymity loss coefficient of the attack's best cut over the baseline's best"),
    column("risk", pa.string(), "risk label of the ALC: no loss, safe, at risk or serious"),
    column("model", pa.string(), "the baseline's model, as model selection chose it; the attack on other people where that was stronger on the same targets"),
    column("expected_base_prc", pa.float64(), "baseline PRC expected from model selection (null for prior and control baselines)"),
    column("baseline_note", pa.string(), "fewer trees or rows than asked for in the baseline, and why"),
    column("halt_code", pa.string(), "why the scenario stopped adding targets (see Halting)"),
    *_prc_fields("base_", "baseline's best cut"),
    column("floor_prc", pa.float64(), "PRC of always guessing the most common value, on the same targets"),
    *_prc_fields("attack_", "attack's best cut"),
    column("alc_full_recall", pa.float64(), "ALC of the attack at recall 1 (every prediction kept) over the baseline's best"),
    column("risk_full_recall", pa.string(), "risk label of the ALC at recall 1"),
    *_prc_fields("attack_full_recall_", "attack at recall 1"),
    *(column(name, _matched_type(name), MATCHED_COVERAGE[name]) for name in MatchedCoverage.none().to_dict()),
    column("pairs", pa.int64(), "attack and baseline prediction pairs measured, one per target"),
    column("abstentions", pa.int64(), "targets the attack made no prediction for"),
    column("available_targets", pa.int64(), "targets the scenario could have attacked, its budget included"),
    column("recall_basis", pa.string(), "what recall is relative to: population, or pretargeted (the selected targets)"),
    column("seconds", pa.float64(), "the scenario's own work, in seconds"),
)


BATTERY_BASELINE = {"candidates": ["majority", "one_to_one", "hist_gradient_boosting", "random_forest"], "trees": 30}
"""The battery's ML baseline: the reference implementation's cheap candidates (its logistic regression
on wide one-hot columns costs minutes), 30 trees per forest."""
BATTERY_TOLERANCE = {"epsilon": 0.05, "relative_to": "value"}
"""How near the battery's guess of a continuous secret must be to count as right: within 5% of the person's value."""
BATTERY_PAIRS = 6400
"""The battery's budget of pairs per ALC scenario (a look of the verdict's, 50 · 2⁷). Most scenarios
settle long before it; at 3 200 a release of other people stayed inconclusive on a secret most
people share as one of two numbers (census's weeks worked: ALC 0.13, interval up to 0.51)."""


class AlcFamily(EvaluationFamily):
    name = "alc"
    criterion = "inference"
    Params = AlcParams
    fields = ALC_FIELDS
    headline = "alc"
    threshold = ALC_AT_RISK
    scale = "ALC: how much better the secret is inferred from the release than from the population alone (0: no better, 1: always right)"

    @classmethod
    def headline_interval(cls, row):
        """The ALC with its interval as the verdict judges it (``alc_dask.measure.sequential``):
        each side's precision at the ends of a Wilson interval spent over the verdict's looks, the
        worst pairing at each end; the value and the lower end shown no lower than −1 (the stored
        ``alc`` keeps its value: below −1 the baseline errs less than half as often as the attack)."""
        low, high = alc_interval(*_cuts(row), int(row["pairs"]))
        value = max(float(row["alc"]), ALC_FLOOR)
        return HeadlineInterval(value, min(low, value), max(high, value), float(row["pairs"]))

    @classmethod
    def judge(cls, row, threshold, among: int = 1):
        """As every family's, except that precision improvement at matched coverage flags too, at
        the same threshold, before the ALC's own label (``pi_flag``)."""
        from alc_dask.measure.verdict import Label

        if threshold is not None and (evidence := cls.pi_flag(row, threshold)) is not None:
            return Label.FLAGGED, evidence
        return super().judge(row, threshold, among)

    @classmethod
    def pi_flag(cls, row, threshold: float) -> str | None:
        """Flagged whatever the ALC when the attack, on the people it guesses at its best cut, is
        right so much more often than the baseline on the same people that precision improvement at
        matched coverage (Francis & Wagner 2024, §4.3) lies wholly at or past the threshold, and no
        cut of the baseline is as precise on as many (``pi_vulnerable``). The ALC pairs each side's
        best cut, chosen on its own: where the baseline is near perfect for some people (identical
        twins among other people), its best cut is theirs, and a copy that gives away everyone else
        showed an ALC no table could settle. PI's interval is spent over the looks as the ALC's is,
        at half its error (a second way to flag, Bonferroni), so a release teaching nothing is
        flagged by either with chance at most 1.5 times the ALC's alone."""
        counts = [row.get(name) for name in PI_COUNTS]
        if not row.get("pi_vulnerable") or any(count is None or count != count for count in counts):
            return None
        low, high = pi_interval(*(int(count) for count in counts), int(row["pairs"]), PI_CONFIDENCE)
        if low < threshold:
            return None
        return (
            f"{row['secret']!r} is inferred right for {float(row['pi_attack_precision']):.1%} of the {float(row['pi_coverage']):.1%} of people in the "
            f"original the attack guesses; from the population alone ({_baseline_named(row)}), {float(row['pi_base_precision']):.1%} of the same people: "
            f"precision improvement {float(row['pi']):.2f} [{low:.2f}, {high:.2f}] at matched coverage"
        )

    @classmethod
    def not_informative(cls, row):
        """When the baseline leaves no room: even an attack right for every target the scenario
        could attack would not put the interval's lower end at the threshold. Or, with an ALC below
        the threshold, the baseline right for ``LITTLE_ROOM`` or more of the people it keeps, and
        the interval at the rates seen still straddling the threshold on every target there is
        (``interval_with_every_target``): these tables cannot settle it, as for Anonymeter's risks."""
        base, attack = _cuts(row)
        available, threshold = _available(row), cls.threshold.value
        if best_provable_alc(base, int(row["pairs"]), available) < threshold:
            return (
                f"the baseline already infers {row['secret']!r} for {float(row['base_measured_precision']):.1%} of people from the population alone: "
                f"even an attack right for all {available:,} people it could attack would not show an ALC of {threshold}"
            )
        precision = base.correct / base.n if base.n else 0.0
        if precision < LITTLE_ROOM or not float(row["alc"]) < threshold:
            return None
        low, high = interval_with_every_target(base, attack, available)
        if not low < threshold <= high:
            return None
        return (
            f"the baseline already infers {row['secret']!r} right for {precision:.1%} of the {base.recall:.1%} of people it is surest of, "
            f"and the attack {attack.correct / attack.n:.1%} of the {attack.recall:.1%} it is surest of (ALC {float(row['alc']):.2f}): "
            f"at these rates even all {available:,} people it could attack would leave the interval [{low:.2f}, {high:.2f}] across {threshold}, "
            "so these tables cannot settle it"
        )

    @classmethod
    def detectable(cls, row, threshold: float) -> str | None:
        """What the targets attacked could have shown: the smallest ALC flagged on as many."""
        base, _ = _cuts(row)
        smallest = smallest_flagged_alc(base, int(row["pairs"]), threshold)
        if smallest is None:
            return None
        ran_out = "the budget" if row.get("halt_code") == HaltCode.BUDGET else "the targets"
        return f"with the {int(row['pairs']):,} targets attacked before {ran_out} ran out, an ALC above {smallest:.2f} would have been flagged"

    @classmethod
    def evidence(cls, row) -> str:
        return (
            f"{row['secret']!r} is inferred for people in the original with precision {float(row['attack_precision']):.1%} at recall "
            f"{float(row['attack_recall']):.1%}; from the population alone ({_baseline_named(row)}), {float(row['base_precision']):.1%} (ALC {float(row['alc']):.2f})"
        )

    @classmethod
    def exposed(cls, predictions, row):
        """Targets the attack inferred right among the predictions it keeps at its best cut (a
        confidence at or above the cut; none when no cut is admissible), abstentions aside."""
        attack = predictions[(predictions["side"] == "attack") & ~predictions["abstained"].eq(True)]
        kept = attack[attack["correct"].eq(True) & (attack["confidence"] >= float(row["attack_confidence_cut"]))]
        return exposed_records(kept["target"], f"{row['secret']} inferred with confidence")

    @classmethod
    def battery(cls, tables):
        """Each secret guessed from the quasi-identifiers, and from every other column the release
        holds: the nearest-row attacker who knows all of a person but the secret finds a copy, a
        near copy or a swap of their row without any control table (the ALC's baseline is already
        a model trained without the person). A continuous secret is right within ``BATTERY_TOLERANCE``
        of the person's value (Francis & Wagner 2024, §4.3), not in one of 20 uniform bins: a few
        wide bins hold most people of a skewed column, so any model lands in the right one (on a
        20%-swapped adult, fnlwgt's ALC is 0.29 by bins and 0.71 [0.60, 0.80] within 5%; on a
        bootstrap of other people −0.03 [−0.20, 0.14])."""
        released = set(tables.release.columns)
        entries = []
        for secret in tables.secrets:
            quasi = [c for c in tables.quasi_identifiers if c != secret and c in released]
            others = [c for c in tables.columns if c != secret and c in released]
            scored = {"tolerance": BATTERY_TOLERANCE} if tables.is_continuous(secret) else {}
            for known in (quasi, others):
                entry = {"secret": secret, "known": known, **scored}
                if known and entry not in entries:
                    entries.append(entry)
        return entries

    @classmethod
    def battery_settings(cls):
        """The ML baseline (the majority, histogram boosting or a forest, as model selection
        chooses) and a budget of pairs per scenario, within which halting waits for the interval."""
        return {"baselines": ["ml"], "baseline_settings": BATTERY_BASELINE, "halting": {"max_pairs": BATTERY_PAIRS}}

    Entry = ExplicitScenario
    JobSettings = AlcJobSettings
    generators = GENERATORS
    run_dependent = frozenset({"seconds"})

    @classmethod
    def check_examples(cls, columns: tuple[str, ...]) -> CheckExamples:
        """A categorical secret from four columns, and every other column known of a yes/no secret
        (a generator's entry); a forest of 10 trees is baseline enough for 300 rows."""
        return CheckExamples(
            [{"secret": "occupation", "known": ["age", "sex", "region", "education"]}, {"generate": "each_column", "secrets": ["married"]}],
            job_settings={"baseline_settings": {"trees": 10}},
        )

    @classmethod
    def plan(cls, entry: ExplicitScenario, context, where: str):
        """An explicit scenario: one evaluation per attack and baseline (the job's unless it names its own)."""
        return entry.plan(context, where)

    @classmethod
    def scored_settings(cls, settings: AlcJobSettings) -> dict:
        """How scenarios are measured; which attacks, baselines, targets and tolerances are in the
        scenarios' ids instead (scenarios may be added to a job), and batching changes no result."""
        return settings.model_dump(mode="json", include={"halting", "measure", "baseline_settings", "swap_fraction", "store_values"})

    @classmethod
    def report_section(cls, scores):
        from alc_dask.families.alc.section import section

        return section(cls.name, scores)

    def identity(self) -> dict:
        """The scenario-defining parameters; measuring settings are the job's and not part of it."""
        p = self.params
        return {
            "secret": p.secret,
            "known": sorted(p.known),
            "attack": p.attack.model_dump(),
            "baseline": p.baseline,
            "targets": p.targets.model_dump(mode="json") if p.targets else None,
        } | ({"tolerance": p.tolerance.model_dump()} if p.tolerance else {})

    def describe(self) -> str:
        return self.params.secret

    def labels(self) -> dict:
        p = self.params
        return {
            "secret": p.secret,
            "known": json.dumps(sorted(p.known)),
            "attack": p.attack.name,
            "attack_params": json.dumps(p.attack.params, sort_keys=True),
            "baseline": p.baseline,
            "targets": p.targets.model_dump_json() if p.targets else None,
            "tolerance": p.tolerance.model_dump_json() if p.tolerance else None,
        }

    def shared_work(self, seed: int) -> str | None:
        """The ML baseline (``baseline.memo``): it depends on the original, the secret, the known
        columns, the settings and the seed, not on the attack or the anonymized tables."""
        p = self.params
        if p.baseline != "ml":
            return None
        settings = (p.baseline_settings, p.measure, p.tolerance)  # serialized by pydantic's core: computed for every scenario of a job
        return json.dumps([p.secret, sorted(p.known), seed, *(s.model_dump_json() if s else None for s in settings)])

    def check(self, release) -> None:
        release.usable_tables(self.params.secret, self.params.known)
        if self.params.tolerance and release.column(self.params.secret).kind is ColumnKind.CATEGORICAL:
            raise ScenarioError(f"tolerance: secret {self.params.secret!r} is categorical; a tolerance applies to continuous secrets")
        self.check_attack(release)

    def check_attack(self, release) -> None:
        """The attack's own check of the scenario (``Attack.check``)."""
        p = self.params
        p.attack.build().check(release, AttributeTask(p.secret, p.known, to_settings(p.tolerance, Tolerance) if p.tolerance else None))

    def evaluate(self, release, seed: int) -> Evaluation:
        p = self.params
        result = run_attack(
            release,
            p.secret,
            p.known,
            attack=p.attack.name,
            attack_params=p.attack.params,
            baseline=p.baseline,
            targets=p.targets,
            seed=seed,
            batch_size=p.batch_size,
            halting=to_settings(p.halting, HaltingRules),
            measure=to_settings(p.measure, MeasureSettings),
            baseline_settings=to_settings(p.baseline_settings, BaselineSettings),
            swap_fraction=p.swap_fraction,
            tolerance=to_settings(p.tolerance, Tolerance) if p.tolerance else None,
        )
        measures = {
            **{name: value for name, value in result.measures().items() if name != "seed"},  # the engine writes the scenario's seed
            **self.labels(),
            "risk": risk_label(result.alc),
            "risk_full_recall": risk_label(result.alc_full_recall),
        }
        return Evaluation(measures, prediction_table(result, release, p.store_values))


def prediction_table(result: AttackResult, release, store_values: bool) -> pa.Table:
    """The base and then the attack prediction of every target; secret values only when the job stores them."""
    pairs = result.columns
    n = len(pairs["target"])
    columns = {
        "target": pa.array(np.tile(pairs["target"], 2), pa.int64()),
        "side": pa.array(np.repeat(np.array(["base", "attack"], dtype=object), n), pa.string()),
        "correct": pa.array(np.concatenate([pairs["base_correct"], pairs["attack_correct"]])),
        "confidence": pa.array(np.concatenate([pairs["base_confidence"], pairs["attack_confidence"]]), pa.float64()),
        "abstained": pa.array(np.concatenate([np.zeros(n, dtype=bool), pairs["abstained"]])),
    }
    if store_values:
        for name, suffix in (("predicted", "code"), ("true", "true")):
            both = np.concatenate([pairs[f"base_{suffix}"], pairs[f"attack_{suffix}"]])
            values = (
                (both + release.column(result.secret).origin).astype(object) if result.tolerance else release.decode(result.secret, both)
            )  # numbers as they are
            columns[name] = pa.array(_as_text([None if value != value else value for value in values]), pa.string())
    return pa.table(columns)


def _baseline_named(row) -> str:
    """The baseline's model as stored (the attack on other people, a model, the floor), else its kind."""
    model = row.get("model")
    return str(model) if isinstance(model, str) and model else f"{row['baseline']} baseline"


def _as_text(values) -> list:
    return [None if value is None else str(value) for value in values]


def _cuts(row) -> tuple[Cut, Cut]:
    """The baseline's and the attack's best cuts of a stored row, as counts."""
    return tuple(Cut(int(row[f"{side}_n"]), int(row[f"{side}_correct"]), float(row[f"{side}_recall"])) for side in ("base", "attack"))


def _available(row) -> int:
    """Targets the scenario could attack (rows stored before ``available_targets`` existed: the pairs made)."""
    value = row.get("available_targets")
    return int(row["pairs"]) if value is None or value != value else int(value)
