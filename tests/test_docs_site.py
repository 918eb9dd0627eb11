"""The documentation as a person meets it: the README's `check` example prints what the README shows,
and the built site holds the generated reference, the JSON Schemas and llms.txt."""

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from alc_dask.apps.demo import make_demo_release

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = re.compile(r"```console\n\$ (?P<command>(?:.*\\\n)*.*)\n(?P<output>(?:(?!\$ ).*\n)*?)(?:\$ .*\n.*\n)?```")


def shown_example(path: Path) -> tuple[list[str], str]:
    """The first console example of ``path``: its command's arguments and the output it shows."""
    match = EXAMPLE.search(path.read_text(encoding="utf-8"))
    return shlex.split(match["command"].replace("\\\n", " ")), match["output"]


def test_the_readme_and_getting_started_show_the_same_check_example():
    assert shown_example(ROOT / "README.md") == shown_example(ROOT / "docs" / "getting-started.md")
    command, output = shown_example(ROOT / "README.md")
    assert command[:2] == [".venv/bin/alc-dask", "check"] and output.startswith("VERDICT: ")


@pytest.mark.long
def test_the_readmes_check_example_prints_what_the_readme_shows(tmp_path):
    """After `make demo` (here: its release alone, as the demo makes it), the README's command."""
    command, output = shown_example(ROOT / "README.md")
    data = tmp_path / "alc-out" / "demo" / "data"
    data.mkdir(parents=True)
    for name, table in make_demo_release(5000, 0).items():
        table.to_parquet(data / f"{name}.parquet", index=False)
    run = subprocess.run([sys.executable, "-m", "alc_dask.cli", *command[1:]], cwd=tmp_path, capture_output=True, text=True, check=False, timeout=600)
    assert run.returncode == 4, run.stderr
    assert run.stdout.replace(f"{tmp_path}/", "") == output


@pytest.mark.long
def test_the_built_site_holds_the_generated_reference_the_schemas_and_llms_txt(tmp_path):
    pytest.importorskip("mkdocs")
    site = tmp_path / "site"
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert build.returncode == 0, build.stderr
    schema = json.loads((site / "reference" / "job.schema.json").read_text(encoding="utf-8"))
    assert schema["title"] == "alc_dask job" and "release" in schema["required"]
    assert json.loads((site / "reference" / "verdict.schema.json").read_text(encoding="utf-8"))["title"] == "Verdict"
    job_page = (site / "reference" / "job-file" / "index.html").read_text(encoding="utf-8")
    assert 'id="family-membership"' in job_page and "broadcast_limit" in job_page
    unexpanded = [page for page in site.rglob("*.html") if "<!-- reference:" in page.read_text(encoding="utf-8")]  # a marker left as HTML
    assert not unexpanded
    llms = (site / "llms.txt").read_text(encoding="utf-8")
    assert llms.startswith("# alc_dask\n\n> ")
    assert "## How-to" in llms and "- [Write a job file](/how-to/job-file/): A job file (YAML or JSON" in llms
    assert "- [Job file](/reference/job-file/)" in llms and "## Benchmarks and validation" in llms
    assert "| `broadcast_limit` |" in (site / "llms-full.txt").read_text(encoding="utf-8")
    assert (site / "benchmarks" / "generators" / "generators.png").is_file()
