"""Evaluation families: each kind of privacy evaluation behind one contract (``EvaluationFamily``)."""

from alc_dask.families.base import CheckExamples, Evaluation, EvaluationFamily, FamilyParams, HeadlineInterval, column
from alc_dask.families.registry import DEFAULT_FAMILY, FAMILY_GROUP, family_names, get_family
from alc_dask.measure.verdict import Threshold

__all__ = [
    "CheckExamples",
    "HeadlineInterval",
    "column",
    "DEFAULT_FAMILY",
    "FAMILY_GROUP",
    "Evaluation",
    "EvaluationFamily",
    "FamilyParams",
    "family_names",
    "get_family",
    "Threshold",
]
