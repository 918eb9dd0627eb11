"""What a job says about ALC scenarios: the job-wide settings (top-level keys of a job), an explicit
scenario entry, and the generators that write many scenarios from one entry."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from alc_dask.families.alc.params import AlcSettings, AttackSpec, Baseline
from alc_dask.families.alc.planning import (
    ALC,
    UniqueShares,
    check_explicit,
    others,
    paper_attacks,
    planned,
    sample_known_sets,
    secrets,
)
from alc_dask.families.alc.settings import ToleranceSpec
from alc_dask.families.alc.targets import TargetSelector
from alc_dask.families.planning import Generator, PlanContext, Planned


class AlcJobSettings(AlcSettings):
    """How a job's ALC scenarios are attacked and measured. Scenarios are crossed with ``attacks``
    and ``baselines`` unless they name their own; ``targets`` is every scenario's target selection
    unless it names its own."""

    attacks: Annotated[list[AttackSpec], Field(min_length=1)] = [AttackSpec(name="best_row_match")]
    """The attacks every scenario is run with: names, or ``{name, params}``."""
    baselines: Annotated[list[Baseline], Field(min_length=1)] = ["ml"]
    """``ml``: a model trained on the original minus the targets; ``prior``: the attack on a swapped
    copy of the original; ``control``: the attack on control records."""
    targets: TargetSelector | None = None
    """A pre-targeted selection of the original's rows (default: every row may be a target)."""

    @field_validator("attacks", mode="before", json_schema_input_type=Annotated[list[str | AttackSpec], Field(min_length=1)])
    @classmethod
    def _attack_names(cls, value):
        """``attacks: [best_row_match]`` is short for ``[{name: best_row_match}]``."""
        if isinstance(value, list):
            return [{"name": item} if isinstance(item, str) else item for item in value]
        return value


class ExplicitScenario(BaseModel):
    """One scenario written out; attack, baseline and targets default to the job's."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    secret: str
    """The column the attack infers."""
    known: Annotated[list[str], Field(min_length=1)]
    """The columns the attacker knows of each target."""
    attack: AttackSpec | None = None
    baseline: Baseline | None = None
    targets: TargetSelector | None = None
    tolerance: ToleranceSpec | None = None
    """The job's tolerance for this scenario's continuous secret, or its own."""

    def plan(self, context: PlanContext, where: str) -> list[Planned]:
        check_explicit(context.release, self, where)
        settings = context.settings["alc"]
        baselines = [self.baseline] if self.baseline else settings.baselines
        return planned(context, self, where, [(self.secret, self.known, "explicit", self.attack, baselines, self.targets or settings.targets)])


class AlcGenerator(Generator):
    """A generator of ALC scenarios; an entry may say ``family: alc``."""

    family: Literal["alc"] = "alc"


class EachColumn(AlcGenerator):
    """Every column (or the listed ``secrets``) as the secret, all other columns known."""

    generate: Literal["each_column"]
    secrets: Annotated[list[str], Field(min_length=1)] | None = None

    def plan(self, context: PlanContext, where: str) -> list[Planned]:
        settings, release = context.settings["alc"], context.release
        produced = ((s, others(release, s, self, where), "each_column", None, settings.baselines, settings.targets) for s in secrets(release, self, where))
        return planned(context, self, where, produced)


class SampledKnown(AlcGenerator):
    """Per secret, ``per_secret`` sets of ``size`` known columns whose value combinations are mostly
    unique: at least ``min_unique`` of the original rows are alone with their combination (the
    paper's good known-column sets). Sets are drawn at random from the other columns, seeded by the
    job seed; when fewer than ``per_secret`` pass after ``tries`` draws, the most unique are used."""

    generate: Literal["sampled_known"]
    per_secret: Annotated[int, Field(ge=1)] = 3
    size: Annotated[int, Field(ge=1)] = 3
    min_unique: Annotated[float, Field(ge=0, le=1)] = 0.5
    tries: Annotated[int, Field(ge=1)] = 200
    secrets: Annotated[list[str], Field(min_length=1)] | None = None

    def plan(self, context: PlanContext, where: str) -> list[Planned]:
        settings, release = context.settings["alc"], context.release

        def produced():
            for secret in secrets(release, self, where):
                others(release, secret, self, where)
                # each column ranked once, and a set drawn for several secrets counted once
                shares = context.memo.setdefault((ALC, "unique shares"), UniqueShares(release))
                for known, share in sample_known_sets(release, secret, self, context.job_seed, shares):
                    yield secret, known, f"sampled_known unique={share:.2f}", None, settings.baselines, settings.targets

        return planned(context, self, where, produced())


class PaperProtocol(AlcGenerator):
    """The paper's experiment: entries of its jobs.json for one dataset, each with its first
    ``secrets_per_entry`` shuffled non-known columns as secrets. ``approach`` ours attacks with the
    ML baseline, prior with the prior baseline, both with each (the two approaches of the paper
    share their known-column sets). ``sample`` draws that many of the attacks at random (seeded by
    the job seed) instead of running them all."""

    files = ("jobs_file",)

    generate: Literal["paper"]
    jobs_file: str
    dataset: str
    approach: Literal["ours", "prior", "both"] = "ours"
    entries: Annotated[int, Field(ge=1)] | None = None
    secrets_per_entry: Annotated[int, Field(ge=1)] = 5
    sample: Annotated[int, Field(ge=1)] | None = None

    def plan(self, context: PlanContext, where: str) -> list[Planned]:
        baselines = {"ours": ["ml"], "prior": ["prior"], "both": ["ml", "prior"]}[self.approach]
        targets = context.settings["alc"].targets
        attacks = paper_attacks(self, context.release, context.job_seed, where)
        return planned(context, self, where, ((s, known, f"paper job {job}", None, baselines, targets) for s, known, job in attacks))


GENERATORS = (EachColumn, SampledKnown, PaperProtocol)
