"""A membership evaluation read against a differentially private generator's promise: the ε its
attack's ROC proves (``alc_dask.measure.dp_audit``) beside the ε and δ the release declares, and
the breach when the proof exceeds the promise."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from alc_dask.measure import Roc
from alc_dask.measure.dp_audit import epsilon_lower_bound


def dp_audit_measures(roc: Roc, generator: Mapping[str, Any] | None, confidence_level: float) -> dict:
    """The declaration (as JSON and its ε and δ) and the lower bound on ε at the declared δ (else 0)."""
    declared = dict(generator or {})
    epsilon, delta = declared.get("epsilon"), declared.get("delta")
    return {
        "generator": json.dumps(declared, sort_keys=True) if generator is not None else None,
        "epsilon_declared": epsilon,
        "delta_declared": delta,
        "epsilon_lower_bound": epsilon_lower_bound(roc, delta or 0.0, confidence_level).epsilon,
    }


def epsilon_breach(row: Mapping[str, Any]) -> str | None:
    """E.g. "the attack proves ε ≥ 3.2 while the generator declares ε = 1", when the stored row's
    lower bound is above its declared ε; None when it is not, or nothing is declared."""
    declared, proved = _number(row.get("epsilon_declared")), _number(row.get("epsilon_lower_bound"))
    if declared is None or proved is None or proved <= declared:
        return None
    delta = _number(row.get("delta_declared"))
    return f"the attack proves ε ≥ {at_least(proved, declared)} while the generator declares ε = {declared:g}" + (f" (δ = {delta:g})" if delta else "")


def promise(row: Mapping[str, Any]) -> str:
    """What the row says of the declared ε: broken, kept as far as the attack can tell, or none declared."""
    if _number(row.get("epsilon_declared")) is None:
        return "none declared"
    return "broken" if epsilon_breach(row) else "not shown broken"


def at_least(value: float, above: float) -> str:
    """``value`` rounded down to the fewest decimals (at least one) that keep it above ``above``: a
    lower bound stays a lower bound when shown, and never reads as equal to the promise it breaks."""
    for decimals in range(1, 10):
        shown = math.floor(value * 10**decimals) / 10**decimals
        if shown > above:
            return f"{shown:.{decimals}f}".rstrip("0").rstrip(".")
    return f"{value:.10g}"


def _number(value) -> float | None:
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value
