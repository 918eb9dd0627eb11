"""The ``alc-dask`` command: thin, it parses, calls the layers and prints."""

from pathlib import Path

import click
import pandas as pd

from alc_dask.demo_predictions import example_predictions
from alc_dask.score import Score, score_predictions


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="alc-dask")
def main() -> None:
    """Measure the anonymity a data release loses to attribute-inference attacks (the ALC)."""


@main.command()
@click.argument("predictions", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--max-interval", default=0.1, show_default=True, help="Widest admissible Wilson interval of a cut.")
def score(predictions: Path, max_interval: float) -> None:
    """Score a CSV or Parquet file of predictions with columns kind (base|attack), correct, confidence."""
    frame = _read_table(predictions)
    try:
        result = score_predictions(frame, max_interval=max_interval, source=str(predictions))
    except ValueError as error:
        raise click.ClickException(str(error)) from error
    _print_score(result)


@main.command()
@click.option("--seed", default=0, show_default=True)
def demo(seed: int) -> None:
    """Score seeded example predictions of a baseline and an attack."""
    click.echo("Scoring example predictions (2000 targets, a baseline and an attack) ...")
    _print_score(score_predictions(example_predictions(seed=seed), source="demo"))


def _read_table(path: Path) -> pd.DataFrame:
    readers = {".csv": pd.read_csv, ".parquet": pd.read_parquet}
    reader = readers.get(path.suffix.lower())
    if reader is None:
        raise click.ClickException(f"{path}: unknown format '{path.suffix}'; expected .csv or .parquet")
    try:
        return reader(path)
    except Exception as error:  # any parser failure becomes one clear message naming the file
        raise click.ClickException(f"{path}: cannot be read: {error}") from error


def _print_score(result: Score) -> None:
    measures = {
        "base (best cut)": result.base,
        "attack (best cut)": result.attack,
        "base (recall 1)": result.base_full_recall,
        "attack (recall 1)": result.attack_full_recall,
    }
    rows = {"n": "{:d}", "recall": "{:.4f}", "precision": "{:.4f}", "interval_low": "{:.4f}", "interval_high": "{:.4f}", "prc": "{:.4f}"}
    table = pd.DataFrame(
        {name: {row: fmt.format(getattr(measure, row)) for row, fmt in rows.items()} for name, measure in measures.items()}
    )
    click.echo(table.to_string())
    click.echo(f"\nALC {result.alc:.4f} ({result.risk}); at recall 1: {result.alc_full_recall:.4f}")
