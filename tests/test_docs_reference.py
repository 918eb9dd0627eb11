"""The documentation's reference is generated from the code: a job field, a family parameter, a
result column or a command added to the code shows in the pages, and the JSON Schema published for
editors accepts every job the project ships."""

import re
from pathlib import Path
from typing import Annotated

import click
import jsonschema
import pyarrow as pa
import pytest
import yaml
from pydantic import Field

from alc_dask.cli import main
from alc_dask.families import column, family_names, get_family
from alc_dask.jobs.spec import job_model
from alc_dask.reference import expand, schema_files
from alc_dask.reference.cli import cli_reference, exit_codes
from alc_dask.reference.families import family_summary
from alc_dask.reference.job import job_reference, job_schema
from alc_dask.reference.verdict import verdict_reference
from alc_dask.results.columns import rendered
from alc_dask.results.schema import family_schema
from alc_dask.verdict import Verdict

ROOT = Path(__file__).resolve().parents[1]
RESULTS_PAGE = ROOT / "docs" / "reference" / "results.md"


class JobWithRetention(job_model()):
    retention_days: Annotated[int, Field(ge=1, le=3650)] = 30
    """Days an audit's results are kept before they are removed."""


def test_a_job_field_added_to_the_model_shows_in_the_reference_and_the_schema():
    row = "| `retention_days` | `integer` | `30` | ≥ 1, ≤ 3650 | Days an audit's results are kept before they are removed. |"
    assert row in job_reference(JobWithRetention)
    assert "retention_days" not in job_reference()
    field = job_schema(JobWithRetention)["properties"]["retention_days"]
    assert (field["minimum"], field["maximum"], field["default"]) == (1, 3650, 30)
    assert field["description"] == "Days an audit's results are kept before they are removed."


def test_a_family_parameter_added_shows_in_that_familys_entry(monkeypatch):
    family = get_family("membership")

    class WithBudget(family.Params):
        budget_seconds: Annotated[float, Field(gt=0)] | None = None
        """Stop scoring after this many seconds."""

    monkeypatch.setattr(family, "Params", WithBudget)
    page = job_reference()
    section = page[page.index("{#family-membership}") : page.index("{#family-privacy_models}")]
    assert "| `budget_seconds` | `number` or `null` | `null` | > 0 | Stop scoring after this many seconds. |" in section
    assert "budget_seconds" in job_schema()["$defs"]["membership_scenario"]["properties"]


def test_every_key_of_the_job_and_of_every_entry_is_in_the_reference():
    page = job_reference()
    schema = job_schema()
    keys = set(schema["properties"]) | {key for definition in schema["$defs"].values() for key in definition.get("properties", {})}
    missing = [key for key in keys if f"| `{key}` |" not in page and key not in ("family", "generate")]
    assert not missing, missing
    for name in family_names():
        assert f"### `family: {name}` {{#family-{name}}}" in page
    assert "| `original` | `string` | required |" in page and "## `release.grouped` {#release-grouped}" in page


def test_a_result_column_added_to_a_family_shows_in_the_results_page(monkeypatch):
    family = get_family("disclosure")
    committed = RESULTS_PAGE.read_text(encoding="utf-8")
    try:
        with monkeypatch.context() as patch:
            patch.setattr(family, "fields", (*family.fields, column("n_keys_seen", pa.int64(), "distinct key combinations of the original")))
            family_schema.cache_clear()  # the schemas are built once per process
            page = rendered(committed)
    finally:
        family_schema.cache_clear()
    start = page.index("<!-- columns:disclosure -->")
    block = page[start : page.index("<!-- /columns -->", start)]
    assert block.endswith("| `n_keys_seen` | `int64` | distinct key combinations of the original |\n")
    assert "n_keys_seen" not in committed and rendered(committed) == committed


def test_a_stale_column_list_fails_the_sites_build(monkeypatch):
    hooks = pytest.importorskip("mkdocs") and _hooks()
    warnings = []
    monkeypatch.setattr(hooks.log, "warning", warnings.append)
    page = _page("reference/results.md")
    stale = RESULTS_PAGE.read_text(encoding="utf-8").replace("| `repu` |", "| `repu_old` |")
    built = hooks.on_page_markdown(stale, page=page, config=None, files=None)
    assert "| `repu` |" in built and "repu_old" not in built
    assert warnings == [
        "reference/results.md: its column lists differ from the results' schemas: run make columns (python -m alc_dask.results.columns docs/reference/results.md)"
    ]


