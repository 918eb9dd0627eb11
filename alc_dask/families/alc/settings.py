"""Strict pydantic mirrors of the frozen settings dataclasses, so a job file's typo is an error.

The dataclasses (``HaltingRules``, ``MeasureSettings``, ``BaselineSettings``) stay the single
source of every default and every allowed range: a mirror builds its dataclass once validated, and
a ``SettingError`` the dataclass raises becomes an error at that field of the job file.
"""

import dataclasses
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, create_model, model_validator

from alc_dask.baseline import BaselineSettings
from alc_dask.families.base import field_error
from alc_dask.measure import HaltingRules, MeasureSettings, SettingError, Tolerance

# Set per scenario from its target selection, never by a job file.
_DERIVED = {MeasureSettings: {"recall_scale"}}


class _SettingsSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    settings_class: ClassVar[type]

    @model_validator(mode="after")
    def _allowed(self):
        """The dataclass's own checks: ranges, model names, bounds in order."""
        try:
            to_settings(self, self.settings_class)
        except SettingError as error:
            raise field_error(error) from None
        return self


def _strict_model(settings: type, name: str) -> type[BaseModel]:
    """The mirror of ``settings``, named as this module's attribute that holds it: scenarios carry
    instances to the workers, and a class found by its name is pickled by reference, not rebuilt
    from its definition in every task."""
    skip = _DERIVED.get(settings, set())
    fields = {f.name: (f.type, f.default) for f in dataclasses.fields(settings) if f.name not in skip}
    model = create_model(name, __base__=_SettingsSpec, __module__=__name__, **fields)
    model.settings_class = settings
    model.__doc__ = settings.__doc__
    return model


HaltingSpec = _strict_model(HaltingRules, "HaltingSpec")
MeasureSpec = _strict_model(MeasureSettings, "MeasureSpec")
BaselineSpec = _strict_model(BaselineSettings, "BaselineSpec")
ToleranceSpec = _strict_model(Tolerance, "ToleranceSpec")


def to_settings(spec: BaseModel, settings: type):
    """The dataclass instance a validated spec section describes."""
    return settings(**spec.model_dump())
