"""What Anonymeter's three evaluators (the WP29 criteria: singling out, linkability, inference)
share: parameters, the tables they read, and the measures they write.

Each attacks records of the original table (members of the release) and the same number of records
of the control table (non-members): the control's success is what the release teaches about anyone,
so the risk counts only the excess. A random baseline checks that the attack is an attack at all.
Their predictions name the records attacked (rows of the original, side ``attack``; of the control,
side ``control``) and whether the attack hit them, so that a custodian can see who is exposed.

**Without a control table** (``reference: original``) the members' success through the release is
compared with their success through the original's other people, the same attack on the same
people, each searched among rows of everyone but themselves (``OthersOfTheOriginal``): the release
cut to at most the original's size less one, the original to at most the release's size plus one,
so that each person meets as many rows on both sides. A release of other people of the same
population is then, for every person, a sample of others as large as the one it is compared with,
and the two successes differ by chance alone; a release made from its members succeeds more on
them. The control side's predictions are then the same members (side ``others``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, ClassVar, Literal

import numpy as np
import pyarrow as pa
from pydantic import AfterValidator, Field

from alc_dask.data import EncodedTable, Release, ScenarioError
from alc_dask.data.partitioned import whole
from alc_dask.families.base import EvaluationFamily, FamilyParams, HeadlineInterval, column, exposed_records
from alc_dask.measure import AttackCounts
from alc_dask.measure.verdict import REIDENTIFICATION, one_sided

WP29_FIELDS = (
    column("privacy_risk", pa.float64(), "the members' excess success over the control's: (attack - control) / (1 - control), in [0, 1]"),
    column("privacy_risk_low", pa.float64(), "lower end of the privacy risk's interval"),
    column("privacy_risk_high", pa.float64(), "upper end of the privacy risk's interval"),
    column("attack_rate", pa.float64(), "the attack's success rate on original records (members), Wilson-corrected"),
    column("attack_rate_err", pa.float64(), "the attack rate's error (half its interval)"),
    column("baseline_rate", pa.float64(), "the random baseline's success rate, Wilson-corrected"),
    column("baseline_rate_err", pa.float64(), "the baseline rate's error (half its interval)"),
    column("control_rate", pa.float64(), "the attack's success rate on control records (non-members), Wilson-corrected"),
    column("control_rate_err", pa.float64(), "the control rate's error (half its interval)"),
    column("n_attacks", pa.int64(), "attacks on original records (predicates made, for singling out)"),
    column("n_success", pa.int64(), "successful attacks on original records"),
    column("n_baseline_attacks", pa.int64(), "attacks of the random baseline"),
    column("n_baseline_success", pa.int64(), "successful attacks of the random baseline"),
    column("n_control_attacks", pa.int64(), "attacks on control records"),
    column("n_control_success", pa.float64(), "successful attacks on control records, scaled to the original's size when the tables differ"),
    column(
        "n_both_success",
        pa.float64(),
        "people both attacks won, where both attacked the same people (without a control table: each member through the release and through the original's other people); null otherwise",
    ),
    column("confidence_level", pa.float64(), "confidence level of the rates' and the risk's intervals"),
    column("beats_baseline", pa.bool_(), "whether the attack does better than the random baseline (else the risk is not meaningful)"),
    column("warning", pa.string(), "why the risk may mislead: fewer predicates than asked for, an attack that does not beat the baseline, ..."),
)

NOT_MEANINGFUL = "the attack does not beat the random baseline: the risk is not meaningful"

CONTROL_ALWAYS_SUCCEEDS = "the attack succeeds on every control record: no residual risk can be measured"

BATTERY_ATTACKS = 5000
"""Attacks of each linkability and inference evaluation of ``check``'s battery (at most the rows
there are): Anonymeter's examples use 500. The risk's interval is the rates' divided by what the
control left to gain: with a control success of 0.8, ±0.11 at 2 000 attacks and ±0.07 at 5 000, so
only the latter lets a release of other people pass 0.09 (the calibration benchmark). The search is
cheap; singling out, whose predicates cost more to make, keeps its own number."""

MAX_ATTACKS = 1_000_000
"""The most attacks a job may ask for: the work (the random baseline's above all) grows with what
is asked, whatever the table, while the rates' intervals are already about ±0.1 % wide here."""


def _some(columns: tuple[str, ...]) -> tuple[str, ...]:
    if not columns:
        raise ValueError("lists no column; leave the field out to use every column of the attacked table")
    return columns


ChosenColumns = Annotated[tuple[str, ...], AfterValidator(_some)]
"""Columns a job chooses; left out, every column of the attacked table. An empty list is refused
rather than read as every column: it is a list emptied by mistake, not a choice."""


class Wp29Family(EvaluationFamily):
    """What Anonymeter's three evaluators share: their measures, headline (the privacy risk) and report section."""

    fields = WP29_FIELDS
    headline = "privacy_risk"
    threshold = REIDENTIFICATION
    scale = "Anonymeter's privacy risk: the attack's success beyond what it achieves on people not in the release"

    control_always_right: ClassVar[str] = (
        "the attack succeeds on every person not in the release as well: its success owes nothing to the release, whose risk cannot be measured"
    )
    """Why an evaluation whose attack succeeded on every control record cannot speak of the release."""

    def identity(self) -> dict:
        """All parameters, ``reference`` left out when it is the control table: evaluations from before it existed keep their ids and seeds."""
        identity = super().identity()
        if identity.get("reference") == "control":
            del identity["reference"]
        return identity

    @classmethod
    def headline_interval(cls, row):
        """The risk's stored interval, and its one-sided upper bound (``measure.verdict.one_sided``)
        recomputed from the counts, which a pass is read from."""
        value, low, high = (float(row[name]) for name in ("privacy_risk", "privacy_risk_low", "privacy_risk_high"))
        counted = bool(row.get("n_attacks")) and all(_known(row.get(name)) for name in ("n_success", "n_control_attacks", "n_control_success"))
        pass_high = _counts(row).measures(one_sided(_confidence(row)))["privacy_risk_high"] if counted else float("nan")
        return HeadlineInterval(value, low, high, float(row["n_attacks"]), pass_high)

    @classmethod
    def not_informative(cls, row):
        """The attack succeeded on every control record (``CONTROL_ALWAYS_SUCCEEDS``): what it wins on
        members it wins on anyone, and no residual risk can be measured. Or the attacks were too
        few for any outcome to flag the release (``AttackCounts.smallest_flagged``): two predicates
        both singling someone out still leave the risk's interval reaching 0, so the evaluation can
        neither flag nor clear the release and only blocks a verdict it has no say in. Or, not
        flagged, the control left too little to gain for any outcome to clear the release
        (``AttackCounts.uncleared_reach``): a secret 92% of people not in the release are
        inferred right on divides the rates' error by 0.08, and a release of other people stayed
        inconclusive; a flag still stands."""
        attacks, successes = row.get("n_control_attacks"), row.get("n_control_success")
        if attacks and successes is not None and successes >= attacks:
            return cls.control_always_right
        counts, threshold = _counts(row), cls.threshold.value
        if counts.smallest_flagged(threshold, _confidence(row)) is None:
            made = int(row.get("n_attacks") or 0)
            return f"{cls.too_few_attacks(made)}: even if every one succeeded, the risk's interval could not reach {threshold}"
        if cls.headline_interval(row).low < threshold and (reach := counts.uncleared_reach(threshold, _confidence(row))) is not None:
            return (
                f"the attack succeeds on {float(row['control_rate']):.1%} of people not in the release: even one doing no better on the release's people "
                f"would leave the risk's interval reaching {reach:.2f}, past {threshold}, so these tables cannot clear the release of it"
            )
        return None

    @classmethod
    def too_few_attacks(cls, made: int) -> str:
        """What was too few, in the family's words."""
        return f"only {made:,} attacks could be made"

    @classmethod
    def detectable(cls, row, threshold: float) -> str | None:
        """The smallest risk the attacks made could have flagged (the other counts as they are)."""
        smallest = _counts(row).smallest_flagged(threshold, _confidence(row))
        return None if smallest is None else f"with these tables, a {cls.headline} above {smallest:.2f} would have been flagged"

    @classmethod
    def report_section(cls, scores):
        from alc_dask.families.wp29.section import section

        return section(cls.name, scores)

    @classmethod
    def exposed(cls, predictions, row):
        """The original's records the attack hit (side ``attack``, right)."""
        hit = predictions[(predictions["side"] == "attack") & predictions["correct"].eq(True)]
        return exposed_records(hit["target"], cls.exposure(row))

    @classmethod
    def exposure(cls, row: Mapping) -> str:
        """What a hit says of a record, in a few words and never a value of the data."""
        raise NotImplementedError


def by_reference(row: Mapping, control: str, original: str) -> str:
    """``control`` or ``original``: the evidence's words for whom a stored row's members were set against (its ``params``' ``reference``)."""
    params = row.get("params")
    reference = json.loads(params).get("reference") if isinstance(params, str) else None
    return original if reference == "original" else control


def hidden_by_noise(row: Mapping) -> str:
    """Without a control table (``reference: original``), the caveat of a release that serves its
    members worse than the original's other people do, by more than the two rates' errors combined:
    a noisy copy of the members and a noisier release of other people then look alike, and only a
    control table tells them apart (the calibration benchmark's 20% noisy copies); else ""."""
    params = row.get("params")
    if not isinstance(params, str) or json.loads(params).get("reference") != "original":
        return ""
    gap = float(row["control_rate"]) - float(row["attack_rate"])
    if not gap > math.hypot(float(row["attack_rate_err"]), float(row["control_rate_err"])):
        return ""
    return "; the original's other people serve them better than the release does, so a leak covered by the release's noise cannot show here: give a control table to tell"


def _counts(row: Mapping) -> AttackCounts:
    """A stored row's counts (a missing one as none)."""

    def count(name: str) -> float:
        value = row.get(name)
        return 0.0 if value is None or value != value else float(value)

    names = ("n_attacks", "n_success", "n_baseline_attacks", "n_baseline_success", "n_control_attacks")
    both = row.get("n_both_success")
    paired = None if both is None or both != both else int(both)
    return AttackCounts(*(int(count(name)) for name in names), count("n_control_success"), paired)


def _known(value) -> bool:
    return value is not None and value == value


def _confidence(row: Mapping) -> float:
    level = row.get("confidence_level")
    return 0.95 if level is None or level != level else float(level)


class Wp29Params(FamilyParams):
    """Parameters every WP29 evaluator takes."""

    n_attacks: Annotated[int, Field(ge=1, le=MAX_ATTACKS)] = 500
    table: Annotated[int, Field(ge=0)] = 0
    """Which anonymized table of the release is attacked (its position in ``release.anonymized``)."""
    confidence_level: Annotated[float, Field(gt=0, lt=1)] = 0.95
    reference: Literal["control", "original"] = "control"
    """Who the members' success is compared with: the control table's people, or, without one
    (``original``), the members themselves attacked through the original's other people (see the module)."""


def attacked_table(release: Release, params: Wp29Params, family: str):
    """The anonymized table attacked, as the release holds it, or a ``ScenarioError`` naming what
    is missing (the table, or the control table the comparison needs). What ``check`` reads of it,
    its columns and rows, needs none of its rows gathered: planning checked every evaluation of a
    release kept in parts by gathering its tables into the client."""
    if params.table >= len(release.anonymized):
        raise ScenarioError(f"{family}: table: {params.table} is not an anonymized table of the release (it has {len(release.anonymized)})")
    if params.reference == "control" and release.control is None:
        raise ScenarioError(
            f"{family}: the release has no control table (release.control): it needs original records not used for the release, or reference: original"
        )
    return release.anonymized[params.table]


def attacked_tables(release: Release, params: Wp29Params, family: str) -> tuple[EncodedTable, EncodedTable | None]:
    """The anonymized table and the control table in this process (gathered from a cluster's
    workers: Anonymeter's evaluators search whole tables; no control with ``reference: original``),
    or a ``ScenarioError`` naming what is missing."""
    anonymized = whole(attacked_table(release, params, family))
    return anonymized, None if params.reference == "original" else whole(release.control)


@dataclass(frozen=True)
class OthersOfTheOriginal:
    """Without a control table: the attacked table and the original's rows each member is compared
    through, at one size (``size`` rows for every member on both sides; see the module)."""

    released: EncodedTable
    """The anonymized table, or ``size`` of its rows drawn at random when it has more."""
    others: EncodedTable
    """``size + 1`` rows of the original (all of them when it has no more): each member among them
    is searched among the others."""
    rows: np.ndarray
    """``others``' rows in the original's numbering."""

    @classmethod
    def of(cls, original: EncodedTable, anonymized: EncodedTable, rng: np.random.Generator) -> OthersOfTheOriginal:
        size = min(anonymized.n_rows, original.n_rows - 1)
        if size < 1:
            raise ScenarioError(f"reference: original needs two rows of the original or more to compare a person with others; it has {original.n_rows}")
        kept = np.arange(original.n_rows) if size + 1 == original.n_rows else np.sort(rng.choice(original.n_rows, size + 1, replace=False))
        released = anonymized if size == anonymized.n_rows else anonymized.rows(np.sort(rng.choice(anonymized.n_rows, size, replace=False)))
        return cls(released, original.rows(kept), kept)

    def attacked(self, wanted: int, rng: np.random.Generator) -> np.ndarray:
        """Positions in ``others`` of the members attacked: ``wanted`` of them drawn at random, or all, in order."""
        return np.sort(rng.choice(self.others.n_rows, min(wanted, self.others.n_rows), replace=False))


def without_own_rows(found: np.ndarray, own: np.ndarray) -> np.ndarray:
    """(q, k) of ``found`` (q, k + 1 nearest rows among a table holding each query's own row ``own``):
    each query's own row dropped, or its (k + 1)-th nearest where identical rows ranked before it."""
    is_own = found == own[:, None]
    dropped = np.where(is_own.any(axis=1), is_own.argmax(axis=1), found.shape[1] - 1)
    kept = np.ones(found.shape, dtype=bool)
    kept[np.arange(found.shape[0]), dropped] = False
    return found[kept].reshape(found.shape[0], found.shape[1] - 1)


def check_columns(release: Release, anonymized, field: str, columns) -> None:
    for name in columns:
        if name not in release.columns:
            raise ScenarioError(f"{field}: {name!r} is not a column of the release; it has {list(release.columns)}")
        if name not in anonymized.columns:
            raise ScenarioError(f"{field}: column {name!r} is not in the anonymized table {anonymized.name}")


def wp29_measures(counts: AttackCounts, confidence_level: float, warnings: list[str]) -> dict:
    """The measures row of a WP29 evaluation: rates, risk, the raw counts, warnings."""
    measures = counts.measures(confidence_level)
    if not measures["beats_baseline"]:
        warnings = [*warnings, NOT_MEANINGFUL]
    measurable = measures["privacy_risk"] == measures["privacy_risk"]
    if not measurable:
        warnings = [*warnings, CONTROL_ALWAYS_SUCCEEDS]
    return {
        **measures,
        "n_attacks": counts.n_attacks,
        "n_success": counts.n_success,
        "n_baseline_attacks": counts.n_baseline_attacks,
        "n_baseline_success": counts.n_baseline_success,
        "n_control_attacks": counts.n_control_attacks,
        "n_control_success": float(counts.n_control_success),
        "n_both_success": None if counts.n_both_success is None else float(counts.n_both_success),
        "confidence_level": confidence_level,
        "warning": "; ".join(warnings) or None,
    }


def attacked(targets: Mapping[str, np.ndarray], correct: Mapping[str, np.ndarray]) -> pa.Table:
    """The predictions of the targets attacked on each side (``attack``: rows of the original,
    ``control``: rows of the control table) and whether the attack hit each."""
    sides = list(targets)
    return pa.table(
        {
            "target": pa.array(np.concatenate([targets[side] for side in sides]), pa.int64()),
            "side": pa.array(np.repeat(np.array(sides, dtype=object), [len(targets[side]) for side in sides]), pa.string()),
            "correct": pa.array(np.concatenate([correct[side] for side in sides]).astype(bool), pa.bool_()),
        }
    )


def hits_table(records: Mapping[str, np.ndarray]) -> pa.Table:
    """Singling out's predictions: per side, the records its predicates isolate (-1: none), one per
    predicate that isolates one (a record isolated by several predicates is named by each)."""
    found = {side: rows[rows >= 0] for side, rows in records.items()}
    return attacked(found, {side: np.ones(len(rows), dtype=bool) for side, rows in found.items()})
