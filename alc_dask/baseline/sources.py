"""Where a scenario's baseline predictions come from, one block of targets at a time.

- ``ml`` (ours): the selected model, trained on the original minus the block, against which the
  attack itself competes on the original minus the block (``OthersAttack``): the stronger of the
  two on the targets so far is the baseline.
- ``prior`` (the paper's comparison): the attack itself, run on a swap-anonymized copy of the
  original minus the block.
- ``control`` (Anonymeter style): the attack run on held-out control records against the release.

The last two ask the scenario's attack through its ``Attacker`` (``alc_dask.families.alc.loop.attacker``).
"""

from dataclasses import replace
from enum import StrEnum

import numpy as np

from alc_dask.anonymize import swap_encoded
from alc_dask.baseline.blocks import fit_without_block, training_rows
from alc_dask.baseline.budget import affordable
from alc_dask.baseline.dependence import suspicious_neighbours
from alc_dask.baseline.features import FeatureLayout, FeatureRows
from alc_dask.baseline.memo import BASELINES, digest
from alc_dask.baseline.selection import BaselineSettings, ModelChoice, Numbers, select_model
from alc_dask.baseline.trained import predicted, secret_classes
from alc_dask.baseline.zoo import BUILT_AS_SELECTED
from alc_dask.data import EncodedTable, Release, ScenarioError
from alc_dask.data.partitioned import whole
from alc_dask.measure import MeasureSettings, Tolerance
from alc_dask.seeds import stream


class BaselineMode(StrEnum):
    ML = "ml"
    PRIOR = "prior"
    CONTROL = "control"


