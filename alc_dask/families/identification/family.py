"""Identification at population scale (Rocher et al. 2025): if someone matches these quasi-identifiers
against a whole population, how many would be identified correctly?

The original table's anonymity sets on the quasi-identifiers are measured at sizes from 1 to the
table's on nested random subsamples (``alc_dask.families.identification.anonymity_sets``, one pass over the partitions),
the Pitman–Yor scaling law is fitted to them (``measure.scaling_fits``: to the κ(n) points, or to
the table's frequency profile), and correctness, uniqueness and k-anonymity violations are
forecast at the population size. The forecasts come from the fit of every repeat's points; each
repeat of the subsampling is also fitted on its own, and the spread of their forecasts, carried to
the forecast, is its interval.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

import numpy as np
import pyarrow as pa
from pydantic import Field

from alc_dask.data import ScenarioError
from alc_dask.families.base import CheckExamples, Evaluation, EvaluationFamily, FamilyParams, HeadlineInterval, column
from alc_dask.families.identification.generators import QuasiIdentifierSets
from alc_dask.measure.verdict import REIDENTIFICATION


class IdentificationParams(FamilyParams):
    quasi_identifiers: Annotated[tuple[str, ...], Field(min_length=1)]
    population: Annotated[int, Field(ge=1)]
    """People the attacker matches against, the table's included."""
    fit: Literal["measurements", "profile"] = "measurements"
    """PYC-MB on the κ(n) points, or MAP on the table's frequency profile of set sizes."""
    allow_negative_gamma: bool = False
    """Let the tail complexity go below 0 (a finite population of sets, lighter than geometric)."""
    repeats: Annotated[int, Field(ge=1, le=50)] = 5
    levels: Annotated[int, Field(ge=3, le=200)] = 30
    k: Annotated[int, Field(ge=2)] = 5
    """k-anonymity: the share of records in sets of fewer than k is reported."""


MICRODATA_SHARE = 0.5
"""The share of a release's rows that must be the original's own for the battery to forecast identification."""


