"""The documentation's reference, generated from the code so that it cannot drift from it.

A page of ``docs/`` asks for a generated part with a marker line, ``<!-- reference:NAME -->``, which
the site's build (``docs/hooks.py``) replaces by ``GENERATED[NAME]()``: the command line from the
click commands, the job file from its pydantic models, ``verdict.json`` from its model, and a
family's summary (``<!-- reference:family:NAME -->``) from the family class. The JSON
Schemas of the job file and of ``verdict.json`` are published beside them (``schema_files``). The
results' column lists are kept in the page itself (``alc_dask.results.columns``) and checked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

MARKER = re.compile(r"^<!-- reference:(?P<name>[\w-]+)(?::(?P<argument>[\w-]+))? -->$", re.MULTILINE)


def _cli() -> str:
    from alc_dask.reference.cli import cli_reference

    return cli_reference()


def _job() -> str:
    from alc_dask.reference.job import job_reference

    return job_reference()


def _verdict() -> str:
    from alc_dask.reference.verdict import verdict_reference

    return verdict_reference()


def _family(name: str) -> str:
    from alc_dask.reference.families import family_summary

    return family_summary(name)


GENERATED: dict[str, Callable[..., str]] = {"cli": _cli, "job": _job, "verdict": _verdict, "family": _family}
"""Marker name -> its Markdown; ``family`` takes the family's name (``<!-- reference:family:membership -->``)."""


def expand(text: str, where: str = "page") -> str:
    """``text`` with every marker replaced by its generated Markdown; an unknown marker is an error."""

    def generated(match: re.Match) -> str:
        if match["name"] not in GENERATED:
            raise KeyError(f"{where}: no generated reference is called {match['name']!r}; known: {', '.join(GENERATED)}")
        return GENERATED[match["name"]](*filter(None, [match["argument"]]))

    return MARKER.sub(generated, text)


def schema_files() -> dict[str, str]:
    """The JSON Schemas the site publishes, by their path in it."""
    from alc_dask.reference.job import job_schema
    from alc_dask.verdict import schema as verdict_schema

    return {
        "reference/job.schema.json": json.dumps(job_schema(), indent=1, ensure_ascii=False) + "\n",
        "reference/verdict.schema.json": json.dumps(verdict_schema(), indent=1) + "\n",
    }
