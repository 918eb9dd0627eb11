"""Replicated uniques and DiSCO (Raab, Nowok & Dibben 2024; synthpop's ``disclosure()``): per key
set (quasi-identifiers) and target, the shares of the original's records unique in the original,
unique in both the original and the release (RepU), disclosive in the release and correct in the
original (DiSCO), and the related shares, each compared with the same share of a control table of
people not in the release: what a non-member would give away.

The headline is the original's DiSCO beyond the control's (RepU without a target), normalized as
Anonymeter's privacy risk: ``(share - control) / (1 - control)``, with its Wilson interval.
"""

from __future__ import annotations

import json
from typing import Annotated

import numpy as np
import pyarrow as pa
from pydantic import Field, model_validator

from alc_dask.data import ScenarioError
from alc_dask.data.key_counts import table_frames
from alc_dask.data.schema import ColumnKind
from alc_dask.families.base import CheckExamples, Evaluation, EvaluationFamily, FamilyParams, HeadlineInterval, exposed_records, field_error
from alc_dask.families.disclosure.fields import DISCLOSURE_FIELDS
from alc_dask.families.disclosure.generators import KeySets
from alc_dask.measure import AttackCounts
from alc_dask.measure._checks import SettingError
from alc_dask.measure.disclosure import excess_risk
from alc_dask.measure.verdict import REIDENTIFICATION, one_sided

NO_CONTROL = "the release has no control table: the risk is the share itself, not compared with what a non-member would give away"
SIZES_DIFFER = "the control table is not the original's size: uniqueness depends on a table's size, so RepU against the control is only indicative"

Edges = Annotated[tuple[float, ...], Field(min_length=1)]


class DisclosureParams(FamilyParams):
    keys: Annotated[tuple[str, ...], Field(min_length=1)]
    """The quasi-identifiers an intruder knows (synthpop's ``keys``)."""
    target: str | None = None
    """The attribute an intruder would learn (None: identity disclosure alone; the headline is then RepU)."""
    bins: dict[str, Edges] = {}
    """Edges of the bins of each continuous key (or target): ``[e_i, e_{i+1})``, below the first and from the last edge a bin each."""
    table: Annotated[int, Field(ge=0)] = 0
    """Which anonymized table of the release is measured."""
    confidence_level: Annotated[float, Field(gt=0, lt=1)] = 0.95
    max_records: Annotated[int, Field(ge=0, le=10_000_000)] = 100_000
    """DiSCO records of the original listed (by row, lowest first) for the exposure table."""

    @model_validator(mode="after")
    def _consistent(self):
        try:
            if len(set(self.keys)) != len(self.keys):
                raise SettingError("keys", list(self.keys), "distinct columns")
            if self.target is not None and self.target in self.keys:
                raise SettingError("target", self.target, f"a column that is not among the keys {list(self.keys)}")
            for name, edges in self.bins.items():
                if name not in self.keys and name != self.target:
                    raise SettingError(f"bins.{name}", list(edges), "the bins of a key or of the target")
                if any(not np.isfinite(e) for e in edges) or any(b <= a for a, b in zip(edges, edges[1:])):
                    raise SettingError(f"bins.{name}", list(edges), "finite, strictly increasing edges")
        except SettingError as error:
            raise field_error(error) from None
        return self

    @property
    def columns(self) -> tuple[str, ...]:
        return (*self.keys, self.target) if self.target else self.keys


