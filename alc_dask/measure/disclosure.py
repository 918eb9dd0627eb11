"""synthpop's identity and attribute disclosure measures of a release against its original (Raab,
Nowok & Dibben 2024, "Practical privacy metrics for synthetic data", arXiv:2406.16826; synthpop's
``disclosure()``), as pure functions of key/target counts.

Each original record has a key q (its quasi-identifiers, missing values a category of their own)
and a target value t. With ``n_d(q)``, ``n_d(q, t)`` the original's counts and ``n_s`` the
release's, the shares of the N_d original records are:

- identity: UiO, unique in the original (``n_d(q) = 1``); UiOiS, unique in the original and present
  in the release (``n_s(q) >= 1``); RepU, replicated uniques: unique in both (``n_s(q) = 1``).
  UiS is the share of the N_s release records unique in the release.
- attribute: DiO (synthpop's ``Dorig``), disclosive in the original (every original record of the
  key holds t: ``n_d(q, t) = n_d(q)``); iS, the key is in the release; DiS, disclosive in the
  release (the release's records of the key hold one target value); DiSCO, disclosive in the
  release and correct in the original (``n_s(q, t) = n_s(q) >= 1``); DiSDiO, DiSCO and DiO.
  Dsyn is the share of release records disclosive in the release.

A control table (people not in the release) is scored by the same definitions in place of the
original: what the release discloses of a non-member. The risk is the original's excess over it,
``(share - control) / (1 - control)``, from Wilson-corrected rates as Anonymeter's (Giomi et al.
2023) with its interval (``alc_dask.measure.privacy_risk``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

import pandas as pd

from alc_dask.measure.privacy_risk import bounded, residual_rate, success_rate

COUNT = "n"
"""The column of a counts frame holding how many records share its key (and target)."""


@dataclass(frozen=True)
class DisclosureCounts:
    """Records counted by each definition (numerators of the shares), summable over key buckets."""

    n_original: int = 0
    n_release: int = 0
    unique_original: int = 0
    unique_release: int = 0
    unique_original_in_release: int = 0
    replicated_uniques: int = 0
    disclosive_original: int = 0
    disclosive_release_records: int = 0
    in_release: int = 0
    disclosive_release: int = 0
    disco: int = 0
    disco_disclosive_original: int = 0

    def __add__(self, other: DisclosureCounts) -> DisclosureCounts:
        return DisclosureCounts(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})

    def shares(self) -> dict[str, float]:
        """Every share, of the original's records (of the release's for UiS and Dsyn)."""
        per_original = {
            "uio": self.unique_original,
            "uiois": self.unique_original_in_release,
            "repu": self.replicated_uniques,
            "dio": self.disclosive_original,
            "is": self.in_release,
            "dis": self.disclosive_release,
            "disco": self.disco,
            "disdio": self.disco_disclosive_original,
        }
        shares = {name: count / self.n_original if self.n_original else float("nan") for name, count in per_original.items()}
        shares["uis"] = self.unique_release / self.n_release if self.n_release else float("nan")
        shares["dsyn"] = self.disclosive_release_records / self.n_release if self.n_release else float("nan")
        return shares

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def disclosure_counts(original: pd.DataFrame, release: pd.DataFrame, keys: list[str], target: str | None) -> DisclosureCounts:
    """The definitions counted on counts frames of the original and the release (rows of coded
    keys and target, no missing value, with their ``COUNT``; without a target, the attribute
    counts stay 0). Frames may hold a part of the keys (a hash bucket) as long as both hold the
    same part."""
    by = [*keys, target] if target else list(keys)
    original = original.groupby(by, dropna=False, sort=False)[COUNT].sum().rename("n_d").reset_index()
    release = release.groupby(by, dropna=False, sort=False)[COUNT].sum().rename("n_s").reset_index()
    n_d_key = original.groupby(keys, dropna=False, sort=False)["n_d"].sum().rename("n_d_key")
    n_s_key = release.groupby(keys, dropna=False, sort=False)["n_s"].sum().rename("n_s_key")
    s_targets = release.groupby(keys, dropna=False, sort=False)["n_s"].size().rename("s_targets")
    per_key = pd.concat([n_d_key, n_s_key, s_targets], axis=1).fillna(0)
    unique_d, n_s_of = per_key["n_d_key"] == 1, per_key["n_s_key"]
    counts = {
        "n_original": int(per_key["n_d_key"].sum()),
        "n_release": int(per_key["n_s_key"].sum()),
        "unique_original": int(unique_d.sum()),
        "unique_release": int((n_s_of == 1).sum()),
        "unique_original_in_release": int((unique_d & (n_s_of >= 1)).sum()),
        "replicated_uniques": int((unique_d & (n_s_of == 1)).sum()),
        "in_release": int(per_key.loc[n_s_of >= 1, "n_d_key"].sum()),
    }
    if target is None:
        return DisclosureCounts(**counts)
    counts["disclosive_release"] = int(per_key.loc[per_key["s_targets"] == 1, "n_d_key"].sum())
    counts["disclosive_release_records"] = int(per_key.loc[per_key["s_targets"] == 1, "n_s_key"].sum())
    cells = original.join(per_key, on=keys).merge(release, on=by, how="left")
    cells["n_s"] = cells["n_s"].fillna(0)
    disclosive_d = cells["n_d"] == cells["n_d_key"]
    disco = (cells["n_s"] == cells["n_s_key"]) & (cells["n_s"] >= 1)
    return DisclosureCounts(
        **counts,
        disclosive_original=int(cells.loc[disclosive_d, "n_d"].sum()),
        disco=int(cells.loc[disco, "n_d"].sum()),
        disco_disclosive_original=int(cells.loc[disco & disclosive_d, "n_d"].sum()),
    )


@dataclass(frozen=True)
class ExcessRisk:
    """A share of the original's records beyond the same share of the control's, with its interval."""

    value: float
    low: float
    high: float
    rate: float
    control_rate: float


def excess_risk(n_original: int, hits: int, n_control: int, control_hits: int, confidence_level: float = 0.95) -> ExcessRisk:
    """``(rate - control) / (1 - control)`` of Wilson-corrected rates, bounded to [0, 1]; the rate
    itself when there is no control table (``n_control`` 0)."""
    rate = success_rate(n_original, hits, confidence_level)
    control = success_rate(n_control, control_hits, confidence_level) if n_control else None
    risk = bounded(residual_rate(rate, control) if control else rate)
    return ExcessRisk(risk.value, risk.low, risk.high, rate.value, control.value if control else float("nan"))
