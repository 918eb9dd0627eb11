"""Strict pydantic mirrors of the frozen settings dataclasses, so a job file's typo is an error.

The dataclasses (``HaltingRules``, ``MeasureSettings``, ``BaselineSettings``) stay the single
source of every default; the job schema only adds validation with unknown keys forbidden.
"""

import dataclasses

from pydantic import BaseModel, ConfigDict, create_model

from alc_dask.baseline import BaselineSettings
from alc_dask.measure import HaltingRules, MeasureSettings

# Set per scenario from its target selection, never by a job file.
_DERIVED = {MeasureSettings: {"recall_scale"}}


def _strict_model(settings: type) -> type[BaseModel]:
    skip = _DERIVED.get(settings, set())
    fields = {f.name: (f.type, f.default) for f in dataclasses.fields(settings) if f.name not in skip}
    model = create_model(f"{settings.__name__}Spec", __config__=ConfigDict(extra="forbid", frozen=True), **fields)
    model.__doc__ = settings.__doc__
    return model


HaltingSpec = _strict_model(HaltingRules)
MeasureSpec = _strict_model(MeasureSettings)
BaselineSpec = _strict_model(BaselineSettings)


def to_settings(spec: BaseModel, settings: type):
    """The dataclass instance a validated spec section describes."""
    return settings(**spec.model_dump())