class Disclosure(EvaluationFamily):
    name = "disclosure"
    Params = DisclosureParams
    fields = DISCLOSURE_FIELDS
    headline = "disclosure_risk"
    threshold = REIDENTIFICATION
    scale = "DiSCO (RepU without a target): the share of the original's records the release discloses, beyond the same share of non-members"
    generators = (KeySets,)

    @classmethod
    def battery(cls, tables):
        """With a control table, what the categorical quasi-identifiers disclose of the first
        categorical secret (DiSCO beyond the control's), or RepU when there is none."""
        if not tables.has_control:
            return []
        released = set(tables.release.columns)
        keys = [c for c in tables.quasi_identifiers if c in released and not tables.is_continuous(c)]
        targets = [c for c in tables.secrets if c in released and c not in keys and not tables.is_continuous(c)]
        return [{"family": cls.name, "keys": keys, **({"target": targets[0]} if targets else {})}] if keys else []

    @classmethod
    def headline_interval(cls, row):
        """The stored interval, and the one-sided upper bound a pass is read from, recomputed from the counts."""
        level = one_sided(_confidence(row))
        n_control = int(row.get("n_control") or 0)
        risk = excess_risk(int(row["n_original"]), int(row["n_hits"]), n_control, int(row["n_control_hits"] or 0) if n_control else 0, level)
        return HeadlineInterval(
            float(row["disclosure_risk"]), float(row["disclosure_risk_low"]), float(row["disclosure_risk_high"]), float(row["n_original"]), risk.high
        )

    @classmethod
    def not_informative(cls, row) -> str | None:
        """Not flagged, with a control share that leaves no outcome able to clear the release (as
        Anonymeter's risks: ``AttackCounts.uncleared_reach``): a
        secret the keys disclose for 94% of non-members held bootstraps of other people inconclusive."""
        control_share, n_control = row.get("control_share"), row.get("n_control")
        if not n_control or cls.headline_interval(row).low >= cls.threshold.value:
            return None
        counts = AttackCounts(int(row["n_original"]), int(row["n_hits"]), 0, 0, int(n_control), float(row["n_control_hits"]))
        reach = counts.uncleared_reach(cls.threshold.value, _confidence(row))
        if reach is None:
            return None
        return (
            f"the release discloses {row['target'] or 'the records'} of {float(control_share):.1%} of non-members too: even disclosing no more of its own "
            f"records would leave the risk's interval reaching {reach:.2f}, past {cls.threshold.value}, so these tables cannot clear the release of it"
        )

    @classmethod
    def evidence(cls, row) -> str:
        keys = ", ".join(json.loads(row["keys"]))
        if row.get("target"):
            what = f"{float(row['disco']):.1%} of the original's records have a value of {row['target']} the release discloses correctly from {keys}"
        else:
            what = f"{float(row['repu']):.1%} of the original's records are unique on {keys} in both the original and the release"
        control = row.get("control_share")
        versus = f" (non-members: {float(control):.1%})" if control is not None and control == control else " (no control table)"
        return what + versus

    @classmethod
    def exposed(cls, predictions, row):
        """The original's DiSCO records that were listed (``max_records`` at most)."""
        return exposed_records(predictions.loc[predictions["side"] == "disco", "target"], "value of the target disclosed by a single-valued release key")

    @classmethod
    def check_examples(cls, columns: tuple[str, ...]) -> CheckExamples:
        """DiSCO of occupation from age (binned by 5 years), region and education; RepU alone of two
        key sets drawn by the generator."""
        age = list(range(20, 95, 5))
        return CheckExamples(
            [
                {"keys": ["age", "region", "education"], "target": "occupation", "bins": {"age": age}},
                {"generate": "key_sets", "columns": ["age", "region", "sex"], "min_size": 3, "max_size": 3, "bins": {"age": age}},
            ]
        )

    @classmethod
    def report_section(cls, scores):
        from alc_dask.families.disclosure.section import section

        return section(cls.name, scores)

    def describe(self) -> str:
        return "disclosure " + "-".join(self.params.keys[:3]) + (f" -> {self.params.target}" if self.params.target else "")

    def check(self, release) -> None:
        p = self.params
        if p.table >= len(release.anonymized):
            raise ScenarioError(f"table: {p.table} is not an anonymized table of the release (it has {len(release.anonymized)})")
        anonymized = release.anonymized[p.table]
        for field, names in (("keys", p.keys), ("target", (p.target,) if p.target else ())):
            for name in names:
                if name not in release.columns or name not in release.original.columns:
                    raise ScenarioError(f"{field}: {name!r} is not a column of the original table; it has {list(release.original.columns)}")
                if name not in anonymized.columns:
                    raise ScenarioError(f"{field}: {name!r} is not a column of the anonymized table {anonymized.name}; it has {list(anonymized.columns)}")
        for name in p.keys:
            if release.columns[name].kind is ColumnKind.CONTINUOUS and name not in p.bins:
                raise ScenarioError(f"bins: the key {name!r} is continuous: declare its bins (bins: {{{name}: [edges]}})")

    def evaluate(self, release, seed: int) -> Evaluation:
        self.check(release)
        p = self.params
        anonymized, control = release.anonymized[p.table], release.control
        blocks_o, original = table_frames(release.original, p.columns, p.bins)
        blocks_r, released = table_frames(anonymized, p.columns, p.bins)
        blocks_c, controls = table_frames(control, p.columns, p.bins) if control is not None else ((), None)
        from alc_dask.families.disclosure.counting import measure_disclosure

        found = measure_disclosure(blocks_o + blocks_r + blocks_c, original, released, controls, p.keys, p.target, p.max_records)
        measures = _measures(p, found, control.n_rows if control is not None else 0)
        predictions = pa.table({"target": found.disco_rows, "side": ["disco"] * found.disco_rows.size, "correct": np.ones(found.disco_rows.size, dtype=bool)})
        return Evaluation(measures, predictions)


