"""Numbers that are numbers: pydantic's lax mode reads ``true`` as 1 wherever a number is expected,
so a job's ``epsilon: true`` or ``seed: true`` passed as 1. Every job and family model refuses a
boolean for a field that takes numbers and not booleans."""

from __future__ import annotations

import types
import typing

from pydantic import BaseModel, ValidationInfo, field_validator


def takes_numbers_not_booleans(annotation) -> bool:
    """Whether a field of this type accepts a number (int or float) but not a boolean."""
    found = set()

    def walk(kind) -> None:
        origin = typing.get_origin(kind)
        if origin is typing.Annotated:
            walk(typing.get_args(kind)[0])
        elif origin in (typing.Union, types.UnionType):
            for arg in typing.get_args(kind):
                walk(arg)
        elif kind in (int, float, bool):
            found.add(kind)

    walk(annotation)
    return bool(found & {int, float}) and bool not in found


class NoBooleanNumbers(BaseModel):
    """A model whose number fields refuse ``true`` and ``false``."""

    @field_validator("*", mode="before")
    @classmethod
    def _numbers_are_not_booleans(cls, value, info: ValidationInfo):
        if isinstance(value, bool) and takes_numbers_not_booleans(cls.model_fields[info.field_name].annotation):
            raise ValueError(f"{str(value).lower()} is not a number")
        return value
