"""The alc-dask score command, including bad files."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from alc_dask.apps.score import score_predictions
from alc_dask.cli import main


def example_predictions(targets: int = 2000, seed: int = 0) -> pd.DataFrame:
    """A baseline and a stronger attack whose confidence tracks correctness, as in real attacks."""
    rng = np.random.default_rng(seed)
    frames = []
    for kind, skill in (("base", 0.55), ("attack", 0.8)):
        confidence = np.round(rng.beta(2 + 4 * skill, 3, size=targets), 3)
        correct = rng.random(targets) < np.clip(confidence * (0.6 + 0.5 * skill), 0, 1)
        frames.append(pd.DataFrame({"kind": kind, "correct": correct, "confidence": confidence}))
    return pd.concat(frames, ignore_index=True)


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_console_script_scores_a_file(tmp_path):
    path = tmp_path / "predictions.csv"
    example_predictions(targets=400, seed=1).to_csv(path, index=False)
    alc_dask = Path(sys.executable).with_name("alc-dask")
    out = subprocess.run([str(alc_dask), "score", str(path)], capture_output=True, text=True, check=True).stdout
    assert "ALC" in out and "attack (best cut)" in out


def test_score_file_matches_the_library(tmp_path):
    frame = example_predictions(targets=500, seed=3)
    path = tmp_path / "predictions.csv"
    frame.to_csv(path, index=False)
    result = run("score", str(path))
    assert result.exit_code == 0, result.output
    expected = score_predictions(frame)
    assert f"ALC {expected.alc:.4f} ({expected.risk})" in result.output


def test_score_reads_parquet(tmp_path):
    path = tmp_path / "predictions.parquet"
    example_predictions(targets=300).to_parquet(path)
    assert run("score", str(path)).exit_code == 0


@pytest.mark.parametrize(
    "frame, message",
    [
        (pd.DataFrame({"kind": ["base"], "correct": [True]}), "missing column(s) ['confidence']"),
        (pd.DataFrame({"kind": ["base", "atack"], "correct": [1, 0], "confidence": [0.5, 0.5]}), "'atack'"),
        (pd.DataFrame({"kind": ["base", "base"], "correct": [1, 0], "confidence": [0.5, 0.5]}), "no rows with kind 'attack'"),
        (pd.DataFrame({"kind": ["base", "attack"], "correct": ["yes", "no"], "confidence": [0.5, 0.5]}), "'correct'"),
        (pd.DataFrame({"kind": ["base", "attack"], "correct": [1, 0], "confidence": [0.5, None]}), "confidence contains NaN"),
    ],
)
def test_bad_prediction_files_name_file_and_column(tmp_path, frame, message):
    path = tmp_path / "bad.csv"
    frame.to_csv(path, index=False)
    result = run("score", str(path))
    assert result.exit_code != 0
    assert str(path) in result.output and message in result.output


def test_unknown_format_and_unreadable_file(tmp_path):
    odd = tmp_path / "predictions.xlsx"
    odd.write_text("x")
    assert "unknown format" in run("score", str(odd)).output
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not parquet")
    result = run("score", str(broken))
    assert result.exit_code != 0 and "cannot be read" in result.output


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "0", "-0.1", "1.5", "wide"])
def test_max_interval_must_be_a_number_above_0_and_at_most_1(tmp_path, value):
    path = tmp_path / "predictions.csv"
    example_predictions(targets=200).to_csv(path, index=False)
    result = run("score", str(path), "--max-interval", value)
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--max-interval'" in result.output and value.lstrip("-").lower() in result.output.lower()


def test_max_interval_of_1_admits_every_cut(tmp_path):
    path = tmp_path / "predictions.csv"
    example_predictions(targets=200).to_csv(path, index=False)
    assert run("score", str(path), "--max-interval", "1").exit_code == 0


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_bad_value_is_shown_as_written_not_as_a_numpy_scalar(tmp_path, suffix):
    path = tmp_path / f"predictions{suffix}"
    frame = pd.DataFrame({"kind": ["base", "attack"] * 3, "correct": [1, 0, 1, 2, 0, 1], "confidence": 0.5})
    frame.to_csv(path, index=False) if suffix == ".csv" else frame.to_parquet(path)
    result = run("score", str(path))
    assert result.exit_code == 2
    assert result.output.rstrip().endswith("column 'correct' must hold true/false or 1/0; found 2"), result.output