def _confidence(row) -> float:
    """The confidence level a stored row was measured at (its parameters')."""
    return float(json.loads(row.get("params") or "{}").get("confidence_level", 0.95))


def _label(risk) -> str:
    """The risk on the family's threshold: no loss at 0, safe when the whole interval is below it,
    serious when the whole interval is at or past it, at risk when it straddles."""
    if risk.value == 0:
        return "no loss"
    if risk.high < REIDENTIFICATION.value:
        return "safe"
    return "serious" if risk.low >= REIDENTIFICATION.value else "at risk"


def _measures(p: DisclosureParams, found, n_control: int) -> dict:
    counts, control = found.original, found.control
    shares = counts.shares()
    headline = "disco" if p.target else "repu"
    hits = counts.disco if p.target else counts.replicated_uniques
    control_hits = (control.disco if p.target else control.replicated_uniques) if control else 0
    risk = excess_risk(counts.n_original, hits, control.n_original if control else 0, control_hits, p.confidence_level)
    control_shares = control.shares() if control else {}
    warnings = [NO_CONTROL] if control is None else []
    if control is not None and not p.target and abs(control.n_original - counts.n_original) > 0.1 * counts.n_original:
        warnings.append(SIZES_DIFFER)
    attribute = ("dio", "dsyn", "is", "dis", "disco", "disdio")
    return {
        "keys": json.dumps(list(p.keys)),
        "target": p.target,
        "headline_measure": headline,
        "n_original": counts.n_original,
        "n_release": counts.n_release,
        "n_control": n_control,
        **{name: shares[name] for name in ("uio", "uis", "uiois", "repu")},
        **{(name if name != "is" else "in_release"): (shares[name] if p.target else np.nan) for name in attribute},
        "control_repu": control_shares.get("repu", np.nan),
        "control_disco": control_shares.get("disco", np.nan) if p.target else np.nan,
        "share": shares[headline],
        "control_share": control_shares.get(headline, np.nan),
        "disclosure_risk": risk.value,
        "disclosure_risk_low": risk.low,
        "disclosure_risk_high": risk.high,
        "n_hits": hits,
        "n_control_hits": control_hits,
        "n_disco_records": found.n_disco_rows if p.target else 0,
        "risk": _label(risk),
        "warning": "; ".join(warnings) or None,
    }