class MlBaseline:
    """Model selection once per scenario, its candidates trained without the first block of
    targets; the chosen model refitted per block, except where selection's own fit of it already is
    that block's model (``_first_block_model``). Choice, first block's predictions and block fits
    are remembered in the worker (``memo.BASELINES``) for scenarios with the same original columns,
    settings, seed and first block."""

    def __init__(
        self,
        release: Release,
        secret: str,
        known,
        settings: BaselineSettings,
        measure: MeasureSettings,
        seed: int,
        tolerance: Tolerance | None = None,
        first_block: np.ndarray | None = None,
    ):
        self.layout = FeatureLayout.of(release, known)
        original = self.original = release.original
        self.X = self.layout.matrix(original) if isinstance(original, EncodedTable) else FeatureRows(self.layout, original)
        self.numbers = None if tolerance is None else Numbers(tolerance, release.value_span(secret), release.column(secret).origin)
        self.y = release.secret_column(secret) if self.numbers is None else original.column_array(release.column(secret).name)
        self.settings, self.seed = settings, seed
        # A partitioned original is never digested whole: its baselines are not remembered.
        self._key = (
            digest(self.X, self.y, self.layout.known, self.layout.categorical, settings, measure, seed, self.numbers)
            if isinstance(self.X, np.ndarray)
            else None
        )
        self.first_block = first_block if settings.first_block_from_selection else None
        self.choice, self._first_predictions = self._remembered(f"choice {digest(self.first_block)}", lambda: self._select(measure))
        self.model_name, self.expected_prc = self.choice.name, self.choice.expected_prc
        self.fit_settings, self.note = affordable(self.model_name, settings, self.X, secret_classes(self.y, self.numbers))

    def _select(self, measure: MeasureSettings) -> tuple[ModelChoice, tuple | None]:
        """The choice (without its fitted model) and, where selection's fit is the first block's
        model, that block's predictions."""
        choice = select_model(self.X, self.y, self.layout, self.settings, measure, self.seed, numbers=self.numbers, left_out=self.first_block)
        first = self._first_block_model(choice)
        return replace(choice, fitted=None), None if first is None else predicted(first, self.X[self.first_block], self.numbers)

    def _first_block_model(self, choice: ModelChoice):
        """Selection's fit of the chosen model when a fit without the first block would build the
        same model on as many rows (and no suspected twins are left out); else None."""
        if self.first_block is None or choice.fitted is None or choice.name not in BUILT_AS_SELECTED or self.settings.near_duplicate_ratio is not None:
            return None
        settings = affordable(choice.name, self.settings, self.X, secret_classes(self.y, self.numbers))[0]  # no forest: cheap
        rows = training_rows(np.asarray(self.y), self.first_block, settings, self.seed, numeric=self.numbers is not None)
        return choice.fitted if len(rows) == choice.trained_rows else None

    def start_block(self, block: np.ndarray) -> None:
        if self._first_predictions is not None and np.array_equal(block, self.first_block):
            self._codes, self._confidence = self._first_predictions
        else:
            self._codes, self._confidence = self._remembered(digest(block), lambda: self._fit_and_predict(block))
        self._position = {row: i for i, row in enumerate(block.tolist())}

    def _fit_and_predict(self, block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ratio, twins = self.settings.near_duplicate_ratio, ()
        if ratio is not None:
            twins = suspicious_neighbours(self.original, block, self.original.columns, ratio)
        model = fit_without_block(
            self.model_name, self.X, self.y, block, self.layout, self.fit_settings, self.seed, also_out=twins, numeric=self.numbers is not None
        )
        return predicted(model, self.X[block], self.numbers)

    def _remembered(self, what: str, compute):
        return compute() if self._key is None else BASELINES.get(f"{self._key}/{what}", compute)

    def predict(self, rows: np.ndarray, pair_index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        at = np.array([self._position[row] for row in rows.tolist()], dtype=np.int64)
        return self._codes[at], self._confidence[at]

    def truth(self, rows: np.ndarray, pair_index: np.ndarray) -> np.ndarray:
        return self.y[rows]


OTHERS_MAX_ROWS = 1_000_000
"""Originals up to this many rows get the attack on other people beside the model (one copy of the
original in a scenario's process); larger ones the model alone, whether partitioned or not."""


class OthersAttack:
    """The scenario's attack on the original without the block's targets, each table of the
    release mirrored by the same columns of those rows: what the attacker learns of a person from a
    release of other people of the same population. A lookup of a person's identical twins beats
    any model on a population that has many (a census's children); with the model alone, a
    bootstrap of other people of such a population scored an ALC of 0.8. With
    ``near_duplicate_ratio``, a target's suspected dependent twins are left out here too."""

    model_name = "the attack on other people"

    def __init__(self, release: Release, attacker, scoring, near_duplicate_ratio: float | None):
        self.release, self.attacker, self.scoring, self.ratio = release, attacker, scoring, near_duplicate_ratio
        self._original = None

    @staticmethod
    def applies(release: Release) -> bool:
        """Anonymized tables to mirror (a group-anonymized release has none) and an original of at
        most ``OTHERS_MAX_ROWS`` rows, held whole in the scenario's process (gathered once from its
        parts when kept on the workers, so that a release scores the same partitioned or not)."""
        return bool(release.anonymized) and release.original.n_rows <= OTHERS_MAX_ROWS

    def start_block(self, block: np.ndarray) -> None:
        if self._original is None:
            self._original = whole(self.release.original)
        original = self._original
        outside = np.ones(original.n_rows, dtype=bool)
        outside[block] = False
        if self.ratio is not None:
            outside[suspicious_neighbours(original, block, original.columns, self.ratio)] = False
        others = original.rows(outside)
        self._stand_in = replace(self.release, anonymized=tuple(others.select(table.columns) for table in self.release.anonymized))

    def predict(self, rows: np.ndarray, pair_index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        predictions = self.attacker.predict(self._stand_in, rows)
        return self.scoring.predicted(predictions), np.where(np.asarray(predictions.abstained, dtype=bool), 0.0, predictions.confidence)


class PriorBaseline:
    """The attack on a swapped copy of the original minus the block; every prediction counts (recall 1)."""

    model_name = "swap-anonymized original"
    expected_prc = None
    note = None

    def __init__(self, release: Release, attacker, swap_fraction: float, seed: int, scoring):
        self.release, self.attacker, self.swap_fraction, self.seed, self.scoring = release, attacker, swap_fraction, seed, scoring

    def start_block(self, block: np.ndarray) -> None:
        outside = np.ones(self.release.original.n_rows, dtype=bool)
        outside[block] = False
        swapped = swap_encoded(self.release.original.rows(outside), self.swap_fraction, self.seed)
        self._stand_in = replace(self.release, anonymized=(swapped,))

    def predict(self, rows: np.ndarray, pair_index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        predictions = self.attacker.predict(self._stand_in, rows)
        return self.scoring.predicted(predictions), predictions.confidence

    def truth(self, rows: np.ndarray, pair_index: np.ndarray) -> np.ndarray:
        return self.scoring.truth(self.release.targets(rows))


class ControlBaseline:
    """The attack on control records (never released) against the release, paired in a seeded order."""

    model_name = "control records"
    expected_prc = None
    note = None

    def __init__(self, release: Release, attacker, seed: int, scoring):
        if release.control is None:
            raise ScenarioError("baseline 'control' needs a release with a control table")
        self.release, self.attacker, self.scoring = release, attacker, scoring
        self.order = stream(seed, "control targets").permutation(release.control.n_rows)

    @property
    def available_pairs(self) -> int:
        return len(self.order)

    def start_block(self, block: np.ndarray) -> None:
        pass

    def predict(self, rows: np.ndarray, pair_index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        predictions = self.attacker.predict(self.release, self.order[pair_index], source="control")
        return self.scoring.predicted(predictions), predictions.confidence

    def truth(self, rows: np.ndarray, pair_index: np.ndarray) -> np.ndarray:
        return self.scoring.truth(self.release.targets(self.order[pair_index], "control"))
