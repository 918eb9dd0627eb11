"""The results reference's column lists (docs/reference/results.md) are generated from the schemas,
every column described in one line."""

import subprocess
import sys
from pathlib import Path

import pytest

from alc_dask.errors import InputError
from alc_dask.families import family_names, get_family
from alc_dask.results import IDENTITY, PREDICTIONS
from alc_dask.results.columns import BLOCK, COMMAND, description, rendered, required

PAGE = Path(__file__).resolve().parents[1] / "docs" / "reference" / "results.md"


def test_the_pages_column_lists_are_those_the_schemas_generate():
    text = PAGE.read_text(encoding="utf-8")
    assert rendered(text) == text, f"{PAGE.name}'s column lists differ from the schemas: run {COMMAND}"


@pytest.mark.parametrize("table", ["identity", "predictions", *family_names()])
def test_every_column_carries_a_one_line_description(table):
    fields = {"identity": IDENTITY, "predictions": PREDICTIONS}.get(table) or get_family(table).fields
    if table not in required():
        pytest.skip(f"{table} is a plugin's family: its descriptions are its own")
    undescribed = [field.name for field in fields if not description(field).strip() or "\n" in description(field)]
    assert not undescribed, f"{table}: columns without a one-line description: {undescribed}"


def test_every_family_of_the_package_has_its_list():
    assert {"identity", "predictions", "alc", "membership", "relative_threat"} <= set(required())
    text = PAGE.read_text(encoding="utf-8")
    without = BLOCK.sub(lambda match: "" if match["name"] == "membership" else match[0], text)
    with pytest.raises(InputError, match="the page has no column list for membership: add '<!-- columns:NAME -->'"):
        rendered(without)
    with pytest.raises(InputError, match="column lists of no known table: nope"):
        rendered(text + "<!-- columns:nope -->\n<!-- /columns -->\n")


def test_the_module_rewrites_a_page_whose_lists_drifted(tmp_path):
    drifted = BLOCK.sub(lambda match: match["open"] + "| `old` | `string` | hand-kept |\n" + match["close"], PAGE.read_text(encoding="utf-8"))
    copy = tmp_path / "results.md"
    copy.write_text(drifted, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "alc_dask.results.columns", str(copy)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert f"{copy}: column lists updated" in run.stdout and copy.read_text(encoding="utf-8") == PAGE.read_text(encoding="utf-8")
    assert "| `membership_alc` | `double` | at the attacker's skew, the ALC of the attack over the all-member guess |" in copy.read_text(encoding="utf-8")
