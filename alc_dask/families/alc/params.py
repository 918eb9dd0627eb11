"""The parameters of an ALC scenario and the settings it is measured with."""

from __future__ import annotations

import inspect
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from alc_dask.attacks.base import AttackKind
from alc_dask.attacks.registry import build_attack
from alc_dask.baseline.sources import BaselineMode
from alc_dask.families.alc.loop import ScenarioRun
from alc_dask.families.alc.settings import BaselineSpec, HaltingSpec, MeasureSpec, ToleranceSpec, field_error
from alc_dask.families.alc.targets import TargetSelector
from alc_dask.families.base import FamilyParams
from alc_dask.measure import SettingError

Baseline = Literal[tuple(mode.value for mode in BaselineMode)]
DEFAULT_SWAP_FRACTION = inspect.signature(ScenarioRun).parameters["swap_fraction"].default
"""The share of values the prior baseline swaps; the scenario loop owns the default."""


class AttackSpec(BaseModel):
    """A registered attribute-inference attack and its constructor's parameters, checked by building it (cheap)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    """The attack's registered name (``best_row_match``, ``ml_on_release`` or an installed one)."""
    params: dict[str, Any] = {}
    """Keyword arguments of the attack's constructor."""

    @model_validator(mode="after")
    def _buildable(self):
        try:
            self.build()
        except SettingError as error:
            raise field_error(error) from None
        return self

    def build(self):
        return build_attack(self.name, AttackKind.ATTRIBUTE, **self.params)


class AlcSettings(FamilyParams):
    """How ALC scenarios are measured: set once per job (``JobSpec`` has these fields) and given to each."""

    halting: HaltingSpec = HaltingSpec()
    """When a scenario stops adding targets (any ``HaltingRules`` field)."""
    measure: MeasureSpec = MeasureSpec()
    """How precision and recall become a PRC and the ALC (any ``MeasureSettings`` field)."""
    baseline_settings: BaselineSpec = BaselineSpec()
    """The ML baseline's models and training (any ``BaselineSettings`` field)."""
    swap_fraction: Annotated[float, Field(gt=0, lt=1)] = DEFAULT_SWAP_FRACTION
    """The share of each column's values swapped in the prior baseline's copy of the original."""
    batch_size: Annotated[int, Field(ge=1)] = 50
    """Targets attacked at a time."""
    store_values: bool = False
    """Also store the predicted and true secret values in the predictions."""
    tolerance: ToleranceSpec | None = None
    """Score a continuous secret as a number right within a tolerance instead of by its bin."""


class AlcParams(AlcSettings):
    """One scenario, and how it is measured."""

    secret: str
    known: Annotated[tuple[str, ...], Field(min_length=1)]
    attack: AttackSpec = AttackSpec(name="best_row_match")
    baseline: Baseline = "ml"
    targets: TargetSelector | None = None
