"""The ``alc-dask`` command: thin, it parses, calls the layers and prints."""

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click
import pandas as pd

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
@click.argument("job", type=click.Path(path_type=Path))
@click.option("--scheduler", help="Address (or scheduler file) of a running Dask cluster; default: a local cluster.")
@click.option("--workers", type=click.IntRange(min=1), help="Local worker processes (default: one per core); with --scheduler, workers to wait for.")
@click.option("--out", type=click.Path(path_type=Path), help="Output directory (default: the job's output).")
@click.option("-v", "--verbose", is_flag=True, help="Print a line per finished scenario.")
def run(job: Path, scheduler: str | None, workers: int | None, out: Path | None, verbose: bool) -> None:
    """Run every scenario of JOB not already finished in its output directory."""
    from alc_dask.engine import run_job

    with _clear_errors():
        scores = run_job(job, scheduler=scheduler, workers=workers, out=out, verbose=verbose)
    failed, skipped = int((scores["status"] == "failed").sum()), int((scores["status"] == "skipped").sum())
    click.echo(f"{len(scores)} scenarios, {failed} failed, {skipped} skipped; results in {out or _output_of(job)}")
    if failed:
        sys.exit(1)


@main.command()
@click.argument("job", type=click.Path(path_type=Path))
def plan(job: Path) -> None:
    """List the scenarios JOB expands to, without running them; the last column says "to run" or why it is skipped."""
    from alc_dask.engine import prepare_release
    from alc_dask.jobs import check_files, expand, load_job

    with _clear_errors():
        spec = load_job(job)
        check_files(spec, str(job))
        scenarios = expand(spec, prepare_release(spec), str(job))
    for s in scenarios:
        status = f"skipped: {s.skipped}" if s.skipped else "to run"
        click.echo(f"{s.id}\t{s.secret}\t{s.known_json}\t{s.attack}\t{s.baseline}\t{s.origin}\t{status}")
    skipped = sum(1 for s in scenarios if s.skipped)
    click.echo(f"{len(scenarios)} scenarios ({skipped} skipped)", err=True)


@main.command()
@click.argument("out", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--report", "report_dir", type=click.Path(path_type=Path), help="Report folder (default: OUT/report of the first OUT).")
def summarize(out: tuple[Path, ...], report_dir: Path | None) -> None:
    """Summarize the results in one or more output directories; write text, Markdown and HTML reports."""
    from alc_dask.report import as_text, write_report
    from alc_dask.report import summarize as summary_of
    from alc_dask.results import read_scores

    with _clear_errors():
        scores = pd.concat([read_scores(folder) for folder in out], ignore_index=True)
        if scores.empty:
            raise click.ClickException(f"{', '.join(map(str, out))}: no scores found (expected Parquet parts under scores/)")
        summary = summary_of(scores)
        paths = write_report(summary, report_dir or out[0] / "report")
    click.echo(as_text(summary))
    click.echo(f"Report: {paths['html']} (Markdown: {paths['markdown']})")


@main.command()
@click.argument("job", type=click.Path(path_type=Path))
@click.option("--scheduler", help="Address (or scheduler file) of a running Dask cluster; default: a local cluster.")
@click.option("--workers", type=click.IntRange(min=1), help="Local worker processes (default: one per core).")
@click.option("--out", type=click.Path(path_type=Path), help="Output directory (default: the job's output).")
def audit(job: Path, scheduler: str | None, workers: int | None, out: Path | None) -> None:
    """Run JOB as a dated audit and compare with the previous one; exit 1 when the release is flagged."""
    from alc_dask.report.nightly import run_audit

    with _clear_errors():
        outcome = run_audit(job, scheduler=scheduler, workers=workers, out=out)
    click.echo(outcome.report.read_text())
    click.echo(f"Audit report: {outcome.report}")
    if not outcome.passed:
        sys.exit(1)


@main.command()
@click.option("--out", type=click.Path(path_type=Path), default=Path("alc-out/demo"), show_default=True, help="Folder for the release, jobs, results and report.")
@click.option("--rows", default=5000, show_default=True, help="Rows of the synthetic population.")
@click.option("--seed", default=0, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), help="Local worker processes (default: one per core).")
def demo(out: Path, rows: int, seed: int, workers: int | None) -> None:
    """Attack a weakly and a strongly anonymized synthetic release on a local cluster and report."""
    from alc_dask.demo import run_demo
    from alc_dask.report import as_text
    from alc_dask.report import summarize as summary_of
    from alc_dask.results import read_scores

    click.echo(f"Demo: a synthetic population of {rows} people, released weakly (10% swapped) and strongly (60% swapped) anonymized.")
    with _clear_errors():
        paths = run_demo(out, rows=rows, seed=seed, workers=workers)
        scores = pd.concat([read_scores(out / "results" / level) for level in ("weak", "strong")], ignore_index=True)
    click.echo(as_text(summary_of(scores)))
    click.echo(f"Report: {paths['html'].resolve()}")


