"""Comparing scores exactly, whichever way they were read: the same seed gives the same numbers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

SHOWN = 5
"""Differences listed at most in a message (all are counted)."""


def same(expected, actual) -> bool:
    """Equal values: missing (None, NaN, NA) on both sides, nested values (lists, arrays, dicts)
    element by element, numbers exactly."""
    if _missing(expected) or _missing(actual):
        return _missing(expected) and _missing(actual)
    if isinstance(expected, dict):
        return isinstance(actual, dict) and expected.keys() == actual.keys() and all(same(expected[k], actual[k]) for k in expected)
    if isinstance(expected, list | tuple | np.ndarray):
        return isinstance(actual, list | tuple | np.ndarray) and len(expected) == len(actual) and all(map(same, expected, actual))
    return bool(expected == actual)


def _missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float | np.floating) and math.isnan(value))


def differences(expected: pd.DataFrame, actual: pd.DataFrame, columns: list[str]) -> list[str]:
    """Where two score frames indexed by scenario id differ in ``columns``: missing scenarios, then
    values, each naming the scenario and the column."""
    problems = [f"scenario {s} is missing" for s in expected.index.difference(actual.index)]
    problems += [f"scenario {s} is extra" for s in actual.index.difference(expected.index)]
    for column in columns:
        for scenario in expected.index.intersection(actual.index):
            before, after = _cell(expected, scenario, column), _cell(actual, scenario, column)
            if not same(before, after):
                problems.append(f"scenario {scenario}, {column}: {_short(before)} then {_short(after)}")
    return problems


def summary(problems: list[str]) -> str:
    shown = "; ".join(problems[:SHOWN])
    return shown + (f"; and {len(problems) - SHOWN} more" if len(problems) > SHOWN else "")


def _cell(frame: pd.DataFrame, scenario: str, column: str):
    return frame.at[scenario, column] if column in frame.columns else None


def _short(value) -> str:
    text = repr(value.tolist() if isinstance(value, np.ndarray | np.generic) else value)
    return text if len(text) <= 80 else text[:77] + "..."
