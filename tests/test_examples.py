"""The example scripts stay runnable."""

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_custom_attack_example_runs_and_reports_an_alc_alike_by_the_loop_and_by_the_class():
    out = subprocess.run([sys.executable, EXAMPLES / "custom_attack.py"], capture_output=True, text=True, check=True).stdout
    header, by_loop, by_class = out.strip().splitlines()[:3]
    assert header.split()[-1] == "alc"
    assert by_loop.split()[:2] == ["occupation", "exact_match"]
    assert -10 < float(by_loop.split()[-1]) <= 1
    assert by_class == by_loop