class Identification(EvaluationFamily):
    name = "identification"
    criterion = "identification"
    Params = IdentificationParams
    headline = "kappa_population"
    threshold = REIDENTIFICATION
    scale = "κ: the share of the population identified correctly when matched on the quasi-identifiers"

    @classmethod
    def battery(cls, tables):
        """A match on the quasi-identifiers in the battery's population, when at least
        ``MICRODATA_SHARE`` of the release's rows are rows of the original (a copy, a subset or a
        sample of the microdata): the forecast reads the original alone, so it speaks of the release
        only when the release publishes people's own records; a synthetic or perturbed release is
        judged by the attacks on it instead."""
        if not tables.quasi_identifiers or tables.microdata_share < MICRODATA_SHARE:
            return []
        return [{"family": cls.name, "quasi_identifiers": list(tables.quasi_identifiers), "population": tables.population, "allow_negative_gamma": True}]

    @classmethod
    def headline_interval(cls, row):
        return HeadlineInterval(float(row["kappa_population"]), float(row["kappa_population_low"]), float(row["kappa_population_high"]), None)

    @classmethod
    def evidence(cls, row) -> str:
        return (
            f"matched on {', '.join(json.loads(row['quasi_identifiers']))}, {float(row['kappa_population']):.1%} of a population of "
            f"{int(row['population']):,} would be identified correctly"
        )

    generators = (QuasiIdentifierSets,)

    @classmethod
    def check_examples(cls, columns: tuple[str, ...]) -> CheckExamples:
        """Three quasi-identifiers fitted on few levels, and two sets drawn by the generator fitted to
        the frequency profile (quick). The forecast reads the original table alone: a copy and a
        fresh sample are not compared."""
        return CheckExamples(
            [
                {"quasi_identifiers": ["age", "sex", "region"], "population": 10_000, "repeats": 2, "levels": 10},
                {
                    "generate": "quasi_identifier_sets",
                    "count": 2,
                    "size": 3,
                    "population": 10_000,
                    "fit": "profile",
                    "columns": ["age", "sex", "region", "education"],
                },
            ],
            compares_releases=False,
        )

    @classmethod
    def report_section(cls, scores):
        from alc_dask.families.identification.section import section

        return section(cls.name, scores)

    fields = (
        column("quasi_identifiers", pa.string(), "the columns matched on, as a JSON list"),
        column("n_rows", pa.int64(), "records of the original table"),
        column("population", pa.int64(), "people matched against, the table's included"),
        column("fit_method", pa.string(), "how the Pitman-Yor law was fitted: PYC-MB on the measured points, or MAP on the set sizes"),
        column("h", pa.float64(), "the fitted law's entropy, in nats"),
        column("gamma", pa.float64(), "the fitted law's tail complexity"),
        column("fit_converged", pa.bool_(), "whether the fit converged"),
        column("kappa_table", pa.float64(), "correctness measured on the whole table: the share of its records a matching attack identifies"),
        column("kappa_table_fitted", pa.float64(), "correctness the fitted law gives at the table's size"),
        column("kappa_population", pa.float64(), "correctness forecast at the population"),
        column("kappa_population_low", pa.float64(), "low end of the forecast's interval, from the repeats' forecasts (none for a MAP fit)"),
        column("kappa_population_high", pa.float64(), "high end of the forecast's interval, from the repeats' forecasts (none for a MAP fit)"),
        column("uniqueness_table", pa.float64(), "share of the table's records alone in their anonymity set"),
        column("uniqueness_population", pa.float64(), "uniqueness forecast at the population"),
        column("uniqueness_population_low", pa.float64(), "low end of the uniqueness forecast's interval"),
        column("uniqueness_population_high", pa.float64(), "high end of the uniqueness forecast's interval"),
        column("k", pa.int64(), "the k of the k-anonymity violations"),
        column("k_violations_table", pa.float64(), "share of the table's records in anonymity sets smaller than k"),
        column("k_violations_population", pa.float64(), "k-anonymity violations forecast at the population"),
        column("k_violations_population_low", pa.float64(), "low end of the violations forecast's interval"),
        column("k_violations_population_high", pa.float64(), "high end of the violations forecast's interval"),
        column("curve_sizes", pa.list_(pa.float64()), "the measured curve: mean records sampled per level"),
        column("curve_kappa", pa.list_(pa.float64()), "the measured curve: mean measured correctness per level"),
        column("warning", pa.string(), "what makes the forecast doubtful: a fit that did not converge or stopped at a bound, ..."),
    )

    def describe(self) -> str:
        return "identification " + "-".join(self.params.quasi_identifiers[:3])

    def check(self, release) -> None:
        p = self.params
        missing = [c for c in p.quasi_identifiers if c not in release.original.columns]
        if missing:
            raise ScenarioError(f"quasi_identifiers: {missing} are not columns of the original table; it has {list(release.original.columns)}")
        if p.population < release.original.n_rows:
            raise ScenarioError(f"population: {p.population} is smaller than the {release.original.n_rows} records of the original table")

    def evaluate(self, release, seed: int) -> Evaluation:
        # Dask and SciPy, imported when a scenario runs: planning a job imports every family
        from alc_dask.families.identification.anonymity_sets import anonymity_sets
        from alc_dask.measure.scaling_fits import fit_correctness, fit_profile

        p = self.params
        self.check(release)
        curves = anonymity_sets(release.original, p.quasi_identifiers, seed=seed, repeats=p.repeats, levels=p.levels)
        sampled = (curves.records >= 1).all(axis=0)
        sizes, kappa = curves.records.mean(axis=0)[sampled], curves.correctness.mean(axis=0)[sampled]
        if p.fit == "profile":
            fit, repeat_fits = fit_profile(curves.profile_sizes, curves.profile_counts, p.allow_negative_gamma), []
        else:
            fit = fit_correctness(*curves.points(), p.allow_negative_gamma)
            repeat_fits = [fit_correctness(*curves.points(r), p.allow_negative_gamma) for r in range(p.repeats)] if p.repeats > 1 else []
        n_rows, model = release.original.n_rows, fit.model
        point = _at_population(model, p.population, p.k)
        forecast, unique, violations = point
        low, high = forecast_interval(point, [_at_population(f.model, p.population, p.k) for f in repeat_fits if f.model is not None])
        warnings = _fit_warnings(fit, n_rows, float(curves.correctness[:, -1].mean()))
        return Evaluation(
            {
                "quasi_identifiers": json.dumps(list(p.quasi_identifiers)),
                "n_rows": n_rows,
                "population": p.population,
                "fit_method": fit.method,
                "h": model.h if model is not None else np.nan,
                "gamma": model.gamma if model is not None else np.nan,
                "fit_converged": fit.converged,
                "kappa_table": float(curves.correctness[:, -1].mean()),
                "kappa_table_fitted": model.correctness(n_rows) if model is not None else np.nan,
                "kappa_population": forecast,
                "kappa_population_low": low[0],
                "kappa_population_high": high[0],
                "uniqueness_table": float(curves.uniqueness[:, -1].mean()),
                "uniqueness_population": unique,
                "uniqueness_population_low": low[1],
                "uniqueness_population_high": high[1],
                "k": p.k,
                "k_violations_table": curves.k_violations(p.k),
                "k_violations_population": violations,
                "k_violations_population_low": low[2],
                "k_violations_population_high": high[2],
                "curve_sizes": sizes.tolist(),
                "curve_kappa": kappa.tolist(),
                "warning": "; ".join(warnings) or None,
            }
        )


