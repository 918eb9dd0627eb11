"""What a release keeps of the data it was made from, beside what it exposes: a release of pure noise
exposes nobody, and a custodian must see that it is also useless. It never changes the privacy verdict.

Three measures, each in [0, 1]:

- **Columns kept**: one minus the mean, over the columns, of the total variation distance (half
  the L1 distance) between the original's and the release's distribution of the column: a
  categorical column by its values (missing is a value), a continuous one by ``BINS`` bins at the
  original's quantiles (and one bin each side for values beyond its range).
- **Pairs kept**: how much of the dependence between two columns the release keeps: over the pairs
  of columns (``PAIR_BINS`` codes a column), one minus the change of their bias-corrected Cramér's V
  over their V in the original, each pair weighed by its V there (a weak dependence's V is mostly
  sampling noise), clipped to [0, 1]: a copy keeps 1, a sample of the same population nearly all,
  columns drawn independently about 0, whatever their marginals.
- **Rows told apart**: the ROC AUC of a classifier (histogram gradient boosting, ``FOLDS``-fold
  cross-validated with identical rows in one fold, on up to ``CLASSIFIER_ROWS`` rows of each
  table) trained to tell the release's rows from the original's: 0.5 when it cannot, 1 when every
  row gives itself away (shown no lower than 0.5: a copy's rows, learnt with one label and tested
  with the other, score below chance).

The counts are summed over parts of ``PART_ROWS`` rows of each table, in this process, where the
tables are; the classifier learns on a worker when a client is given, from the rows drawn here. The
parts were sent to the workers as tasks: pickling them was slower than counting them (3e6 rows a
table: 15 s either way) and raised a check's peak memory by 1.2 GB.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict

from alc_dask.baseline.zoo import HGB_MAX_CATEGORIES
from alc_dask.families.battery import is_continuous

BINS = 20
PAIR_BINS = 10
MAX_PAIR_COLUMNS = 40
"""Columns whose pairs are measured at most (the first ones): 780 pairs."""
PART_ROWS = 100_000
CLASSIFIER_ROWS = 10_000
FOLDS = 3
LITTLE = 0.5
"""Below this share of the columns' distributions kept, the release is said to keep little of the data."""


