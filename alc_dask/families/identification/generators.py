"""The identification family's scenario generator: evaluations on quasi-identifier sets drawn at random."""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
from pydantic import Field

from alc_dask.errors import JobSpecError
from alc_dask.families.planning import Generator, PlanContext, Planned, checked, column_named


class QuasiIdentifierSets(Generator):
    """``count`` sets of ``size`` quasi-identifiers drawn at random (seeded by the job seed) from
    ``columns`` (default: every column), each an evaluation of the ``identification`` family with
    the other keys as its parameters."""

    family: Literal["identification"] = "identification"
    generate: Literal["quasi_identifier_sets"]
    count: Annotated[int, Field(ge=1)] = 4
    size: Annotated[int, Field(ge=1)] = 4
    columns: Annotated[list[str], Field(min_length=1)] | None = None
    population: Annotated[int, Field(ge=1)]
    fit: Literal["measurements", "profile"] = "measurements"
    allow_negative_gamma: bool = False

    def plan(self, context: PlanContext, where: str) -> list[Planned]:
        params = {"population": self.population, "fit": self.fit, "allow_negative_gamma": self.allow_negative_gamma}
        return [
            Planned(checked(self.evaluation({"quasi_identifiers": quasi, **params}), context.release, where), f"{where} quasi_identifier_sets")
            for quasi in self.sample(context, where)
        ]

    def sample(self, context: PlanContext, where: str) -> list[list[str]]:
        """Up to ``count`` distinct sorted sets of ``size`` columns (fewer when fewer exist)."""
        pool = self.columns or list(context.release.original.columns)
        for i, name in enumerate(pool):
            column_named(context.release, name, f"{where}.columns[{i}]")
        if self.size > len(pool):
            raise JobSpecError(f"{where}.size: {self.size} is more than the {len(pool)} columns to draw from")
        rng = np.random.default_rng([context.job_seed, self.count, self.size])
        found: dict[tuple[str, ...], None] = {}
        for _ in range(100 * self.count):
            found.setdefault(tuple(sorted(rng.choice(pool, self.size, replace=False).tolist())), None)
            if len(found) == self.count:
                break
        return [list(quasi) for quasi in found]
