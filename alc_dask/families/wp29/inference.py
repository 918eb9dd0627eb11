"""Inference (Anonymeter's evaluator, Giomi et al. 2023): can the release be used to infer a person's secret
from other attributes they are known to have?

The guess for a target is the secret of its nearest anonymized row on the auxiliary columns. A
categorical guess is right when it equals the secret (two missing values are equal); a continuous
guess is right within ``tolerance`` of the true value: ``|guess - secret| <= tolerance * |secret|``
(an exact match when the secret is 0). Anonymeter divides by the guess instead, so every negative
guess counts as right there; dividing by the true value keeps the tolerance a property of the
person attacked. The baseline guesses the secret of a random anonymized row. Rows at equal
distance are ranked in one seeded random order for every target, not by row number (the weighted
nearest row draws among them for each target on its own).

``attack: weighted_nearest`` finds the nearest row by a distance where disagreeing on a rare value
counts more (``alc_dask.neighbors.weighted``). ``attack: ml_on_release`` guesses instead with a model trained on the anonymized table (Stadler,
Oprisanu & Troncoso 2022): the ALC family's ``ml_on_release`` attack with its defaults, for the
original's targets and the control's alike (a continuous secret predicted as a number, chosen by
how often it is right within ``tolerance``, which must then be above 0).

Without a control table (``reference: original``) each member's secret is guessed from their
nearest row in the release and from their nearest other person of the original
(``wp29.common.OthersOfTheOriginal``): the nearest-row test of a release's leak, which tells a 20%
swap or a 20% noisy copy from a release of other people where the ALC's threshold cannot.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Literal

import numpy as np
import pyarrow as pa
from pydantic import Field, model_validator

from alc_dask.data import ColumnKind, EncodedTable, ScenarioError
from alc_dask.families.base import CheckExamples, Evaluation, column
from alc_dask.families.wp29.common import (
    BATTERY_ATTACKS,
    WP29_FIELDS,
    OthersOfTheOriginal,
    Wp29Family,
    Wp29Params,
    attacked,
    attacked_table,
    attacked_tables,
    by_reference,
    check_columns,
    hidden_by_noise,
    without_own_rows,
    wp29_measures,
)
from alc_dask.measure import AttackCounts, Tolerance
from alc_dask.seeds import stream

NearestRows = Callable[..., np.ndarray]
"""A search of one table: targets (and optionally each target's own row, left out) to each target's nearest row."""


class InferenceParams(Wp29Params):
    aux_cols: Annotated[tuple[str, ...], Field(min_length=1)]
    secret: str
    tolerance: Annotated[float, Field(ge=0, lt=1)] = 0.05
    """Relative tolerance of a right guess of a continuous secret."""
    attack: Literal["nearest", "weighted_nearest", "ml_on_release"] = "nearest"
    """How the secret is guessed: the nearest anonymized row's (Anonymeter's), the nearest by a
    distance where disagreeing on a rare value counts more (``alc_dask.neighbors.weighted``), or a
    model trained on the anonymized table's."""

    @model_validator(mode="after")
    def _secret_not_known(self):
        if self.secret in self.aux_cols:
            raise ValueError(f"secret: {self.secret!r} is also one of the aux_cols; the attacker would know it already")
        return self

    @model_validator(mode="after")
    def _reference_attack(self):
        if self.reference == "original" and self.attack == "ml_on_release":
            raise ValueError(f"reference: original compares nearest rows; attack {self.attack!r} needs a control table (reference: control)")
        return self


