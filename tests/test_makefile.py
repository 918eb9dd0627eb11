"""The Makefile's targets exist and run what they say."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def make_dry_run(target: str) -> list[str]:
    result = subprocess.run(["make", "-n", target, "VENV=/nonexistent-venv"], cwd=ROOT, capture_output=True, text=True, check=True)
    return result.stdout.splitlines()


def test_every_phony_target_has_a_rule():
    text = (ROOT / "Makefile").read_text()
    phony = re.search(r"^\.PHONY:(.*)$", text, re.MULTILINE).group(1).split()
    rules = set(re.findall(r"^([A-Za-z][\w.-]*):", text, re.MULTILINE))
    assert set(phony) <= rules, set(phony) - rules


def test_bench_runs_a_benchmark_of_the_repository():
    (command,) = [line for line in make_dry_run("bench") if "benchmarks/" in line]
    script = ROOT / command.split()[1]
    assert script.is_file()
    quick = subprocess.run([sys.executable, str(script), "--sizes", "200", "--budget", "5"], cwd=ROOT, capture_output=True, text=True, check=False, timeout=120)
    assert quick.returncode == 0, quick.stderr
    assert "predictions" in quick.stdout and "200" in quick.stdout


def test_columns_regenerates_the_results_references_column_lists():
    (command,) = [line for line in make_dry_run("columns") if "alc_dask.results.columns" in line]
    page = command.rsplit(" ", 1)[1]
    assert command.endswith("-m alc_dask.results.columns docs/reference/results.md") and (ROOT / page).is_file()


def test_test_and_docs_build_the_site_strictly_with_the_docs_extra_installed():
    for target in ("test", "docs"):
        lines = make_dry_run(target)
        assert any(line.endswith("/mkdocs build --strict") for line in lines), lines
        assert any("pip install" in line and "'.[test,docs]'" in line for line in lines), lines


def test_test_runs_the_default_suite_then_the_long_and_timing_cases():
    suites = [line.split(" -m pytest", 1)[1].strip() for line in make_dry_run("test") if " -m pytest" in line]
    assert suites == ["", '-m "long or timing"']


def test_the_default_suite_leaves_out_long_and_timing_cases_which_the_second_step_runs(pytestconfig):
    """No marker is left out of every step (two tests marked slow ran in none); unknown markers fail."""
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["markers"]
    assert {line.split(":")[0] for line in declared} == {"long", "timing"}
    addopts = pytestconfig.getini("addopts")
    assert addopts[addopts.index("-m") + 1] == "not timing and not long" and "--strict-markers" in addopts


def test_the_demo_installs_the_package_alone():
    """`make demo` spent 2 min 50 s of its 8 min installing the test and docs extras it does not need."""
    lines = make_dry_run("demo")
    installs = [line for line in lines if "pip install" in line]
    assert any(line.endswith(" -e .") for line in installs), lines
    assert not any("[test" in line or "[docs" in line for line in installs), lines
