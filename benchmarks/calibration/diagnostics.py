"""Two simple diagnostics of a release, computed beside alc_dask's verdict with numpy, pandas and
scikit-learn only: a second opinion that does not share alc_dask's code, so that a verdict at odds
with the release's truth can be told apart from a release that leaks less (or more) than its name says.

- closest-distance AUC: how well a person's distance to their closest release row tells members
  from non-members (0.5: not at all);
- nearest-row test: a secret column guessed from the nearest release row on every other column,
  for members and non-members (the gap between the two accuracies is what the release gives away).

The non-members are the control's people: never used to make any release (a bootstrap of the
others would make the others look like members, an artefact rather than a null case).
Distances are Gower-like: the mean over columns of ``|a - b|`` for numbers scaled to [0, 1] and
``a != b`` for categories; a missing number is 1 from any number and 0 from another missing one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

SAMPLE = 1000
"""Members and non-members compared per release: enough for an AUC within a few hundredths, fast."""
RESAMPLES = 200
"""Bootstrap resamples of the AUC's 95% interval."""
CHUNK = 256
"""People whose distances to every release row are held at once (256 x 5000 floats per column)."""
SECRET_VALUES = (2, 20)
"""Distinct values a secret column may have: a category worth guessing, few enough to guess."""


@dataclass(frozen=True)
class Encoded:
    """Tables on one scale: one float column per table column (numbers scaled to [0, 1], categories as codes)."""

    values: list[np.ndarray]
    is_number: np.ndarray
    columns: list[str]


def is_category(series: pd.Series) -> bool:
    """Whether a column is compared by equality: text, categories and booleans."""
    return pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series)


def encode(frames: list[pd.DataFrame]) -> Encoded:
    """``frames`` encoded together, so that a code or a scaled number means the same in each: codes
    shared by all (a missing category is a code of its own), numbers scaled by the min and max over all."""
    together = pd.concat(frames, ignore_index=True)
    columns, is_number = [], []
    for column in together.columns:
        if is_category(together[column]):
            columns.append(pd.factorize(together[column], use_na_sentinel=True)[0].astype(float))
        else:
            numbers = together[column].to_numpy(dtype=float)
            low, high = np.nanmin(numbers), np.nanmax(numbers)
            columns.append((numbers - low) / (high - low) if high > low else np.zeros_like(numbers))
        is_number.append(not is_category(together[column]))
    matrix = np.column_stack(columns)
    bounds = np.cumsum([0] + [len(frame) for frame in frames])
    return Encoded([matrix[start:end] for start, end in zip(bounds[:-1], bounds[1:])], np.array(is_number), list(together.columns))


def nearest_rows(queries: np.ndarray, release: np.ndarray, is_number: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each query's closest release row (its index) and the Gower-like distance to it, in chunks of
    ``CHUNK`` queries so that memory stays at a few tens of MB whatever the release's size."""
    indices, distances = [], []
    for start in range(0, len(queries), CHUNK):
        chunk = queries[start : start + CHUNK]
        total = np.zeros((len(chunk), len(release)))
        for j in range(queries.shape[1]):
            a, b = chunk[:, j, None], release[None, :, j]
            if is_number[j]:
                gap = np.abs(a - b)
                total += np.where(np.isnan(gap), np.isnan(a) != np.isnan(b), gap)
            else:
                total += a != b
        closest = total.argmin(axis=1)
        indices.append(closest)
        distances.append(total[np.arange(len(chunk)), closest] / queries.shape[1])
    return np.concatenate(indices), np.concatenate(distances)


def closest_distance_auc(members: np.ndarray, others: np.ndarray, seed: int) -> tuple[float, float, float]:
    """AUC of "members lie closer to the release than others" and its 95% bootstrap interval
    (members and others resampled apart, ``RESAMPLES`` times)."""
    rng = np.random.default_rng([seed, 3])

    def auc(m: np.ndarray, o: np.ndarray) -> float:
        return float(roc_auc_score(np.r_[np.ones(len(m)), np.zeros(len(o))], -np.r_[m, o]))

    resampled = [auc(rng.choice(members, len(members)), rng.choice(others, len(others))) for _ in range(RESAMPLES)]
    return auc(members, others), float(np.percentile(resampled, 2.5)), float(np.percentile(resampled, 97.5))


def secret_column(members: pd.DataFrame) -> str | None:
    """The category column with 2 to 20 values whose commonest value is rarest among the members: the
    secret a guess from the population gets right least often, so a leak shows most (None: no such column)."""
    shares = {
        column: members[column].value_counts(normalize=True, dropna=False).iloc[0]
        for column in members.columns
        if is_category(members[column]) and SECRET_VALUES[0] <= members[column].nunique(dropna=False) <= SECRET_VALUES[1]
    }
    return min(shares, key=shares.get) if shares else None


def nearest_row_accuracy(queries: np.ndarray, release: np.ndarray, is_number: np.ndarray, secret: int) -> float:
    """Share of ``queries`` whose secret (column ``secret``) equals that of their nearest release row on every other column."""
    others = np.arange(queries.shape[1]) != secret
    index, _ = nearest_rows(queries[:, others], release[:, others], is_number[others])
    return float(np.mean(release[index, secret] == queries[:, secret]))


def diagnose(members: pd.DataFrame, others: pd.DataFrame, release: pd.DataFrame, seed: int) -> dict:
    """Both diagnostics of ``release`` on at most ``SAMPLE`` members and ``SAMPLE`` non-members (``others``)."""
    secret = secret_column(members)
    members = members.sample(min(SAMPLE, len(members)), random_state=seed)
    others = others.sample(min(SAMPLE, len(others)), random_state=seed)
    encoded = encode([members, others, release])
    member_rows, other_rows, released = encoded.values
    _, member_distance = nearest_rows(member_rows, released, encoded.is_number)
    _, other_distance = nearest_rows(other_rows, released, encoded.is_number)
    auc, low, high = closest_distance_auc(member_distance, other_distance, seed)
    row = {"auc": auc, "auc_low": low, "auc_high": high, "nearest_members": None, "nearest_others": None, "secret_for_nearest": secret}
    if secret is not None:
        column = encoded.columns.index(secret)
        row["nearest_members"] = nearest_row_accuracy(member_rows, released, encoded.is_number, column)
        row["nearest_others"] = nearest_row_accuracy(other_rows, released, encoded.is_number, column)
    return row
