"""The worst-columns search's result: the chosen subset, its held-out measure and label, every subset
tried; as a Python object, JSON, Parquet and lines for a terminal."""

from __future__ import annotations

import html
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from alc_dask.apps.worst_columns_measures import Measured
from alc_dask.apps.worst_columns_search import EXHAUSTIVE, GREEDY, SearchOutcome, Tried

RESULT_FILE = "worst_columns.json"
SUBSETS_FILE = "subsets.parquet"
SHOWN = 5
"""Subsets a terminal shows, strongest first on the selection half."""


@dataclass(frozen=True)
class WorstColumns:
    """What the search found: its settings, every subset tried (in order), why it stopped, the
    subset chosen on the selection half and its measure on the held-out half."""

    settings: dict
    headline: str
    threshold: float
    threshold_source: str
    outcome: SearchOutcome
    held_out: Measured | None
    output: Path
    seconds: float

    @classmethod
    def of(cls, settings: dict, headline: str, outcome: SearchOutcome, held_out: Measured | None, output: Path, seconds: float) -> WorstColumns:
        from alc_dask.families import get_family

        threshold = get_family(settings["family"]).threshold
        return cls(settings, headline, threshold.value, threshold.source, outcome, held_out, output, seconds)

    @property
    def chosen(self) -> Tried | None:
        return self.outcome.chosen

    @property
    def tried(self) -> int:
        return len(self.outcome.tried)

    @property
    def label(self) -> str:
        """The held-out measure against the family's threshold: flagged, inconclusive or pass (as a verdict labels an evaluation)."""
        from alc_dask.measure.verdict import interval_label

        return interval_label(self.held_out.low, self.held_out.high, self.threshold).value if self.held_out else "inconclusive"

    @property
    def subsets(self) -> pd.DataFrame:
        """One row per subset tried, in the order tried: its columns, phase, evaluation and selection-half figure."""
        rows = []
        for item in self.outcome.tried:
            figure = item.selection or Measured.nothing()
            rows.append(
                {
                    "columns": list(item.columns),
                    "size": len(item.columns),
                    "phase": item.phase,
                    "scenario_id": item.scenario_id,
                    "selection": figure.value,
                    "selection_low": figure.low,
                    "selection_high": figure.high,
                    "selection_targets": figure.targets,
                    "chosen": item is self.chosen,
                    "error": item.error,
                }
            )
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        chosen = None
        if self.chosen is not None:
            chosen = {
                "columns": list(self.chosen.columns),
                "scenario_id": self.chosen.scenario_id,
                "label": self.label,
                "held_out": _finite(asdict(self.held_out)),
                "selection": _finite(asdict(self.chosen.selection)),
            }
        return {
            **self.settings,
            "headline": self.headline,
            "threshold": self.threshold,
            "threshold_source": self.threshold_source,
            "tried": self.tried,
            "phases": {phase: self.outcome.count(phase) for phase in (EXHAUSTIVE, GREEDY)},
            "stopped": self.outcome.stopped,
            "chosen": chosen,
            "seconds": round(self.seconds, 3),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def write(self) -> None:
        """``worst_columns.json`` and ``subsets.parquet`` in the output folder."""
        (self.output / RESULT_FILE).write_text(self.to_json() + "\n", encoding="utf-8")
        self.subsets.to_parquet(self.output / SUBSETS_FILE, index=False)

    def title(self) -> str:
        what = f"secret {self.settings['secret']!r}" if self.settings["secret"] is not None else "membership"
        how = self.settings["family"] + (f", attack {self.settings['attack']}" if self.settings["attack"] else "")
        size = self.settings["max_size"]
        phases = f"{self.outcome.count(EXHAUSTIVE)} exhaustive, up to {size} column{'s' if size > 1 else ''}; {self.outcome.count(GREEDY)} greedy"
        return f"Worst known columns for {what} ({how}): {self.tried} subsets tried ({phases}); stopped: {self.outcome.stopped}"

    def lines(self, most: int = SHOWN) -> list[str]:
        """The title, the strongest subsets on the selection half, and the chosen one's held-out measure."""
        ranked = sorted(self.outcome.tried, key=lambda item: (-item.strength, len(item.columns)))[:most]
        names = [", ".join(item.columns) for item in ranked]
        width = max([len("columns"), *map(len, names)])
        table = [f"  {'columns':<{width}}  {'phase':<10}  selection half ({self.headline})"]
        for name, item in zip(names, ranked, strict=True):
            figure = _figure(item.selection) if item.selection else item.error
            table.append(f"  {name:<{width}}  {item.phase:<10}  {figure}{'  <- chosen' if item is self.chosen else ''}")
        if self.chosen is None:
            return [self.title(), *table, "No subset could be measured: see the errors in subsets.parquet."]
        ending = (
            f"Chosen: {', '.join(self.chosen.columns)}. Held-out half: {self.headline} {_figure(self.held_out)}: {self.label.upper()} "
            f"(threshold {self.threshold:g}); on the selection half it was {_figure(self.chosen.selection)}."
        )
        return [self.title(), *table, ending]

    def _repr_html_(self) -> str:
        lines = self.lines()
        return f"<p><strong>{html.escape(lines[0])}</strong></p><pre>{html.escape(chr(10).join(lines[1:]))}</pre>"


def _figure(measured: Measured) -> str:
    if math.isnan(measured.value):
        return "not measurable"
    return f"{measured.value:.2f} [{measured.low:.2f}, {measured.high:.2f}] on {measured.targets} targets"


def _finite(figures: dict) -> dict:
    """NaN as null: JSON has no NaN."""
    return {name: None if isinstance(value, float) and math.isnan(value) else value for name, value in figures.items()}