class Inference(Wp29Family):
    name = "inference"
    criterion = "inference"
    Params = InferenceParams
    control_always_right = "people not in the release are inferred right every time: the secret tells nothing about anyone"

    @classmethod
    def not_informative(cls, row) -> str | None:
        """A secret of one value or none in the original (constant, or missing throughout: its
        ``warning`` says so) is "inferred" for anyone, member or not; so is any secret inferred right
        for every person not in the release."""
        told, warning = _tells_nothing(row.get("secret")), row.get("warning")
        return told if isinstance(warning, str) and told in warning else super().not_informative(row)

    @classmethod
    def evidence(cls, row) -> str:
        others = by_reference(row, "for people not in it", "from the original's other people, for the same people")
        rates = f"{float(row['attack_rate']):.1%} of people of the original; {others}, {float(row['control_rate']):.1%}"
        return f"{row['secret']!r} is inferred right from the release for {rates}{hidden_by_noise(row)}"

    fields = (
        column("secret", pa.string(), "the column the attack guesses"),
        column("known", pa.string(), "the auxiliary columns the attacker knows, as a sorted JSON list"),
        column(
            "attack",
            pa.string(),
            "how the secret is guessed: nearest (the nearest anonymized row's), weighted_nearest (the nearest where disagreeing on a rare value counts more) or ml_on_release (a model trained on the release)",
        ),
        *WP29_FIELDS,
    )
    headline = "privacy_risk"

    @classmethod
    def exposure(cls, row) -> str:
        return f"{row['secret']} inferred"

    @classmethod
    def check_examples(cls, columns: tuple[str, ...]) -> CheckExamples:
        """A categorical secret and a continuous one, each from four other columns."""
        return CheckExamples(
            [
                {"aux_cols": ["age", "sex", "region", "income"], "secret": "education", "n_attacks": 100},
                {"aux_cols": ["age", "sex", "education", "occupation"], "secret": "income", "n_attacks": 100},
            ]
        )

    @classmethod
    def battery(cls, tables):
        """Each secret inferred twice by the rarity-weighted nearest row: from the quasi-identifiers
        (what an attacker usually knows) and from every other column of the release (the strongest
        sensible attacker, who knows everything else: a 20% noisy copy of a table of categories is
        flagged by it and by neither Gower's nearest row nor a few known columns); without a
        control table, against the original's other people (``reference: original``). The weighted
        row, not Anonymeter's, also because it breaks ties for each person on their own: on a few
        quasi-identifiers most people tie with thousands of rows, and one order shared by all of
        them makes a rate swing far beyond its interval (see ``alc_dask.neighbors.weighted``)."""
        released = [c for c in tables.columns if c in tables.release.columns]
        reference = {} if tables.has_control else {"reference": "original"}
        entries = []
        for secret in tables.secrets:
            quasi = [c for c in tables.quasi_identifiers if c in released and c != secret]
            others = [c for c in released if c != secret]
            for known in dict.fromkeys((tuple(quasi), tuple(others))):  # once when the quasi-identifiers are every other column
                if known:
                    entries.append(
                        {"family": cls.name, "secret": secret, "aux_cols": list(known), "attack": "weighted_nearest", "n_attacks": BATTERY_ATTACKS, **reference}
                    )
        return entries

    def describe(self) -> str:
        return self.params.secret

    def identity(self) -> dict:
        """All parameters, ``attack`` left out when it is the nearest row's: evaluations from before it existed keep their ids and seeds."""
        identity = super().identity()
        if identity["attack"] == "nearest":
            del identity["attack"]
        return identity

    def labels(self) -> dict:
        return {"secret": self.params.secret, "known": json.dumps(sorted(self.params.aux_cols)), "attack": self.params.attack}

    def check(self, release) -> None:
        anonymized = attacked_table(release, self.params, self.name)
        check_columns(release, anonymized, "aux_cols", self.params.aux_cols)
        check_columns(release, anonymized, "secret", [self.params.secret])
        if self.params.attack == "ml_on_release" and self.params.tolerance == 0 and release.column(self.params.secret).kind is ColumnKind.CONTINUOUS:
            raise ScenarioError("tolerance: attack ml_on_release guesses a continuous secret as a number right within a tolerance above 0")

    def evaluate(self, release, seed: int) -> Evaluation:
        p = self.params
        self.check(release)
        anonymized, control = attacked_tables(release, p, self.name)
        rng = stream(seed, "inference")
        if control is None:
            return self._against_others(release, anonymized, rng)
        n_main, n_control, n_baseline = (min(p.n_attacks, t.n_rows) for t in (release.original, control, anonymized))
        targets = {"attack": np.sort(rng.choice(release.original.n_rows, n_main, replace=False))}
        targets["control"] = np.sort(rng.choice(control.n_rows, n_control, replace=False))
        main, held_out = release.original.rows(targets["attack"]), control.rows(targets["control"])
        guessed = rng.choice(anonymized.n_rows, n_baseline, replace=False)
        baseline_right = self._right(self._secret(release, anonymized)[guessed], self._secret(release, main)[:n_baseline], release)
        guess = self._model_guess(release, anonymized, seed) if p.attack == "ml_on_release" else self._nearest_guess(release, anonymized, rng)
        right = {"attack": guess(main), "control": guess(held_out)}
        counts = AttackCounts(n_main, int(right["attack"].sum()), n_baseline, int(baseline_right.sum()), n_control, int(right["control"].sum()))
        return Evaluation({**self.labels(), **wp29_measures(counts, p.confidence_level, self._warnings(release))}, attacked(targets, right))

    def _against_others(self, release, anonymized: EncodedTable, rng: np.random.Generator) -> Evaluation:
        """Without a control table: each member's secret guessed from the release and from the
        original's other people, at one size (``OthersOfTheOriginal``); the random baseline as ever."""
        p = self.params
        sides = OthersOfTheOriginal.of(release.original, anonymized, rng)
        positions = sides.attacked(p.n_attacks, rng)
        n_main = positions.size
        members = sides.others.rows(positions)
        secrets = self._secret(release, members)
        n_baseline = min(n_main, sides.released.n_rows)
        guessed = rng.choice(sides.released.n_rows, n_baseline, replace=False)
        baseline_right = self._right(self._secret(release, sides.released)[guessed], secrets[:n_baseline], release)
        right = {"attack": self._attack(release, members, sides.released, self._nearest_rows(release, sides.released, rng))}
        nearest_other = self._nearest_rows(release, sides.others, rng)(members, positions)
        right["others"] = self._right(self._secret(release, sides.others)[nearest_other], secrets, release)
        both = int((right["attack"] & right["others"]).sum())
        counts = AttackCounts(n_main, int(right["attack"].sum()), n_baseline, int(baseline_right.sum()), n_main, int(right["others"].sum()), both)
        people = sides.rows[positions]
        return Evaluation(
            {**self.labels(), **wp29_measures(counts, p.confidence_level, self._warnings(release))}, attacked({"attack": people, "others": people}, right)
        )

    def _warnings(self, release) -> list[str]:
        constant = len(np.unique(release.original.column_array(self.params.secret))) < 2  # np.unique counts every NaN as one value
        return [_tells_nothing(self.params.secret)] if constant else []

    def _nearest_guess(self, release, anonymized: EncodedTable, rng):
        """Whether the nearest anonymized row's secret is right, as a function of the targets."""
        nearest = self._nearest_rows(release, anonymized, rng)

        def right(targets: EncodedTable) -> np.ndarray:
            return self._attack(release, targets, anonymized, nearest)

        return right

    def _nearest_rows(self, release, table: EncodedTable, rng: np.random.Generator) -> NearestRows:
        """The search of ``table`` the attack guesses by: each target's nearest row; given each
        target's own row, without it. Anonymeter's nearest row ranks equal distances in one seeded
        order for every target (the next nearest where identical rows rank before the own row);
        the weighted one ranks them for each target on its own (``WeightedSearch``), each
        search with a seed of its own, so that the members' and the control's draws are apart."""
        columns = self.params.aux_cols
        if self.params.attack == "weighted_nearest":
            from alc_dask.neighbors.weighted import RarityWeights, WeightedSearch  # Numba's: imported to attack, not to check parameters

            search = WeightedSearch.of(table, columns, RarityWeights.of(release.original, columns))
            return lambda targets, own=None: search.nearest(targets, int(rng.integers(2**32)), own)
        from alc_dask.neighbors.nearest import ShuffledTable  # Numba's: imported to attack, not to check parameters

        shuffled = ShuffledTable.of(table, rng)

        def nearest(targets: EncodedTable, own: np.ndarray | None = None) -> np.ndarray:
            if own is None:
                return shuffled.k_nearest(targets, columns, 1)[:, 0]
            return without_own_rows(shuffled.k_nearest(targets, columns, 2), own)[:, 0]

        return nearest

    def _model_guess(self, release, anonymized: EncodedTable, seed: int):
        """Whether the model trained on ``anonymized`` guesses right, as a function of the targets."""
        from alc_dask.families.alc.ml_on_release import MlOnRelease, fit_on_release

        p = self.params
        continuous = release.column(p.secret).kind is ColumnKind.CONTINUOUS
        tolerance = Tolerance(p.tolerance, "value") if continuous else None
        model = fit_on_release(release, [anonymized], p.secret, p.aux_cols, tolerance, MlOnRelease(seed=seed))

        def right(targets: EncodedTable) -> np.ndarray:
            guessed, _ = model.predict(model.layout.matrix(targets))
            return self._right(guessed, self._secret(release, targets), release)

        return right

    def _attack(self, release, targets: EncodedTable, table: EncodedTable, nearest: NearestRows) -> np.ndarray:
        """Whether the secret of each target's nearest row of ``table`` (``nearest``) is right."""
        return self._right(self._secret(release, table)[nearest(targets)], self._secret(release, targets), release)

    def _secret(self, release, table: EncodedTable) -> np.ndarray:
        if release.column(self.params.secret).kind is ColumnKind.CATEGORICAL:
            return table.codes[table.categorical.index(self.params.secret)]
        return table.values[table.continuous.index(self.params.secret)]

    def _right(self, guess: np.ndarray, truth: np.ndarray, release) -> np.ndarray:
        if release.column(self.params.secret).kind is ColumnKind.CATEGORICAL:
            return guess == truth  # the missing code equals itself
        both_missing = np.isnan(guess) & np.isnan(truth)
        origin = float(release.column(self.params.secret).origin)
        with np.errstate(invalid="ignore"):
            return both_missing | (np.abs(guess - truth) <= self.params.tolerance * np.abs(truth + origin))


def _tells_nothing(secret: str) -> str:
    """The warning, and the reason it is not informative, of an inference of a secret with one value or none in the original."""
    return f"{secret!r} holds one value or none in the original: inferring it tells nothing about anyone"
