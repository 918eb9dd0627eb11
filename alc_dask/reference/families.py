"""Each family's summary on its concept page, read from the family itself: its headline measure,
what that measures, the threshold its evaluations are judged by and where it comes from."""

from __future__ import annotations

from alc_dask.families import get_family
from alc_dask.reference.schema import markdown_text


def family_summary(name: str, reference: str = "../reference") -> str:
    """A table of family ``name``'s headline, scale, threshold and links to its job entry and columns
    (``reference``: the reference pages' folder, relative to the page)."""
    family = get_family(name)
    threshold = family.threshold
    rows = [
        f"| family | `{name}` |",
        "|---|---|",
        f"| headline measure | `{family.headline}`: {markdown_text(family.scale)} |",
        f"| threshold | {f'{threshold.value:g}: {markdown_text(threshold.source)}' if threshold else 'none: its evaluations are inconclusive in a verdict'} |",
        f"| in a job | [`family: {name}`]({reference}/job-file.md#family-{name}) |",
        f"| in the results | `scores/{name}/`: the [identity columns and the family's own]({reference}/results.md#columns) |",
    ]
    return "\n".join(rows) + "\n"