ALL_ALONE = (
    "every record of the table is alone in its set: any h large enough fits, so h and gamma are arbitrary"
    " and the forecasts are the most exposed the table allows"
)


def _fit_warnings(fit, n_rows: int, measured: float) -> list[str]:
    """What makes the fit's forecast doubtful: no convergence, a table with no set of two to learn
    the law's tail from, a parameter stopped at a bound of its range (with how well the table is met)."""
    warnings = [] if fit.converged else [f"the {fit.method} fit did not converge ({fit.message}): its forecast is uncertain"]
    if measured == 1.0:
        warnings.append(ALL_ALONE)
    if fit.model is not None:
        fitted = fit.model.correctness(n_rows)
        for bound in fit.bounds:
            hint = "; try allow_negative_gamma" if bound == "gamma at its bound 0" else ""
            warnings.append(f"{bound} (kappa at the table: fitted {fitted:.3g}, measured {measured:.3g}){hint}")
    return warnings


def _at_population(model, population: int, k: int) -> tuple[float, float, float]:
    """Correctness, uniqueness and the share in sets below ``k`` that ``model`` forecasts (NaN without a model)."""
    if model is None:
        return np.nan, np.nan, np.nan
    return float(model.correctness(population)), float(model.uniqueness(population)), float(model.k_violations(population, k))


def forecast_interval(point: tuple[float, ...], forecasts: list[tuple[float, ...]]) -> tuple[list[float], list[float]]:
    """Per measure (a share, within [0, 1]), the interval of the ``point`` forecast: the repeats'
    forecasts from their median down to their 2.5th and up to their 97.5th percentile, carried to the
    point, so the point lies in its interval by construction. The repeats tell how far a forecast
    moves with the subsample; the point, fitted to all their measurements, where it lies (a
    percentile interval of the repeats alone may miss it: a fit is not linear in its points).
    NaN without repeats (MAP fits the whole table's profile once, so it has no spread)."""
    if not forecasts:
        return [np.nan] * len(point), [np.nan] * len(point)
    low, middle, high = np.percentile(forecasts, [2.5, 50.0, 97.5], axis=0)
    return np.clip(np.subtract(point, middle - low), 0.0, 1.0).tolist(), np.clip(np.add(point, high - middle), 0.0, 1.0).tolist()