class ColumnFidelity(BaseModel):
    """One column: how far its distribution in the release is from the original's."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    column: str
    kind: str
    """categorical or continuous (compared by the original's quantile bins)."""
    distance: float
    """Total variation distance between the two distributions: 0 the same, 1 disjoint."""


class Fidelity(BaseModel):
    """What the release keeps of the original's distributions (utility); it does not change the verdict."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    columns_kept: float
    """One minus the mean total variation distance of the columns' distributions: 1 the same, 0 disjoint."""
    pairs_kept: float | None
    """The share of the pairwise dependence of the original's columns the release keeps (1: all, 0: no more than independent columns); null with fewer than two columns or none dependent."""
    classifier_auc: float | None
    """ROC AUC of a classifier telling the release's rows from the original's: 0.5 indistinguishable, 1 told apart; null when a table has too few rows."""
    keeps_little: bool
    """Whether the release keeps little of the data: less than half of its columns' distributions."""
    summary: str
    """One sentence for a custodian."""
    per_column: list[ColumnFidelity]
    """Every column, the most changed first."""


class Codebook:
    """How every column's values become small integer codes, fixed by the original: categories (the
    most common ``limit - 1`` and one for the rest) or quantile bins."""

    def __init__(self, original: pd.DataFrame, columns: list[str], limit: int):
        self.columns = columns
        self.kinds = {c: "continuous" if is_continuous(original[c]) else "categorical" for c in columns}
        self.edges, self.categories = {}, {}
        for c in columns:
            if self.kinds[c] == "continuous":
                values = original[c].astype(float).dropna()
                self.edges[c] = np.unique(np.quantile(values, np.linspace(0, 1, limit + 1)[1:-1])) if len(values) else np.array([])
            else:
                counts = original[c].astype("string").fillna("\0missing").value_counts()
                self.categories[c] = pd.Index(counts.index[: limit - 1])

    def size(self, column: str) -> int:
        """Codes of a column: its bins or categories, the rest (beyond the range, other values, missing) included."""
        return len(self.edges[column]) + 2 if column in self.edges else len(self.categories[column]) + 1

    def codes(self, table: pd.DataFrame, column: str) -> np.ndarray:
        if column in self.edges:
            values = table[column].astype(float).to_numpy()
            codes = np.searchsorted(self.edges[column], values, side="right")
            return np.where(np.isnan(values), len(self.edges[column]) + 1, codes)
        categories, values = self.categories[column], table[column]
        if values.dtype == object:  # Python's equality merges 1, 1.0 and True, which read as three texts
            found = categories.get_indexer(values.astype("string").fillna("\0missing"))
        else:  # each distinct value read as text once, not every value: 3e6 rows a table, 12.9 s -> 6.7 s
            factor, distinct = pd.factorize(values)
            found = np.append(categories.get_indexer(pd.Series(distinct).astype("string")), categories.get_indexer(["\0missing"]))[factor]  # factor -1: missing
        return np.where(found < 0, len(categories), found)


def part_counts(table: pd.DataFrame, singles: Codebook, pairs: Codebook, pair_columns: list[str]) -> dict:
    """One part's counts: per column, of its codes; per pair of ``pair_columns``, of their joint codes."""
    single = {c: np.bincount(singles.codes(table, c), minlength=singles.size(c)) for c in singles.columns}
    coded = {c: pairs.codes(table, c) for c in pair_columns}
    joint = {(a, b): np.bincount(coded[a] * pairs.size(b) + coded[b], minlength=pairs.size(a) * pairs.size(b)) for a, b in combinations(pair_columns, 2)}
    return {"single": single, "joint": joint}


def _summed(parts: list[dict]) -> dict:
    return {kind: {key: sum(part[kind][key] for part in parts) for key in parts[0][kind]} for kind in ("single", "joint")}


def _tvd(p: np.ndarray, q: np.ndarray) -> float:
    return 0.5 * float(np.abs(p / max(p.sum(), 1) - q / max(q.sum(), 1)).sum())


def classifier_rows(original: pd.DataFrame, release: pd.DataFrame, seed: int) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """The rows the classifier learns from, ``CLASSIFIER_ROWS`` of each table at most (None when a
    table has too few): drawn where the tables are, so that a worker is sent these rows, not the
    tables (3e6 rows each sent whole to a worker raised a check's peak memory by 2.3 GB)."""
    rows = min(len(original), len(release), CLASSIFIER_ROWS)
    if rows < 2 * FOLDS:
        return None
    return original.sample(rows, random_state=seed), release.sample(rows, random_state=seed + 1)


def told_apart(original_rows: pd.DataFrame, release_rows: pd.DataFrame, continuous: set[str], seed: int) -> float:
    """The classifier's cross-validated AUC on the drawn rows, ``continuous`` the columns read as numbers."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import StratifiedGroupKFold, cross_val_score
    from threadpoolctl import threadpool_limits

    both = pd.concat([original_rows, release_rows], ignore_index=True)
    features = pd.DataFrame({c: both[c].astype(float) if c in continuous else _categories(both[c]) for c in original_rows.columns})
    labels = np.repeat([0, 1], len(original_rows))
    model = HistGradientBoostingClassifier(categorical_features="from_dtype", max_iter=100, random_state=seed)
    folds = StratifiedGroupKFold(FOLDS, shuffle=True, random_state=seed)
    with threadpool_limits(1):  # OpenMP's threads spin-wait: on a busy machine its first fit in a process took 29 s, not 1
        auc = float(np.mean(cross_val_score(model, features, labels, groups=_identical_rows(both), cv=folds, scoring="roc_auc")))
    return max(auc, 0.5)  # below: rows both tables hold, learnt with one label and tested with the other


def _identical_rows(rows: pd.DataFrame) -> np.ndarray:
    """One group per distinct row: its copies fall in one fold, so that the classifier never tests a
    row it learnt. A bootstrap of other people repeats a third of its rows; with them split across
    folds the classifier told tx2019's from the original at AUC 0.83, and a synthetic population's
    at 0.61 where a fresh sample scores 0.50."""
    return pd.factorize(pd.util.hash_pandas_object(rows, index=False))[0]


def _categories(column: pd.Series) -> pd.Series:
    """A column as the classifier's categories: missing values one of them, and beyond the
    ``HGB_MAX_CATEGORIES`` most frequent the rest pooled into one, as histogram boosting bins
    no more (an income written as text holds hundreds of values)."""
    texts = column.astype("string").fillna("\0missing")
    kept = texts.value_counts().index[:HGB_MAX_CATEGORIES]
    return texts.where(texts.isin(kept), "\0other").astype("category")


def fidelity(original: pd.DataFrame, release: pd.DataFrame, client=None, seed: int = 0) -> Fidelity:
    """What ``release`` keeps of ``original`` on the columns they share (see the module), its
    classifier run on ``client``'s cluster when one is given."""
    columns = [c for c in original.columns if c in release.columns]
    original, release = original[columns], release[columns]
    singles, pairs = Codebook(original, columns, BINS), Codebook(original, columns[:MAX_PAIR_COLUMNS], PAIR_BINS)
    pair_columns = columns[:MAX_PAIR_COLUMNS]
    drawn = classifier_rows(original, release, seed)
    continuous = {c for c, kind in singles.kinds.items() if kind == "continuous"}
    told = None if drawn is None or client is None else client.submit(told_apart, *drawn, continuous, seed, pure=False)
    counts = {
        name: _summed([part_counts(part, singles, pairs, pair_columns) for part in _parts(table)])
        for name, table in (("original", original), ("release", release))
    }
    auc = told.result() if told is not None else (None if drawn is None else told_apart(*drawn, continuous, seed))
    per_column = sorted(
        (ColumnFidelity(column=c, kind=singles.kinds[c], distance=_tvd(counts["original"]["single"][c], counts["release"]["single"][c])) for c in columns),
        key=lambda item: -item.distance,
    )
    columns_kept = 1.0 - float(np.mean([item.distance for item in per_column]))
    pairs_kept = _pairs_kept(counts, pairs)
    little = columns_kept < LITTLE
    return Fidelity(
        columns_kept=columns_kept,
        pairs_kept=pairs_kept,
        classifier_auc=auc,
        keeps_little=bool(little),
        summary=_sentence(columns_kept, pairs_kept, auc, per_column, little),
        per_column=per_column,
    )


def cramers_v(counts: np.ndarray) -> float:
    """Bias-corrected Cramér's V of a contingency table (Bergsma 2013): 0 independent, 1 one column
    determines the other. The correction keeps two samples' V apart by their dependence, not by
    their sizes."""
    counts = counts[counts.sum(axis=1) > 0][:, counts.sum(axis=0) > 0]
    n = counts.sum()
    rows, cols = counts.shape
    if n < 2 or rows < 2 or cols < 2:
        return 0.0
    expected = np.outer(counts.sum(axis=1), counts.sum(axis=0)) / n
    phi2 = float(((counts - expected) ** 2 / expected).sum()) / n
    phi2 = max(0.0, phi2 - (rows - 1) * (cols - 1) / (n - 1))
    rows_c, cols_c = rows - (rows - 1) ** 2 / (n - 1), cols - (cols - 1) ** 2 / (n - 1)
    spread = min(rows_c - 1, cols_c - 1)
    return float(np.sqrt(phi2 / spread)) if spread > 0 else 0.0


def _pairs_kept(counts: dict, pairs: Codebook) -> float | None:
    """One minus the pairs' change of Cramér's V over their V in the original, each pair weighed by its V there."""
    changed, held = 0.0, 0.0
    for (a, b), joint in counts["original"]["joint"].items():
        shape = (pairs.size(a), pairs.size(b))
        before, after = cramers_v(joint.reshape(shape)), cramers_v(counts["release"]["joint"][(a, b)].reshape(shape))
        changed += before * abs(after - before)  # weighed by the dependence there was: a weak one's V is mostly sampling noise
        held += before * before
    if held <= 0:
        return None
    return float(np.clip(1.0 - changed / held, 0.0, 1.0))


def _sentence(columns_kept: float, pairs_kept: float | None, auc: float | None, per_column: list[ColumnFidelity], little: bool) -> str:
    parts = [f"the columns' distributions {columns_kept:.0%}"]
    if pairs_kept is not None:
        parts.append(f"the dependence between pairs of columns {pairs_kept:.0%}")
    sentence = f"The release keeps {' and '.join(parts)} of the original's"
    if auc is not None:
        sentence += f"; a classifier tells its rows from the original's with AUC {auc:.2f} (0.5: it cannot)"
    if per_column and per_column[0].distance >= 0.1:
        sentence += f"; the most changed column is {per_column[0].column!r} (distance {per_column[0].distance:.2f})"
    return ("It keeps little of the data: " + sentence[0].lower() + sentence[1:] if little else sentence) + "."


def _parts(table: pd.DataFrame) -> list[pd.DataFrame]:
    return [table.iloc[start : start + PART_ROWS] for start in range(0, max(len(table), 1), PART_ROWS)]
