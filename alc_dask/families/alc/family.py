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
from alc_dask.families.base import Evaluation, EvaluationFamily
from alc_dask.measure import HaltingRules, MatchedCoverage, MeasureSettings, PrcResult, Tolerance, risk_label


def _prc_fields(prefix: str) -> list[pa.Field]:
    counts = {"n", "attempts", "correct"}
    return [pa.field(prefix + name, pa.int64() if name in counts else pa.float64()) for name in PrcResult.__dataclass_fields__]


ALC_FIELDS = (
    pa.field("secret", pa.string()),
    pa.field("known", pa.string()),  # JSON list, sorted
    pa.field("attack", pa.string()),
    pa.field("attack_params", pa.string()),  # JSON
    pa.field("baseline", pa.string()),
    pa.field("targets", pa.string()),  # JSON selector or null
    pa.field("tolerance", pa.string()),  # JSON, for a continuous secret scored within a tolerance
    pa.field("alc", pa.float64()),
    pa.field("risk", pa.string()),
    pa.field("model", pa.string()),
    pa.field("expected_base_prc", pa.float64()),
    pa.field("baseline_note", pa.string()),  # fewer trees or rows than asked for, and why
    pa.field("halt_code", pa.string()),
    *_prc_fields("base_"),
    pa.field("floor_prc", pa.float64()),  # always guessing the most common value, on the same targets
    *_prc_fields("attack_"),
    pa.field("alc_full_recall", pa.float64()),
    pa.field("risk_full_recall", pa.string()),
    *_prc_fields("attack_full_recall_"),
    *(pa.field(name, pa.bool_() if name == "pi_vulnerable" else pa.float64()) for name in MatchedCoverage.none().to_dict()),
    pa.field("pairs", pa.int64()),
    pa.field("abstentions", pa.int64()),
    pa.field("recall_basis", pa.string()),
    pa.field("seconds", pa.float64()),  # the scenario's own work
)


class AlcFamily(EvaluationFamily):
    name = "alc"
    Params = AlcParams
    fields = ALC_FIELDS
    headline = "alc"
    Entry = ExplicitScenario
    JobSettings = AlcJobSettings
    generators = GENERATORS

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
        return json.dumps(
            [
                p.secret,
                sorted(p.known),
                p.baseline_settings.model_dump(mode="json"),
                p.measure.model_dump(mode="json"),
                seed,
                p.tolerance and p.tolerance.model_dump(),
            ]
        )

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
            **result.measures(),
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


def _as_text(values) -> list:
    return [None if value is None else str(value) for value in values]
