"""Importing the measure layer stays light: no cluster, model, JIT or plotting library comes with it."""

import subprocess
import sys

HEAVY = ("distributed", "dask", "sklearn", "numba", "matplotlib", "pandas", "pyarrow")


def test_the_measure_layer_imports_nothing_heavy():
    code = f"import sys, alc_dask.measure; print([m for m in {HEAVY!r} if m in sys.modules])"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"


def test_importing_the_report_chooses_no_matplotlib_backend():
    code = "import matplotlib, alc_dask.report.plots; import sys; print(matplotlib.rcParams._get_backend_or_none())"
    backend = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert backend == "None"
