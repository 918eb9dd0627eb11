"""Privacy models of a release: k-anonymity (Sweeney 2002), ℓ-diversity, distinct and entropy
(Machanavajjhala et al. 2007), and t-closeness with the earth mover's distance (Li, Li &
Venkatasubramanian 2007), of the equivalence classes of the release's quasi-identifiers, and the
records of the classes that miss what the release declares.

A plain anonymized table's classes are its rows alike on the quasi-identifiers (missing values a
value of their own; a continuous one by its exact value, or by declared bins); a generalized
table's (``release.grouped``, read as the grouped-release reader reads its cells) are its rows
alike on every generalized cell. The headline counts the declared models the release misses, so
a release is flagged when it does not keep its own declaration.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

import numpy as np
from pydantic import Field

from alc_dask.data import ScenarioError
from alc_dask.data.key_counts import table_frames
from alc_dask.families.base import CheckExamples, Evaluation, EvaluationFamily, FamilyParams, HeadlineInterval
from alc_dask.families.privacy_models.classes import Declared, generalized_models, plain_models
from alc_dask.families.privacy_models.fields import PRIVACY_MODEL_FIELDS
from alc_dask.measure.verdict import Threshold

MISSED_ONE = Threshold(
    1.0,
    "the release's own declaration: k-anonymity (Sweeney 2002), ℓ-diversity (Machanavajjhala et al. 2007) and t-closeness "
    "(Li, Li & Venkatasubramanian 2007) are bounds every equivalence class must meet; a release missing one it declares is flagged",
)


class PrivacyModelsParams(FamilyParams):
    declared_k: Annotated[int, Field(ge=1)]
    """The k the release declares: a class of fewer records misses it."""
    declared_l: Annotated[float, Field(ge=1)] | None = None
    """The ℓ the release declares (None: not declared)."""
    l_kind: Literal["distinct", "entropy"] = "distinct"
    """Distinct ℓ-diversity (distinct sensitive values per class) or entropy ℓ-diversity (exp of the class's entropy)."""
    declared_t: Annotated[float, Field(ge=0, le=1)] | None = None
    """The t the release declares (None: not declared): a class farther from the table's sensitive distribution misses it."""
    quasi_identifiers: Annotated[tuple[str, ...], Field(min_length=1)] | None = None
    """The quasi-identifiers of a plain table (a generalized table's are its own)."""
    sensitive: str | None = None
    """The sensitive column of a plain table (a generalized table's is its own)."""
    source: Literal["anonymized", "grouped"] | None = None
    """Which table: an anonymized table (``table``) or the generalized one; None: the generalized one when the release has one."""
    table: Annotated[int, Field(ge=0)] = 0
    ordered: bool | None = None
    """Ground distance of t-closeness: ordered (numbers, ordinals) or equal (categories); None: ordered for numbers."""
    bins: dict[str, Annotated[tuple[float, ...], Field(min_length=1)]] = {}
    """Bins of continuous quasi-identifiers of a plain table (else their exact values)."""
    max_records: Annotated[int, Field(ge=0, le=1_000_000)] = 1000
    """Violating records listed (rows of the table measured, lowest first)."""


class PrivacyModels(EvaluationFamily):
    name = "privacy_models"
    Params = PrivacyModelsParams
    fields = PRIVACY_MODEL_FIELDS
    headline = "models_missed"
    threshold = MISSED_ONE
    scale = "how many of the privacy models the release declares (k, ℓ, t) its equivalence classes miss"

    @classmethod
    def headline_interval(cls, row):
        value = float(row["models_missed"])
        return HeadlineInterval(value, value, value, None)  # counted on every class: exact, not estimated

    @classmethod
    def evidence(cls, row) -> str:
        parts = [f"k = {int(row['k'])} (declared {int(row['declared_k'])})"]
        if row.get("declared_l") is not None and row["declared_l"] == row["declared_l"]:
            parts.append(f"{row['l_kind']} ℓ = {float(row['l']):.3g} (declared {float(row['declared_l']):.3g})")
        if row.get("declared_t") is not None and row["declared_t"] == row["declared_t"]:
            parts.append(f"t = {float(row['t']):.3g} (declared {float(row['declared_t']):.3g})")
        return f"{', '.join(parts)}: {int(row['violating_records']):,} of {int(row['n_rows']):,} records in classes missing a declared model"

    @classmethod
    def check_examples(cls, columns: tuple[str, ...]) -> CheckExamples:
        """The demo's k = 3, ℓ = 2 generalized table against k 3, distinct ℓ 2 and t 0.9, and
        against entropy ℓ 2 and k 4 (missed). k-anonymity reads the release alone: a copy and a
        fresh sample, both in classes of one, are alike to it."""
        return CheckExamples(
            [{"declared_k": 3, "declared_l": 2, "declared_t": 0.9}, {"declared_k": 4, "declared_l": 2, "l_kind": "entropy", "ordered": False}],
            release="grouped",
            compares_releases=False,
        )

    @classmethod
    def report_section(cls, scores):
        from alc_dask.families.privacy_models.section import section

        return section(cls.name, scores)

    def describe(self) -> str:
        return f"privacy_models k{self.params.declared_k}"

    def _source(self, release) -> str:
        if self.params.source is not None:
            return self.params.source
        return "grouped" if getattr(release, "grouped", None) is not None else "anonymized"

    def check(self, release) -> None:
        p = self.params
        if self._source(release) == "grouped":
            grouped = getattr(release, "grouped", None)
            if grouped is None:
                raise ScenarioError("source: grouped, but the release has no group-anonymized table (release.grouped)")
            if grouped.scheme != "generalized":
                raise ScenarioError(f"source: the release's grouped table is {grouped.scheme}, not generalized: its quasi-identifiers are not in classes")
            if p.quasi_identifiers is not None and set(p.quasi_identifiers) != set(grouped.quasi_identifiers):
                raise ScenarioError(f"quasi_identifiers: {list(p.quasi_identifiers)} are not the generalized table's {list(grouped.quasi_identifiers)}")
            if p.sensitive is not None and p.sensitive != grouped.sensitive:
                raise ScenarioError(f"sensitive: {p.sensitive!r} is not the generalized table's {grouped.sensitive!r}")
            return
        if p.table >= len(release.anonymized):
            raise ScenarioError(f"table: {p.table} is not an anonymized table of the release (it has {len(release.anonymized)})")
        if p.quasi_identifiers is None or p.sensitive is None:
            raise ScenarioError("quasi_identifiers and sensitive: a plain anonymized table needs both")
        anonymized = release.anonymized[p.table]
        for field, names in (("quasi_identifiers", p.quasi_identifiers), ("sensitive", (p.sensitive,))):
            missing = [n for n in names if n not in anonymized.columns]
            if missing:
                raise ScenarioError(f"{field}: {missing} are not columns of the anonymized table {anonymized.name}; it has {list(anonymized.columns)}")
        if p.sensitive in p.quasi_identifiers:
            raise ScenarioError(f"sensitive: {p.sensitive!r} is also a quasi-identifier")
        stray = [c for c in p.bins if c not in p.quasi_identifiers]
        if stray:
            raise ScenarioError(f"bins: {stray} are not quasi-identifiers")

    def evaluate(self, release, seed: int) -> Evaluation:
        self.check(release)
        p = self.params
        declared = Declared(
            p.declared_k,
            int(np.ceil(p.declared_l)) if p.declared_l is not None and p.l_kind == "distinct" else None,
            p.declared_l if p.l_kind == "entropy" else None,
            p.declared_t,
        )
        if self._source(release) == "grouped":
            grouped = release.grouped
            quasi, sensitive = list(grouped.quasi_identifiers), grouped.sensitive
            numbers = _as_numbers(grouped.sensitive_values)
            ordered = numbers is not None if p.ordered is None else p.ordered
            order = np.argsort(np.argsort(numbers, kind="stable")) if numbers is not None and ordered else np.arange(len(grouped.sensitive_values))
            found = generalized_models(grouped.qi, grouped.sensitive_codes, order, ordered, declared, p.max_records)
            measured = "grouped"
        else:
            anonymized = release.anonymized[p.table]
            quasi, sensitive = list(p.quasi_identifiers), p.sensitive
            ordered = (sensitive in anonymized.continuous or _numeric_codes(release, sensitive)) if p.ordered is None else p.ordered
            blocks, frames = table_frames(anonymized, (*quasi, sensitive), p.bins)
            found = plain_models(blocks, frames, quasi, sensitive, ordered, declared, p.max_records)
            measured = anonymized.name
        return Evaluation(_measures(p, found, declared, quasi, sensitive, ordered, measured))


def _as_numbers(values) -> np.ndarray | None:
    try:
        return np.array([float(v) for v in values])
    except (TypeError, ValueError):
        return None


def _numeric_codes(release, sensitive: str) -> bool:
    """Whether a categorical column's values are numbers (its codes then follow their order)."""
    codes = release.columns[sensitive].secret_codes
    return getattr(codes, "values", np.empty(0, dtype=object)).dtype == np.float64


def _measures(p: PrivacyModelsParams, found, declared: Declared, quasi: list[str], sensitive: str, ordered: bool, measured: str) -> dict:
    l_value = float(found.l_distinct) if p.l_kind == "distinct" else found.l_entropy
    missed = {
        "k": found.k < p.declared_k,
        "l": p.declared_l is not None and l_value < p.declared_l * (1 - 1e-12),
        "t": p.declared_t is not None and found.t > p.declared_t * (1 + 1e-12),
    }
    n_missed = sum(missed.values())
    return {
        "table_measured": measured,
        "quasi_identifiers": json.dumps(quasi),
        "sensitive": sensitive,
        "ground_distance": "ordered" if ordered else "equal",
        "n_rows": found.n_rows,
        "n_classes": found.n_classes,
        "k": found.k,
        "declared_k": p.declared_k,
        "l_distinct": found.l_distinct,
        "l_entropy": found.l_entropy,
        "l_kind": p.l_kind,
        "l": l_value,
        "declared_l": p.declared_l,
        "t": found.t,
        "declared_t": p.declared_t,
        "k_missed": missed["k"],
        "l_missed": missed["l"],
        "t_missed": missed["t"],
        "models_missed": float(n_missed),
        "below_k_records": found.below_k,
        "violating_records": found.violating,
        "violating_share": found.violating / found.n_rows if found.n_rows else float("nan"),
        "violating_rows": found.rows.tolist(),
        "risk": "safe" if not n_missed else ("serious" if found.k <= 1 else "at risk"),
    }
