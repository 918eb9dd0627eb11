"""``alc-dask score PREDICTIONS``: the ALC of predictions made elsewhere, read from a CSV or Parquet file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from alc_dask.cli_options import FiniteFloatRange

if TYPE_CHECKING:
    import pandas as pd

    from alc_dask.apps.score import Score


@click.command()
@click.argument("predictions", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--max-interval",
    type=FiniteFloatRange(min=0, max=1, min_open=True),
    default=0.1,
    show_default=True,
    help="Widest admissible Wilson interval of a cut, above 0 and at most 1.",
)
def score(predictions: Path, max_interval: float) -> None:
    """Score a CSV or Parquet file of predictions with columns kind (base|attack), correct, confidence."""
    from alc_dask.apps.score import score_predictions

    frame = _read_table(predictions)
    result = score_predictions(frame, max_interval=max_interval, source=str(predictions))
    _print_score(result)


def _read_table(path: Path) -> pd.DataFrame:
    import pandas as pd

    from alc_dask.apps.score import PredictionsError

    readers = {".csv": pd.read_csv, ".parquet": pd.read_parquet}
    reader = readers.get(path.suffix.lower())
    if reader is None:
        raise PredictionsError(f"{path}: unknown format '{path.suffix}'; expected .csv or .parquet")
    try:
        return reader(path)
    except Exception as error:  # any parser failure becomes one clear message naming the file
        raise PredictionsError(f"{path}: cannot be read: {error}") from error


def _print_score(result: Score) -> None:
    import pandas as pd

    measures = {
        "base (best cut)": result.base,
        "attack (best cut)": result.attack,
        "base (recall 1)": result.base_full_recall,
        "attack (recall 1)": result.attack_full_recall,
    }
    rows = {"n": "{:d}", "recall": "{:.4f}", "precision": "{:.4f}", "interval_low": "{:.4f}", "interval_high": "{:.4f}", "prc": "{:.4f}"}
    table = pd.DataFrame({name: {row: fmt.format(getattr(measure, row)) for row, fmt in rows.items()} for name, measure in measures.items()})
    click.echo(table.to_string())
    click.echo(f"\nALC {result.alc:.4f} ({result.risk}); at recall 1: {result.alc_full_recall:.4f}")
