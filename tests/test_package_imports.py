"""Importing stays light: the measure layer loads no cluster, model, JIT or plotting library; the
package, its job layer, ``alc-dask --help`` and ``alc-dask plan`` load none of distributed,
scikit-learn, Numba or matplotlib, which only running scenarios (or drawing a report) needs."""

import json
import subprocess
import sys

import pandas as pd
import yaml

HEAVY = ("distributed", "dask", "sklearn", "numba", "matplotlib", "pandas", "pyarrow")
RUNTIME = ("distributed", "sklearn", "numba", "matplotlib")


def loaded_by(code: str, libraries=RUNTIME) -> list[str]:
    """Which of ``libraries`` a fresh interpreter holds after running ``code``."""
    check = f"{code}\nimport json, sys; print(json.dumps(sorted(m for m in {libraries!r} if m in sys.modules)))"
    return json.loads(subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True).stdout.splitlines()[-1])


def test_the_measure_layer_imports_nothing_heavy():
    assert loaded_by("import alc_dask.measure", HEAVY) == []


def test_the_package_and_its_job_layer_import_no_runtime_library():
    assert loaded_by("import alc_dask, alc_dask.jobs, alc_dask.measure") == []


def test_help_imports_no_runtime_library_nor_pandas():
    code = "from alc_dask.cli import main\ntry:\n    main(['--help'], standalone_mode=False)\nexcept SystemExit:\n    pass"
    assert loaded_by(code, (*RUNTIME, "pandas")) == []


def test_plan_of_a_small_release_imports_no_runtime_library(tmp_path):
    """Reading the job and the release, expanding and checking its scenarios (the attacks built,
    the baselines' models named, each family's parameters checked) needs none of them; a release
    too large to copy would start a cluster, and distributed with it."""
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
        ],
        "baseline_settings": {"candidates": ["majority", "random_forest"]},
    }
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
    code = f"from alc_dask.cli import main\nmain(['plan', {str(tmp_path / 'job.yaml')!r}], standalone_mode=False)"
    assert loaded_by(code) == []


def test_importing_the_report_chooses_no_matplotlib_backend():
    code = "import matplotlib, alc_dask.families.alc.plots; import sys; print(matplotlib.rcParams._get_backend_or_none())"
    backend = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert backend == "None"