@main.group()
def paper() -> None:
    """Reproduce the ALC paper's experiment and compare it with the reference implementation."""


@paper.command("run")
@click.argument("jobs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--sample", type=click.IntRange(min=1), help="Attacks drawn at random per job (default: the jobs' own sample).")
@click.option("--all", "everything", is_flag=True, help="Every attack of the paper's jobs.json, no sampling.")
@click.option("--scheduler", help="Address (or scheduler file) of a running Dask cluster; default: a local cluster.")
@click.option("--workers", type=click.IntRange(min=1), help="Local worker processes (default: one per core); with --scheduler, workers to wait for.")
def paper_run(jobs: tuple[Path, ...], sample: int | None, everything: bool, scheduler: str | None, workers: int | None) -> None:
    """Run the paper's job files (jobs/paper/*.yaml), one after the other, on one cluster."""
    from alc_dask.engine import run_job
    from alc_dask.engine.cluster import connect
    from alc_dask.jobs import load_job
    from alc_dask.reproduction import with_paper_sample

    failed = 0
    with _clear_errors(), connect(scheduler, workers) as client:
        for job in jobs:
            spec = load_job(job)
            if sample or everything:
                spec = with_paper_sample(spec, None if everything else sample)
            scores = run_job(spec, client=client)
            failed += int((scores["status"] == "failed").sum())
            click.echo(f"{job}: {len(scores)} scenarios; results in {spec.output}")
    if failed:
        click.echo(f"{failed} scenarios failed")
        sys.exit(1)


@paper.command("compare")
@click.argument("out", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--reference", "reference_dir", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path), help="The reference's results (alc-paper/reference-results).")
@click.option("--report", "report_dir", type=click.Path(path_type=Path), default=Path("alc-out/paper/report"), show_default=True)
def paper_compare(out: tuple[Path, ...], reference_dir: Path, report_dir: Path) -> None:
    """Table 2 and Figure 7 of the paper from the results in OUT..., beside the reference's."""
    from alc_dask.reproduction import compare_with_reference
    from alc_dask.results import read_scores

    with _clear_errors():
        scores = pd.concat([read_scores(folder) for folder in out], ignore_index=True)
        markdown = compare_with_reference(scores, reference_dir, report_dir)
    report_dir.mkdir(parents=True, exist_ok=True)
    (report_dir / "paper.md").write_text(markdown)
    click.echo(markdown)
    click.echo(f"Report: {report_dir / 'paper.md'}")


@contextmanager
def _clear_errors() -> Iterator[None]:
    """Bad input (job file, release, output folder, cluster) becomes one message and exit code 1."""
    from alc_dask.engine import EngineError

    try:
        yield
    except (ValueError, OSError, EngineError) as error:
        raise click.ClickException(str(error)) from error


def _output_of(job: Path) -> str:
    from alc_dask.jobs import load_job

    return load_job(job).output


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
