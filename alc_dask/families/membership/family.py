"""Membership inference (Francis & Wagner 2024, §5): can the release tell who is in the data, at a
realistic base rate?

Members are records of the original table (those the release was made from), non-members records of
the control table (kept out of it). An attack scores every record; the scores' ROC gives the
precision of calling the top-scored people members at any observational skew M:N, which is
compared with guessing that everyone is a member (precision ``M / (M + N)``). Results keep the ROC
as counts, so precision at a skew nobody asked for can be computed later from the scores dataset.
A verdict over several membership evaluations of one release takes the strongest with Bonferroni's
correction for the choice (``Membership.corrected_headline_interval``), recomputed from those counts.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated, Any, Literal

import numpy as np
import pyarrow as pa
from pydantic import Field, field_validator, model_validator

from alc_dask.attacks.base import AttackKind
from alc_dask.attacks.prepared import prepared_state
from alc_dask.attacks.registry import build_attack
from alc_dask.data import Release, ScenarioError
from alc_dask.families.base import CheckExamples, Evaluation, EvaluationFamily, FamilyParams, HeadlineInterval, column, exposed_records
from alc_dask.families.membership.attacks import MembershipRecords, MembershipTask
from alc_dask.families.membership.dp import dp_audit_measures, epsilon_breach
from alc_dask.families.wp29.common import ChosenColumns, check_columns
from alc_dask.measure import DEFAULT_SKEWS, FPR_TARGETS, Roc, SettingError, Skew, alc, prc, risk_label
from alc_dask.measure.interval import z_score
from alc_dask.measure.membership import paired_auc_interval
from alc_dask.measure.verdict import ALC_AT_RISK
from alc_dask.seeds import sample_rows, stream
from alc_dask.shown import shown

BATTERY_ATTACKS = ("closest_distance", "distance_ratio", "density_ratio")
"""The battery's membership attacks: the closest distance is the plain test a custodian would run
first (AUC 0.75–0.80 on noisy copies where the distance ratio's precision stayed at chance);
``density_ratio`` (k-nearest densities) adds power at low false-positive rates where a release holds
near copies (adult's noisy copy: TPR at FPR 1% 0.377 against ``distance_ratio``'s 0.292). They share
one search of the release."""
SEPARATING_AUC = 0.6
"""The AUC from which a membership attack's scores tell members apart, whatever the precision at the
skew: a lower end of 0.6 is a separation no release of other people shows (0.50–0.53 on the null
releases of the generators benchmark) and that noisy copies exceed (0.75–0.80)."""
REFERENCE_SKEW = "1:100"
"""The skew of the headline when the job gives none: one person in a hundred is in the release."""

_AT_SKEW = pa.struct(
    [
        ("skew", pa.string()),
        ("baseline", pa.float64()),
        ("precision", pa.float64()),
        ("precision_low", pa.float64()),
        ("precision_high", pa.float64()),
        ("recall", pa.float64()),
        ("above_baseline", pa.bool_()),
        ("alc", pa.float64()),
        ("at_recall", pa.list_(pa.struct([("recall", pa.float64()), ("precision", pa.float64())]))),
    ]
)
_AT_FPR = pa.struct([(name, pa.float64()) for name in ("fpr_target", "fpr", "tpr", "tpr_low", "tpr_high")])

MEMBERSHIP_FIELDS = (
    column("attack", pa.string(), "the membership attack's registered name"),
    column("known", pa.string(), "the columns the attack searched, as a sorted JSON list"),
    column("n_members", pa.int64(), "members scored: original records"),
    column("n_non_members", pa.int64(), "non-members scored: control records (without a control table, `reference: original`: other original records)"),
    column("auc", pa.float64(), "area under the attack's ROC"),
    column("auc_low", pa.float64(), "lower end of the AUC's interval at the confidence level (DeLong's variance)"),
    column("auc_high", pa.float64(), "upper end of the AUC's interval at the confidence level (DeLong's variance)"),
    column("skew", pa.string(), "the attacker's skew, members:non-members among the people looked at (the headline's)"),
    column("baseline_precision", pa.float64(), "at the attacker's skew, precision of guessing that everyone is a member: M / (M + N)"),
    column("best_precision", pa.float64(), "at the attacker's skew, the best precision the data supports (highest lower bound)"),
    column("best_precision_low", pa.float64(), "lower end of the best precision's interval"),
    column("best_precision_high", pa.float64(), "upper end of the best precision's interval"),
    column("best_recall", pa.float64(), "recall (share of members found) at the best precision"),
    column("above_baseline", pa.bool_(), "whether the best precision is above the all-member guess"),
    column("membership_alc", pa.float64(), "at the attacker's skew, the ALC of the attack over the all-member guess"),
    column("risk", pa.string(), "risk label of the membership ALC: no loss, safe, at risk or serious"),
    column("tpr_at_fpr", pa.list_(_AT_FPR), "TPR at each target FPR the non-members resolve, with the FPR reached and the TPR's Wilson interval"),
    column(
        "precision_at_skews",
        pa.list_(_AT_SKEW),
        "per skew of the grid and the attacker's: the best precision, its interval and recall, the ALC, precision at recalls",
    ),
    column("roc_false_positives", pa.list_(pa.int64()), "the ROC as counts: non-members scored at or above each distinct threshold, highest first"),
    column("roc_true_positives", pa.list_(pa.int64()), "the ROC as counts: members scored at or above each distinct threshold, highest first"),
    column("confidence_level", pa.float64(), "confidence level of the intervals"),
    column("generator", pa.string(), "how the release was made, as its job declares it (release.generator), as JSON; null when not declared"),
    column("epsilon_declared", pa.float64(), "the ε the release's generator declares (release.generator.epsilon); null when none"),
    column("delta_declared", pa.float64(), "the δ the release's generator declares beside its ε (release.generator.delta); null when none"),
    column(
        "epsilon_lower_bound",
        pa.float64(),
        "the ε the attack's ROC proves at least, at the declared δ (else 0) and the confidence level, for every threshold at once (DP auditing)",
    ),
)


class MembershipParams(FamilyParams):
    attack: str = "distance_ratio"
    attack_params: dict[str, Any] = {}
    columns: ChosenColumns | None = None
    """Columns the attacker knows of a record; default: every column of the attacked anonymized table."""
    table: Annotated[int, Field(ge=0)] = 0
    """Which anonymized table of the release is attacked."""
    n_members: Annotated[int, Field(ge=1)] = 20_000
    """Members scored at most (a seeded sample of the original table when it has more rows)."""
    n_non_members: Annotated[int, Field(ge=1)] = 20_000
    sample_seed: Annotated[int, Field(ge=0)] = 0
    """Seed of the samples: the same people for every attack (a paired comparison, and distances
    measured once), whatever the job's seed."""
    skews: tuple[str, ...] = DEFAULT_SKEWS
    """The grid of skews (members:non-members) every evaluation reports."""
    skew: str | None = None
    """The skew of the attacker's situation, e.g. 1:240 (the headline's); or give ``population``."""
    population: Annotated[int, Field(ge=2)] | None = None
    """How many people the attacker's targets come from, the release's included: the skew is the
    original table's rows to the rest."""
    confidence_level: Annotated[float, Field(gt=0, lt=1)] = 0.95
    """Of the precisions' and TPRs' intervals, and of the lower bound on ε (for every threshold at once)."""
    reference: Literal["control", "original"] = "control"
    """Who the members are told apart from: the control table's people, or, without one
    (``original``, attack ``closest_distance``), the same people as if they were not in the
    release: each of up to ``n_members`` original records is scored twice by closest over
    second-closest distance (``attacks.closeness_without_control``), once against the release
    and once against the original's other rows, and the AUC's interval is the paired one
    (``measure.membership.paired_auc_interval``)."""

    @field_validator("skews")
    @classmethod
    def _parsed_skews(cls, skews: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(str(Skew.parse(s)) for s in skews)

    @field_validator("skew")
    @classmethod
    def _parsed_skew(cls, skew: str | None) -> str | None:
        return None if skew is None else str(Skew.parse(skew))

    @model_validator(mode="after")
    def _one_situation(self):
        if self.skew is not None and self.population is not None:
            raise ValueError(f"give skew ({self.skew}) or population ({self.population}), not both")
        return self

    @model_validator(mode="after")
    def _reference_attack(self):
        if self.reference == "original" and self.attack != "closest_distance":
            raise ValueError(f"reference: original compares closest distances; attack {self.attack!r} needs a control table (reference: control)")
        return self

    @model_validator(mode="after")
    def _buildable_attack(self):
        self.build_attack()
        return self

    def build_attack(self):
        """The membership attack named, built with its parameters; a ``ValueError`` names the field at fault."""
        try:
            return build_attack(self.attack, AttackKind.MEMBERSHIP, **self.attack_params)
        except SettingError as error:
            if error.field == "name":
                raise ValueError(f"attack: {error}") from None
            raise ValueError(f"attack_{error.field}: must be {error.expected}; got {shown(error.value)}") from None


class Membership(EvaluationFamily):
    name = "membership"
    criterion = "membership"
    Params = MembershipParams
    headline = "membership_alc"
    threshold = ALC_AT_RISK
    scale = "the ALC of calling the top-scored people members over guessing that everyone is, at the attacker's skew"

    @classmethod
    def battery(cls, tables):
        """With a control table, each of ``BATTERY_ATTACKS`` at the population's skew: the verdict
        takes the strongest, corrected for the choice. Without one, the closest distance against
        the original's other people (``reference: original``): a copy, a near copy or a swap must
        not pass for want of a control table."""
        population = max(tables.population, len(tables.original) + 1)
        if not tables.has_control:
            return [{"family": cls.name, "attack": "closest_distance", "reference": "original", "population": population}]
        return [{"family": cls.name, "attack": attack, "population": population} for attack in BATTERY_ATTACKS]

    @classmethod
    def headline_interval(cls, row):
        """The membership ALC with the best precision at the ends of its interval."""
        precision = (float(row["best_precision_low"]), float(row["best_precision_high"]))
        return _alc_interval(row, float(row["baseline_precision"]), precision, float(row["best_recall"]))

    @classmethod
    def chosen_among(cls, scores) -> list[int]:
        """Every membership evaluation of a release asks whether the release tells its members apart,
        and the verdict takes the worst: each counts the release's membership evaluations (several
        attacks, columns, tables or skews)."""
        if "release" not in scores:
            return [len(scores)] * len(scores)
        return scores.groupby("release", sort=False, dropna=False)["release"].transform("size").astype(int).tolist()

    @classmethod
    def corrected_headline_interval(cls, row, among: int):
        """Bonferroni's correction for the strongest of ``among`` evaluations: the best precision's
        interval at confidence ``1 − α/among`` (α = 1 − the row's confidence level), recomputed from
        the ROC counts the row keeps, and the best lower bound taken at that level. If no attack can
        tell members apart, each interval misses with chance at most α/among, so the maximum over
        the ``among`` claims a leak with chance at most α, whichever attack it turns out to be."""
        if among <= 1:
            return cls.headline_interval(row)
        roc = Roc.from_counts(row["roc_false_positives"], row["roc_true_positives"], row["n_members"], row["n_non_members"])
        at = roc.precision_at(Skew.parse(row["skew"]), 1.0 - (1.0 - float(row["confidence_level"])) / among)
        return _alc_interval(row, at.baseline, (at.precision_low, at.precision_high), at.recall)

    @classmethod
    def evidence(cls, row) -> str:
        return (
            f"at {row['skew']} (members:non-members), calling the top-scored people members is right {float(row['best_precision']):.1%} of the time "
            f"at recall {float(row['best_recall']):.1%}; guessing everyone a member, {float(row['baseline_precision']):.1%}"
        )

    @classmethod
    def breaches(cls, row, among: int = 1) -> str | None:
        """Flagged whatever the ALC when the attack proves a larger ε than the release's generator
        declares (the generator does not keep its promise, or the release was not made as
        declared), or when its scores tell members from other people plainly: the AUC's interval,
        corrected as the headline's for the worst of ``among``, lies wholly at or above
        ``SEPARATING_AUC``. The precision at a realistic skew can stay low on a release whose every
        member a distance test finds more often than chance (AUC 0.75 on noisy copies, with a
        membership ALC of 0.49); such a release is not safe to publish, so it cannot pass."""
        if (breach := epsilon_breach(row)) is not None:
            return breach
        return separating_auc(row, among)

    @classmethod
    def judge(cls, row, threshold, among: int = 1):
        """As every family's, except that a pass whose AUC's interval straddles ``SEPARATING_AUC`` is
        inconclusive: the verdict's rule, an interval against its threshold, applied to the AUC too
        (a 5% noisy copy of a table of categories, checked without a control table, passed with an
        AUC of 0.611 [0.597, 0.626])."""
        from alc_dask.measure.verdict import Label

        label, replaced = super().judge(row, threshold, among)
        if label is Label.PASS and (clause := unsettled_auc(row, among)) is not None:
            return Label.INCONCLUSIVE, f"{cls.evidence(row)}; {clause}"
        return label, replaced

    @classmethod
    def exposed(cls, predictions, row):
        """The members scored at or above the cut of the attacker's best precision: the highest
        score keeping as many members as its recall says."""
        members = predictions.loc[predictions["side"] == "member", ["target", "confidence"]]
        if members.empty:
            return exposed_records([], "")
        scores = np.sort(np.unique(predictions["confidence"].to_numpy(dtype=float)))[::-1]
        found = np.cumsum(np.bincount(np.searchsorted(-scores, -members["confidence"].to_numpy(dtype=float)), minlength=scores.size))
        cut = scores[np.searchsorted(found, round(float(row["best_recall"]) * len(members)))]
        return exposed_records(members.loc[members["confidence"] >= cut, "target"], "found to be a member")

    @classmethod
    def check_examples(cls, columns: tuple[str, ...]) -> CheckExamples:
        """Both built-in attacks on every member and non-member, at the default skew and at a
        population's, and the closest distance without the control table (half of the demo's 300 people
        on each side, at a skew their 150 can resolve)."""
        people = {"n_members": 300, "n_non_members": 300}
        return CheckExamples(
            [
                {"attack": "distance_ratio", **people},
                {"attack": "closest_distance", "population": 30_000, **people},
                {"attack": "closest_distance", "reference": "original", "skew": "1:10", **people},
            ]
        )

    @classmethod
    def report_section(cls, scores):
        from alc_dask.families.membership.section import section

        return section(cls.name, scores)

    fields = MEMBERSHIP_FIELDS

    def identity(self) -> dict:
        """All parameters; ``reference`` only when not the control table, so that evaluations
        written before it existed keep their ids (and resume)."""
        identity = super().identity()
        if identity["reference"] == "control":
            del identity["reference"]
        return identity

    def describe(self) -> str:
        return f"membership {self.params.attack}" + (" without control" if self.params.reference == "original" else "")

    def labels(self) -> dict:
        return {"attack": self.params.attack}

    def shared_work(self, seed: int) -> str | None:
        """The distances to the anonymized table: the same for every attack on the same people, whatever the seed."""
        p = self.params
        return json.dumps(["membership", p.table, p.columns, p.n_members, p.n_non_members, p.sample_seed, p.reference])

    def check(self, release: Release) -> None:
        p = self.params
        if p.table >= len(release.anonymized):
            raise ScenarioError(f"membership: table: {p.table} is not an anonymized table of the release (it has {len(release.anonymized)})")
        if release.control is None and p.reference == "control":
            raise ScenarioError("membership: the release has no control table (release.control): non-members are original records kept out of the release")
        anonymized = release.anonymized[p.table]
        check_columns(release, anonymized, "columns", self._columns(release))
        if p.population is not None:
            try:
                Skew.of_population(release.original.n_rows, p.population)
            except ValueError as error:
                raise ScenarioError(f"membership: {error}") from None
        p.build_attack().check(release, self.task(release))

    def evaluate(self, release: Release, seed: int) -> Evaluation:
        self.check(release)
        task = self.task(release)
        attack, records = self.params.build_attack(), MembershipRecords(release, task, seed)
        scores = np.asarray(attack.score(prepared_state(attack, release, task), records), dtype=float)
        if scores.shape != (records.n_records,):
            raise ValueError(f"membership attack {self.params.attack!r} gave {scores.shape} scores for {records.n_records} records")
        members, non_members = scores[: task.n_members], scores[task.n_members :]
        roc = Roc.from_scores(members, non_members)
        predictions = pa.table(
            {
                "target": np.concatenate([task.member_rows, task.control_rows]),
                "side": ["member"] * task.n_members + ["non_member"] * task.control_rows.size,
                "confidence": scores,
            }
        )
        paired = paired_auc_interval(members, non_members, self.params.confidence_level) if task.reference == "original" else None
        measures = _measures(self.params, roc, self._skew(release), task.columns, paired) | dp_audit_measures(
            roc, release.generator, self.params.confidence_level
        )
        return Evaluation(measures, predictions)

    def task(self, release: Release) -> MembershipTask:
        """The people scored (a seeded sample of each side, the same for every attack) and what they are scored against."""
        p = self.params
        rng = stream(p.sample_seed, "membership sample")
        if p.reference == "original":
            return _split_original(p, release, self._columns(release), rng)
        member_rows = sample_rows(release.original.n_rows, p.n_members, rng)
        return MembershipTask(p.table, self._columns(release), member_rows, sample_rows(release.control.n_rows, p.n_non_members, rng))

    def _skew(self, release: Release) -> Skew:
        p = self.params
        if p.population is not None:
            return Skew.of_population(release.original.n_rows, p.population)
        return Skew.parse(p.skew or REFERENCE_SKEW)

    def _columns(self, release: Release) -> tuple[str, ...]:
        return tuple(self.params.columns) if self.params.columns else tuple(release.anonymized[self.params.table].columns)


def auc_interval(row, among: int = 1) -> tuple[float, float]:
    """The AUC's interval at confidence ``1 − α/among`` (NaN when not measured): the stored one,
    widened by the ratio of the normal quantiles (both the independent and the paired interval are
    normal, and the stored ends keep the pairing the counts have lost)."""
    low, high = (float(row.get(end, float("nan"))) for end in ("auc_low", "auc_high"))
    if among <= 1:
        return low, high
    auc, level = float(row["auc"]), float(row["confidence_level"])
    half = max(auc - low, high - auc) * z_score(1.0 - (1.0 - level) / among) / z_score(level)
    return max(0.0, auc - half), min(1.0, auc + half)


def unsettled_auc(row, among: int = 1) -> str | None:
    """The clause of an AUC whose interval straddles ``SEPARATING_AUC``, else None: such scores may
    separate members from other people as plainly as a flag needs, so the release cannot pass on them."""
    low, high = auc_interval(row, among)
    if not (low < SEPARATING_AUC <= high):
        return None
    return f"the attack's AUC {float(row['auc']):.3f} [{low:.3f}, {high:.3f}] reaches {SEPARATING_AUC}, where scores tell members apart: these tables cannot rule it out"


def separating_auc(row, among: int = 1) -> str | None:
    """The evidence of scores separating members from other people (the AUC's interval at
    confidence ``1 − α/among`` wholly at or above ``SEPARATING_AUC``), else None."""
    low, high = auc_interval(row, among)
    if not low >= SEPARATING_AUC:  # NaN: not measured
        return None
    return (
        f"the attack's scores tell members from other people: AUC {float(row['auc']):.3f} [{low:.3f}, {high:.3f}] (0.5: chance; "
        f"from {SEPARATING_AUC} the release is flagged whatever its precision at {row['skew']}, "
        f"{float(row['best_precision']):.1%} at recall {float(row['best_recall']):.1%})"
    )


def _alc_interval(row, baseline: float, precision: tuple[float, float], recall: float) -> HeadlineInterval:
    """The row's membership ALC, between the ALCs of ``precision``'s ends at ``recall`` over the all-member guess."""
    ends = [float(alc(prc(baseline, 1.0), prc(end, recall))) for end in precision]
    value = float(row["membership_alc"])
    return HeadlineInterval(value, min(ends[0], value), max(ends[1], value), float(row["n_members"]) + float(row["n_non_members"]))


def _split_original(p: MembershipParams, release: Release, columns: tuple[str, ...], rng: np.random.Generator) -> MembershipTask:
    """Without a control table: up to ``n_members`` of the original's people, each scored as a
    member and as a non-member (at most as many as the release has rows plus one, the rows each is
    searched among). Splitting them in halves instead scored half as many on each side: a 10%
    noisy copy of a table of categories, AUC 0.64 against a control table, stayed inconclusive or
    passed."""
    n_rows, released = release.original.n_rows, release.anonymized[p.table].n_rows
    people = np.sort(rng.permutation(n_rows)[: min(p.n_members, n_rows, released + 1)])
    return MembershipTask(p.table, columns, people, people, reference="original")


def _measures(p: MembershipParams, roc: Roc, situation: Skew, columns: tuple[str, ...], paired_interval: tuple[float, float] | None) -> dict:
    """The evaluation's row: the ROC (its AUC's interval the paired one where each person was
    scored on both sides), and precision at every skew of the grid and at the attacker's."""
    skews = [Skew.parse(s) for s in p.skews] + ([situation] if str(situation) not in p.skews else [])
    at_skews = [roc.precision_at(skew, p.confidence_level) for skew in skews]
    headline = roc.precision_at(situation, p.confidence_level)
    return {
        "attack": p.attack,
        "known": json.dumps(sorted(columns)),
        "n_members": roc.n_members,
        "n_non_members": roc.n_non_members,
        "auc": roc.auc(),
        **dict(zip(("auc_low", "auc_high"), paired_interval or roc.auc_interval(p.confidence_level))),
        "skew": str(situation),
        "baseline_precision": headline.baseline,
        "best_precision": headline.precision,
        "best_precision_low": headline.precision_low,
        "best_precision_high": headline.precision_high,
        "best_recall": headline.recall,
        "above_baseline": headline.above_baseline,
        "membership_alc": headline.alc,
        "risk": risk_label(headline.alc),
        "tpr_at_fpr": [asdict(point) for point in roc.tpr_at_fpr(FPR_TARGETS, p.confidence_level)],
        "precision_at_skews": [{**asdict(a), "at_recall": [{"recall": r, "precision": q} for r, q in a.at_recall]} for a in at_skews],
        "roc_false_positives": roc.false_positives.tolist(),
        "roc_true_positives": roc.true_positives.tolist(),
        "confidence_level": p.confidence_level,
    }