def test_every_command_and_option_is_in_the_cli_reference_with_its_help():
    page = cli_reference()

    def walk(command: click.Command, path: str):
        section = page[page.index(f"`{path}` {{#{path.replace(' ', '-')}}}") :]
        assert (command.help or "").strip().splitlines()[0].replace("``", "`") in section
        for param in command.params:
            if isinstance(param, click.Option):
                assert f"`{param.opts[-1]}`" in section[: section.find("\n#", 1)], (path, param.opts)
        if isinstance(command, click.Group):
            for name in command.list_commands(click.Context(command)):
                walk(command.get_command(click.Context(command), name), f"{path} {name}")

    walk(main, "alc-dask")
    assert "| `--seed` `INTEGER RANGE` | Seed of every evaluation. (range: `x>=0`; default: `0`) |" in page


def test_a_command_added_shows_in_the_cli_reference():
    @click.group(epilog="\b\nExit codes:\n  0    done\n  7    out of coffee\n")
    def tool():
        """A tool."""

    @tool.command()
    @click.argument("table", type=click.Path())
    @click.option("--rows", type=click.IntRange(min=1), default=10, help="Rows to read.")
    def peek(table, rows):
        """Show the first rows of TABLE."""

    page = cli_reference(tool, "tool")
    assert "### `tool peek` {#tool-peek}" in page and "tool peek [OPTIONS] TABLE" in page
    assert "| `--rows` `INTEGER RANGE` | Rows to read. (range: `x>=1`; default: `10`) |" in page
    assert "| 7 | out of coffee |" in page


def test_the_exit_code_table_of_the_cli_page_lists_the_commands_codes():
    page = (ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    table = page[page.index("{#what-to-do}") :]
    written = [int(code) for code in re.findall(r"^\| (\d+) \|", table, re.MULTILINE)]
    assert written == [code for code, _ in exit_codes(main)] == [0, 1, 2, 3, 4, 5, 130]


def test_the_verdict_reference_lists_every_field_of_the_model():
    page = verdict_reference()
    for model in (Verdict, *(field.annotation.__args__[0] for field in [Verdict.model_fields["evaluations"]])):
        for name in model.model_fields:
            assert f"| `{name}` |" in page, name
    assert "## `evaluations[].headline` {#evaluations-headline}" in page


def test_a_familys_summary_is_its_headline_and_threshold():
    summary = family_summary("membership")
    family = get_family("membership")
    assert f"| headline measure | `{family.headline}`: " in summary
    assert f"| threshold | {family.threshold.value:g}: " in summary and "§6.1" in summary


def test_markers_are_expanded_and_an_unknown_one_is_an_error():
    text = "intro\n<!-- reference:family:privacy_models -->\nafter\n"
    assert "`models_missed`" in expand(text) and expand(text).startswith("intro\n| family | `privacy_models` |")
    with pytest.raises(KeyError, match="page.md: no generated reference is called 'nope'"):
        expand("<!-- reference:nope -->\n", "page.md")


def _shipped_jobs() -> list[Path]:
    return sorted((ROOT / "jobs").rglob("*.yaml")) + sorted((ROOT / "tests" / "data").rglob("*.yaml"))


@pytest.mark.parametrize("path", _shipped_jobs(), ids=lambda path: str(path.relative_to(ROOT)))
def test_the_published_job_schema_accepts_every_job_the_project_ships(path):
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not (isinstance(document, dict) and "scenarios" in document and "release" in document):
        pytest.skip("not a job file")
    jsonschema.Draft202012Validator(job_schema()).validate(document)


def test_the_job_schema_refuses_a_typo_and_a_value_out_of_range():
    validator = jsonschema.Draft202012Validator(job_schema())
    job = {"name": "x", "release": {"original": "o.csv", "anonymized": ["a.csv"]}, "scenarios": [{"secret": "s", "known": ["k"]}]}
    assert not list(validator.iter_errors(job))
    assert list(validator.iter_errors({**job, "seeed": 1}))
    assert list(validator.iter_errors({**job, "scenarios": [{"family": "membership", "n_members": 0}]}))
    assert list(validator.iter_errors({**job, "scenarios": [{"family": "membership", "secret": "s"}]}))


def test_the_site_publishes_both_schemas():
    files = schema_files()
    assert set(files) == {"reference/job.schema.json", "reference/verdict.schema.json"}
    assert '"title": "alc_dask job"' in files["reference/job.schema.json"]


def _hooks():
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _page(src_uri: str):
    class File:
        pass

    class Page:
        url = src_uri.removesuffix(".md") + "/"

    Page.file = File()
    Page.file.src_uri = src_uri
    return Page()
