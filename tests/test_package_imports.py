"""Importing stays light: the measure layer loads no cluster, model, JIT or plotting library; the
package, its job layer, ``alc-dask --help`` and ``alc-dask plan`` load none of distributed,
scikit-learn, Numba or matplotlib, which only running scenarios (or drawing a report) needs; the CLI
module loads no data library either, nor the installed packages' metadata, and ``plan`` neither Dask
nor SciPy (``benchmarks/bench_startup.py`` times both commands)."""

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import yaml

HEAVY = ("distributed", "dask", "sklearn", "numba", "matplotlib", "pandas", "pyarrow")
RUNTIME = ("distributed", "sklearn", "numba", "matplotlib")
PLAN_NEEDS_NOT = (*RUNTIME, "dask", "scipy")
"""What planning a job needs none of: only running an evaluation (identification's fit, a cluster) does."""


def loaded_by(code: str, libraries=RUNTIME) -> list[str]:
    """Which of ``libraries`` a fresh interpreter holds after running ``code``."""
    check = f"{code}\nimport json, sys; print(json.dumps(sorted(m for m in {libraries!r} if m in sys.modules)))"
    return json.loads(subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True).stdout.splitlines()[-1])


def test_the_measure_layer_imports_nothing_heavy():
    assert loaded_by("import alc_dask.measure", HEAVY) == []


def test_the_package_and_its_job_layer_import_no_runtime_library():
    assert loaded_by("import alc_dask, alc_dask.jobs, alc_dask.measure") == []


def test_importing_the_cli_imports_no_data_library_nor_entry_points():
    """What ``alc-dask`` starts with before any command: each command imports what it needs, and
    entry points are read when a family or attack is first looked up."""
    assert loaded_by("import alc_dask.cli", (*HEAVY, "scipy", "importlib.metadata")) == []


def test_a_command_s_help_imports_no_data_library():
    code = "from alc_dask.cli import main\ntry:\n    main(['plan', '--help'], standalone_mode=False)\nexcept SystemExit:\n    pass"
    assert loaded_by(code, HEAVY) == []


def test_help_imports_no_runtime_library_nor_pandas():
    code = "from alc_dask.cli import main\ntry:\n    main(['--help'], standalone_mode=False)\nexcept SystemExit:\n    pass"
    assert loaded_by(code, (*RUNTIME, "pandas")) == []


def test_python_m_cli_help_lists_every_command_and_imports_nothing_heavy():
    """``python -X importtime -m alc_dask.cli --help``: every core and application command listed,
    and among the modules imported none of the runtime libraries, pandas, nor a family package."""
    from alc_dask.apps import APP_COMMANDS

    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "alc_dask.cli", "--help"], capture_output=True, text=True, check=True)
    listed = set(re.findall(r"^  ([\w-]+) ", result.stdout.split("Commands:")[1].split("Exit codes:")[0], re.MULTILINE))
    assert listed == {"run", "plan", "summarize", "audit", *APP_COMMANDS}
    imported = {line.rsplit("|", 1)[1].strip() for line in result.stderr.splitlines() if line.startswith("import time:") and "|" in line}
    assert "alc_dask.cli_exit_codes" in imported  # the report is of the right run
    assert not {module.split(".")[0] for module in imported} & {*RUNTIME, "pandas"}
    assert not [module for module in imported if module.startswith("alc_dask.families")]


def test_the_cli_core_imports_no_family_package():
    """The core CLI knows no family: families come from entry points, and the applications (which may
    import them) are added from ``alc_dask.apps.APP_COMMANDS``."""
    package = Path(__file__).resolve().parents[1] / "alc_dask"
    for module in ("cli.py", "cli_exit_codes.py", "cli_options.py"):
        tree = ast.parse((package / module).read_text())
        names = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
        names += [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
        assert not [name for name in names if name.startswith("alc_dask.families")], module


def test_plan_of_a_small_release_imports_no_runtime_library_nor_dask(tmp_path):
    """Reading the job and the release, expanding and checking its scenarios (the attacks built,
    the baselines' models named, each family's parameters checked) needs none of them, nor Dask and
    SciPy; a release too large to copy would start a cluster, and distributed with it."""
    frame = pd.DataFrame({"age": range(300), "sex": ["f", "m"] * 150, "status": ["a", "b", "c"] * 100})
    for name in ("original", "weak", "control"):
        frame.to_parquet(tmp_path / f"{name}.parquet")
    job = {
        "name": "t",
        "release": {"original": "original.parquet", "anonymized": "weak.parquet", "control": "control.parquet"},
        "scenarios": [
            {"generate": "each_column", "secrets": ["status"]},
            {"family": "linkability", "aux_cols": [["age"], ["sex"]]},
            {"family": "inference", "aux_cols": ["age", "sex"], "secret": "status"},
            {"family": "membership", "attack": "distance_ratio", "skew": "1:10"},
            {"family": "identification", "quasi_identifiers": ["age", "sex"], "population": 1000},
        ],
        "baseline_settings": {"candidates": ["majority", "random_forest"]},
    }
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
    code = f"from alc_dask.cli import main\nmain(['plan', {str(tmp_path / 'job.yaml')!r}], standalone_mode=False)"
    assert loaded_by(code, PLAN_NEEDS_NOT) == []


def test_importing_the_report_chooses_no_matplotlib_backend():
    code = "import matplotlib, alc_dask.families.alc.plots; import sys; print(matplotlib.rcParams._get_backend_or_none())"
    backend = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert backend == "None"
