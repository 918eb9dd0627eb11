"""The example scripts stay runnable."""

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_custom_attack_example_runs_and_reports_an_alc():
    out = subprocess.run([sys.executable, EXAMPLES / "custom_attack.py"], capture_output=True, text=True, check=True).stdout
    header, row = out.strip().splitlines()[:2]
    assert header.split()[-1] == "alc"
    assert row.split()[:2] == ["occupation", "exact_match"]
    assert -10 < float(row.split()[-1]) <= 1
